package io.hybridcache.bench.faults;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.BenchDirs;
import io.hybridcache.bench.BenchMain;
import io.hybridcache.bench.StatsJson;
import io.hybridcache.bench.TextTable;
import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.IndexType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * What single faults cost, on real files: (1) one reader thread among four that interrupts itself
 * before every {@code get} (the flash hit ratio of each thread, and whether the tier stays in
 * service), (2) one segment file of N deleted behind the cache's back between a clean close and a warm
 * open (flash entries lost against the one-Nth a segment holds). Every value read is checked against
 * what was written for its key.
 *
 * <p>Run: {@code java -jar bench/target/hybridcache-bench.jar faults [--entries N] [--json FILE]}
 * (about half a minute at the defaults). The time {@code close()} takes with a device that never
 * answers is measured by the core test {@code WriterAndCloseTest}, which can inject such a device.
 */
@Command(name = "faults", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"What single faults cost: an interrupted reader among four threads, one deleted segment file."})
public final class FaultsCommand implements Callable<Integer> {
  private static final int THREADS = 4;

  @Spec
  CommandSpec spec;

  @Option(names = "--dir", paramLabel = "DIR", description = "scratch directory (default: ${DEFAULT-VALUE})")
  Path dir = Path.of("target", "faults-data");

  @Option(names = "--entries", paramLabel = "N", description = "entries written (default: ${DEFAULT-VALUE})")
  int entries = 100_000;

  @Option(names = "--value-bytes", paramLabel = "N", description = "value size (default: ${DEFAULT-VALUE})")
  int valueBytes = 1000;

  @Option(names = "--gets", paramLabel = "N", description = "gets per reader thread (default: ${DEFAULT-VALUE})")
  int gets = 50_000;

  @Option(names = "--json", paramLabel = "FILE", description = "also write the figures as JSON to FILE")
  Path json;

  @Override
  public Integer call() throws Exception {
    if (entries <= 0 || gets <= 0 || valueBytes <= 0) {
      throw new ParameterException(spec.commandLine(), "--entries, --gets and --value-bytes must be > 0");
    }
    Path root = BenchDirs.prepare(dir);
    CacheConfig cfg = CacheConfig.builder(root.resolve("cache"))
        .name("faults")
        .dramBytes(8 * CacheConfig.MIB)
        .flashBytes(Math.max(64 * CacheConfig.MIB, 2L * entries * (valueBytes + 64)))
        .segmentBytes((int) (4 * CacheConfig.MIB))
        .indexType(IndexType.HEAP)
        .jmx(false)
        .build();
    ObjectNode out = StatsJson.MAPPER.createObjectNode();
    TextTable table = new TextTable("fault", "figure", "value");

    try (HybridCache cache = HybridCache.open(cfg)) {
      fill(cache);
      double[] ratios = interruptedReader(cache);
      CacheStats s = cache.stats();
      for (int t = 0; t < THREADS; t++) {
        table.row("interrupted reader", "hit ratio, thread " + t + (t == 0 ? " (interrupted)" : ""), ratios[t]);
        out.put("interrupted_reader_hit_ratio_thread_" + t, ratios[t]);
      }
      table.row("interrupted reader", "tier degraded", s.degraded() ? "yes" : "no");
      table.row("interrupted reader", "reads lost to an interrupt", s.interruptedReads());
      out.put("interrupted_reader_degraded", s.degraded());
      out.put("interrupted_reads", s.interruptedReads());
    }

    long before = countFlashHits(cfg, null);
    Path segments = cfg.directory().resolve("segments");
    List<Path> files;
    try (Stream<Path> list = Files.list(segments)) {
      files = list.filter(p -> p.getFileName().toString().endsWith(".seg")).sorted().toList();
    }
    Path victim = files.get(files.size() / 2);
    Files.delete(victim);
    CacheStats[] after = new CacheStats[1];
    long kept = countFlashHits(cfg, after);
    long lost = before - kept;
    table.row("deleted segment file", "segment files", files.size());
    table.row("deleted segment file", "flash entries before / after", before + " / " + kept);
    table.row("deleted segment file", "lost (one segment holds about)", lost + " (" + before / files.size() + ")");
    table.row("deleted segment file", "segments dropped, tier degraded", after[0].segmentsDropped() + ", "
        + (after[0].degraded() ? "yes" : "no"));
    out.put("segment_files", files.size());
    out.put("flash_entries_before", before);
    out.put("flash_entries_after", kept);
    out.put("flash_entries_lost", lost);
    out.put("segments_dropped", after[0].segmentsDropped());
    out.put("degraded_after_delete", after[0].degraded());

    table.print(System.out);
    if (json != null) {
      StatsJson.MAPPER.writeValue(json.toFile(), out);
    }
    return after[0].degraded() ? BenchMain.FAILED : BenchMain.OK;
  }

  private void fill(HybridCache cache) {
    for (int i = 0; i < entries; i++) {
      cache.put(key(i), value(i));
      if ((i + 1) % 20_000 == 0) {
        System.out.printf("filled %,d of %,d%n", i + 1, entries);
      }
    }
    cache.flush();
    cache.setDramCapacity(CacheConfig.MIB); // DRAM keeps little: the reads below are flash reads
  }

  /** Four reader threads; thread 0 sets its interrupt flag before every get. Flash hit ratio per thread. */
  private double[] interruptedReader(HybridCache cache) throws InterruptedException {
    double[] ratios = new double[THREADS];
    CountDownLatch done = new CountDownLatch(THREADS);
    Throwable[] failure = new Throwable[1];
    for (int t = 0; t < THREADS; t++) {
      int me = t;
      new Thread(() -> {
        try {
          long hits = 0;
          ThreadLocalRandom r = ThreadLocalRandom.current();
          for (int n = 0; n < gets; n++) {
            int k = r.nextInt(entries);
            if (me == 0) {
              Thread.currentThread().interrupt();
            }
            byte[] v = cache.get(key(k));
            if (v != null) {
              check(k, v);
              hits++;
            }
          }
          Thread.interrupted();
          ratios[me] = (double) hits / gets;
        } catch (Throwable e) {
          failure[0] = e;
        } finally {
          done.countDown();
        }
      }, "reader-" + t).start();
    }
    done.await();
    if (failure[0] != null) {
      throw new IllegalStateException("a reader failed", failure[0]);
    }
    return ratios;
  }

  /** Opens the cache, reads every key, closes; returns the hits (all from flash after a restart). */
  private long countFlashHits(CacheConfig cfg, CacheStats[] stats) {
    try (HybridCache cache = HybridCache.open(cfg)) {
      long hits = 0;
      for (int k = 0; k < entries; k++) {
        byte[] v = cache.get(key(k));
        if (v != null) {
          check(k, v);
          hits++;
        }
      }
      cache.flush(); // the writer has dropped any damaged segment by now
      if (stats != null) {
        stats[0] = cache.stats();
      }
      return hits;
    }
  }

  private static byte[] key(int i) {
    return ("fault-key-" + i).getBytes(StandardCharsets.US_ASCII);
  }

  private byte[] value(int i) {
    byte[] v = new byte[valueBytes];
    Arrays.fill(v, (byte) (i * 31 + 7));
    byte[] head = Integer.toString(i).getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(head, 0, v, 0, Math.min(head.length, v.length));
    return v;
  }

  private void check(int k, byte[] v) {
    if (!Arrays.equals(value(k), v)) {
      throw new IllegalStateException("wrong value for key " + k);
    }
  }
}
