package io.hybridcache.bench.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.bench.ChildJvm;
import io.hybridcache.core.engine.IndexBenchmark;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
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
    // the engine's internals are benchmarked from its own package (package-private classes)
    Set<String> ran = runOnce("io\\.hybridcache\\.(bench\\.jmh|core\\.engine)\\.", "HEAP");
    assertEquals(benchmarkMethods(Stream.of(JmhCommand.TIMED, JmhCommand.SINGLE_SHOT, JmhCommand.EXTRA)
            .flatMap(List::stream).toList()),
        ran, "benchmarks that ran vs those of the default set and the extra ones (JmhCommand)");
  }

  /** The Chronicle index's benchmarks, in the test JVM that has Chronicle's flags. */
  @Test
  @Tag("chronicle")
  void theChronicleIndexBenchmarksRunAndPassTheirChecks() throws Exception {
    Set<String> ran = runOnce("IndexBenchmark", "CHRONICLE");
    assertEquals(benchmarkMethods(List.of(IndexBenchmark.class)), ran);
  }

  /** Runs the benchmarks {@code include} selects once, in this JVM, with {@code index}; returns their names. */
  private static Set<String> runOnce(String include, String index) throws Exception {
    Options options = new OptionsBuilder()
        .include(include)
        .forks(0)
        .warmupIterations(0)
        .measurementIterations(1)
        .measurementTime(TimeValue.milliseconds(100))
        // small, but well above the ~900 entries of a 1 MiB DRAM tier: flash gets stay flash hits
        .param("entries", "32768")
        .param("index", index)
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
    return ran;
  }

  @Test
  void forkedJvmsGetChronicleFlagsBeforeTheirOwnOnlyWhenTheyOpenIt() throws Exception {
    Options own = new CommandLineOptions("-jvmArgsAppend", "-Dmine=1", "IndexBenchmark");
    List<String> expected = new ArrayList<>(ChildJvm.CHRONICLE_FLAGS);
    expected.add("-Dmine=1");
    assertEquals(expected, List.copyOf(JmhCommand.withChildJvmFlags(own).getJvmArgsAppend().get()));
    assertEquals(List.of("IndexBenchmark"), JmhCommand.withChildJvmFlags(own).getIncludes());

    Options heapOnly = new CommandLineOptions("-jvmArgsAppend", "-Dmine=1", "-p", "index=HEAP", "IndexBenchmark");
    assertEquals(List.of("-Dmine=1"), List.copyOf(JmhCommand.withChildJvmFlags(heapOnly).getJvmArgsAppend().get()));
    Options other = new CommandLineOptions("CacheGetBenchmark");
    assertTrue(JmhCommand.withChildJvmFlags(other).getJvmArgsAppend().orElse(List.of()).isEmpty());
    Options jcache = new CommandLineOptions("-f", "1", "-wi", "2", "-i", "3", "JCacheBenchmark");
    assertTrue(JmhCommand.withChildJvmFlags(jcache).getJvmArgsAppend().orElse(List.of()).isEmpty());
    // the default set: only the run of the Chronicle index gets its flags
    List<Boolean> flagged = new ArrayList<>();
    for (List<String> run : JmhCommand.defaultRuns()) {
      flagged.add(JmhCommand.opensChronicle(new CommandLineOptions(run.toArray(new String[0]))));
    }
    assertEquals(List.of(false, true, false), flagged);
  }

  /** Every @Benchmark method of {@code classes}, as JMH names them. */
  private static Set<String> benchmarkMethods(List<Class<?>> classes) {
    Set<String> names = new TreeSet<>();
    for (Class<?> c : classes) {
      for (Method m : c.getMethods()) {
        if (m.isAnnotationPresent(Benchmark.class)) {
          names.add(c.getName() + "." + m.getName());
        }
      }
    }
    return names;
  }
}
