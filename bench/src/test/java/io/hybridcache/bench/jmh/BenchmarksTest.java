package io.hybridcache.bench.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.bench.ChildJvm;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Every benchmark of the bench (this package and the engine-internal ones) runs once, in this JVM, with small sizes and no timing worth the
 * name: a benchmark whose setup or checks fail (e.g. flash gets that are not flash hits) fails the test.
 */
class BenchmarksTest {

  @Test
  void everyBenchmarkRunsAndPassesItsOwnChecks() throws Exception {
    Options options = new OptionsBuilder()
        // the engine's internals are benchmarked from its own package (package-private classes)
        .include("io\\.hybridcache\\.(bench\\.jmh|core\\.engine)\\.")
        .forks(0)
        .warmupIterations(0)
        .measurementIterations(1)
        .measurementTime(TimeValue.milliseconds(100))
        // small, but well above the ~900 entries of a 1 MiB DRAM tier: flash gets stay flash hits
        .param("entries", "32768")
        .shouldFailOnError(true)
        .verbosity(VerboseMode.SILENT)
        .build();
    Collection<RunResult> results = new Runner(options).run();

    Set<String> ran = new TreeSet<>();
    for (RunResult r : results) {
      String name = r.getParams().getBenchmark();
      ran.add(name);
      double score = r.getPrimaryResult().getScore();
      assertTrue(score > 0 && Double.isFinite(score), name + " " + r.getParams() + " scored " + score);
    }
    assertEquals(benchmarkMethods(), ran, "benchmarks that ran vs those of the default set (JmhCommand)");
  }

  @Test
  void forkedJvmsGetChronicleFlagsBeforeTheirOwn() throws Exception {
    Options own = new CommandLineOptions("-jvmArgsAppend", "-Dmine=1", "IndexBenchmark");
    Options merged = JmhCommand.withChildJvmFlags(own);
    List<String> expected = new ArrayList<>(ChildJvm.JVM_FLAGS);
    expected.add("-Dmine=1");
    assertEquals(expected, List.copyOf(merged.getJvmArgsAppend().get()));
    assertEquals(List.of("IndexBenchmark"), merged.getIncludes());
  }

  /** Every @Benchmark method of the classes the default set runs, as JMH names them. */
  private static Set<String> benchmarkMethods() {
    Set<String> names = new TreeSet<>();
    Stream.concat(JmhCommand.TIMED.stream(), JmhCommand.SINGLE_SHOT.stream()).forEach(c -> {
      for (Method m : c.getMethods()) {
        if (m.isAnnotationPresent(Benchmark.class)) {
          names.add(c.getName() + "." + m.getName());
        }
      }
    });
    return names;
  }
}
