package io.hybridcache.bench.jcache;

import io.hybridcache.bench.BenchDirs;
import io.hybridcache.bench.BenchMain;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code jcache-probe}: runs {@link JCacheProbe} on the four JSR-107 providers and prints the table. */
@Command(name = "jcache-probe",
    description = {"Drives hybridcache's, Ehcache 3's, Caffeine's and Infinispan's JCache providers through the same",
        "probes (store-by-value, listeners, MXBeans, entries beyond the heap budget, warm restart) and prints",
        "what each did. Takes about half a minute."})
public final class JCacheProbeCommand implements Callable<Integer> {
  @Option(names = "--dir", paramLabel = "DIR",
      description = "scratch directory (default: a temporary one, deleted afterwards)")
  Path dir;

  @Override
  public Integer call() throws Exception {
    Path work = dir != null ? BenchDirs.prepare(dir) : Files.createTempDirectory("jcache-probe");
    try {
      List<JCacheProbe.Column> columns = new ArrayList<>();
      for (ProbeSubject s : JCacheProbe.subjects()) {
        columns.add(JCacheProbe.run(s, work.resolve(s.getClass().getSimpleName())));
      }
      JCacheProbe.print(columns, System.out);
      return BenchMain.OK;
    } finally {
      if (dir == null) {
        BenchDirs.deleteTree(work);
      }
    }
  }
}
