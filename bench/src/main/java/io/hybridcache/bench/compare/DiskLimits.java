package io.hybridcache.bench.compare;

import io.hybridcache.bench.BenchDirs;
import io.hybridcache.bench.Sizes;
import io.hybridcache.bench.limits.Fio;
import io.hybridcache.core.api.CacheConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The disk's limits measured by fio in the comparison's own directory, just before the stores run:
 * 4 KiB random reads at queue depth 1 with one job and with as many jobs as client threads, and
 * 1 MiB sequential writes (direct I/O, psync, like the stores' own reads). Immutable.
 */
record DiskLimits(String fioVersion, double randReadIops1, double randReadP50Us1, double randReadP99Us1,
                  int jobs, double randReadIopsN, double randReadP99UsN, double seqWriteMiBs) {

  /** Runs fio in {@code dir} (deleted afterwards); null if fio is missing and cannot be installed. */
  static DiskLimits measure(Path dir, int jobs, boolean quick, boolean install, PrintStream err)
      throws IOException, InterruptedException {
    Fio fio = new Fio("fio");
    String version = fio.ensure(install, err);
    if (version == null) {
      return null;
    }
    Files.createDirectories(dir);
    long size = (quick ? 256 : 1024) * CacheConfig.MIB;
    int secs = quick ? 5 : 10;
    err.printf("compare: fio %s: 4 KiB random reads QD1 (1 and %d jobs) on %s, 1 MiB sequential writes, %d s each%n",
        version, jobs, Sizes.format(size), secs);
    Path rf = dir.resolve("fio-randread.dat");
    Fio.Result r1 = fio.run(Fio.randRead(rf, size, 1, secs, "psync"), "read", err);
    Fio.Result rn = fio.run(Fio.randRead(rf, size, jobs, secs, "psync"), "read", err);
    Fio.Result w = fio.run(Fio.seqWrite(dir.resolve("fio-seqwrite.dat"), size, secs, "psync"), "write", err);
    BenchDirs.deleteTree(dir);
    DiskLimits l = new DiskLimits(version, r1.iops(), r1.p50Us(), r1.p99Us(), jobs, rn.iops(), rn.p99Us(), w.mibPerSec());
    err.printf("compare: fio: %,.0f IOPS (1 job, p99 %.0f us), %,.0f IOPS (%d jobs, p99 %.0f us), %,.0f MiB/s sequential writes%n",
        l.randReadIops1, l.randReadP99Us1, l.randReadIopsN, jobs, l.randReadP99UsN, l.seqWriteMiBs);
    return l;
  }
}
