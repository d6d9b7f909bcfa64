package io.hybridcache.bench.jmh;

import io.hybridcache.bench.BenchMain;
import io.hybridcache.bench.ChildJvm;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.engine.IndexBenchmark;
import io.hybridcache.core.engine.ReclaimBenchmark;
import io.hybridcache.core.engine.WriteBufferBenchmark;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatFactory;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * Runs the JMH micro-benchmarks of this jar (package {@code io.hybridcache.bench.jmh}; each class's
 * javadoc states its workload and run command).
 *
 * <p>Without arguments: the short default set, {@link #defaultRuns()}: every benchmark with all its
 * declared parameters, one fork each, 1 warm-up and 2 measured iterations of 1 s (reclaim: 3 + 10
 * single shots), about 5 minutes on 2 cores; it prints the JMH command lines first and a summary of
 * every result at the end. With arguments: JMH with those arguments, as on its own command line
 * ({@code jmh -l} lists the benchmarks, {@code jmh -h} shows JMH's options), e.g.
 * {@code java -jar bench/target/hybridcache-bench.jar jmh -f 1 -wi 2 -i 3 -w 1s -r 1s IndexBenchmark}.
 *
 * <p>Forked JVMs run as users run, with no module flags, unless the run includes the Chronicle index
 * ({@link IndexBenchmark} without {@code -p index=HEAP}): its forks get {@link ChildJvm#CHRONICLE_FLAGS}
 * ahead of any {@code -jvmArgsAppend} given. The default set therefore runs the Chronicle index apart.
 */
@Command(name = "jmh", description = {
    "Runs the JMH micro-benchmarks.",
    "Without arguments: a short default set of all of them, about 5 minutes (it prints its JMH command lines first).",
    "With arguments: JMH with those arguments (jmh -h lists them, jmh -l the benchmarks),",
    "  e.g. jmh -f 1 -wi 2 -i 3 -w 1s -r 1s IndexBenchmark"})
public final class JmhCommand implements Callable<Integer> {
  /** Benchmarks of the default set that run for a time. */
  static final List<Class<?>> TIMED = List.of(IndexBenchmark.class, WriteBufferBenchmark.class, PutPathBenchmark.class,
      CacheGetBenchmark.class, ChainedBenchmark.class, CatalogBenchmark.class, JCacheBenchmark.class);
  /** Benchmarks of the default set measured by single shots. */
  static final List<Class<?>> SINGLE_SHOT = List.of(ReclaimBenchmark.class);
  /** Benchmarks outside the default set (run by name; BenchmarksTest runs them once too). */
  static final List<Class<?>> EXTRA = List.of(SmallObjectBenchmark.class, JCacheAccessExpiryBenchmark.class);

  @Spec
  CommandSpec spec;

  @Unmatched
  List<String> args = new ArrayList<>();

  /** The default set: JMH argument lists, run one after the other. */
  static List<List<String>> defaultRuns() {
    return List.of(
        run(List.of("-f", "1", "-wi", "1", "-i", "2", "-w", "1s", "-r", "1s", "-foe", "true", "-p", "index=HEAP"), TIMED),
        run(List.of("-f", "1", "-wi", "1", "-i", "2", "-w", "1s", "-r", "1s", "-foe", "true", "-p", "index=CHRONICLE"),
            List.of(IndexBenchmark.class)),
        run(List.of("-f", "1", "-wi", "3", "-i", "10", "-foe", "true"), SINGLE_SHOT));
  }

  private static List<String> run(List<String> options, List<Class<?>> benchmarks) {
    // each simple name as an include regex: "IndexBenchmark" matches io.hybridcache.core.engine.IndexBenchmark.get
    return Stream.concat(options.stream(), benchmarks.stream().map(Class::getSimpleName)).toList();
  }

  @Override
  public Integer call() throws Exception {
    if (args.isEmpty()) {
      return runDefaultSet();
    }
    CommandLineOptions options = parse(args);
    if (options.shouldHelp()) {
      options.showHelp();
      return BenchMain.OK;
    }
    Runner runner = new Runner(withChildJvmFlags(options));
    if (options.shouldList()) {
      runner.list();
      return BenchMain.OK;
    }
    try {
      return runner.run().isEmpty() ? BenchMain.FAILED : BenchMain.OK;
    } catch (RunnerException e) {
      System.err.println("jmh: " + BenchMain.describe(e));
      return BenchMain.FAILED;
    }
  }

  private int runDefaultSet() {
    List<List<String>> runs = defaultRuns();
    System.out.println("jmh: the short default set, about 5 minutes; `jmh <arguments>` runs JMH with your own"
        + " (`jmh -h`). It runs:");
    for (List<String> run : runs) {
      System.out.println("  java -jar bench/target/hybridcache-bench.jar jmh " + ChildJvm.quote(run));
    }
    for (List<String> run : runs) {
      new Runner(withChildJvmFlags(parse(run))).list();
    }
    System.out.println();
    long start = System.nanoTime();
    List<RunResult> results = new ArrayList<>();
    for (List<String> run : runs) {
      try {
        results.addAll(new Runner(withChildJvmFlags(parse(run))).run());
      } catch (RunnerException e) {
        System.err.println("jmh: " + BenchMain.describe(e));
        return BenchMain.FAILED;
      }
    }
    System.out.printf("%njmh: the default set took %.1f minutes; all results:%n", (System.nanoTime() - start) / 60e9);
    ResultFormatFactory.getInstance(ResultFormatType.TEXT, System.out).writeOut(results);
    return BenchMain.OK;
  }

  private CommandLineOptions parse(List<String> jmhArgs) {
    try {
      return new CommandLineOptions(jmhArgs.toArray(new String[0]));
    } catch (CommandLineOptionException e) {
      throw new ParameterException(spec.commandLine(), "bad JMH arguments: " + e.getMessage());
    }
  }

  /**
   * {@code options} with {@link ChildJvm#CHRONICLE_FLAGS} ahead of its own {@code -jvmArgsAppend} if the run
   * opens Chronicle Map ({@link #opensChronicle}); otherwise {@code options} as given.
   */
  static Options withChildJvmFlags(Options options) {
    if (!opensChronicle(options)) {
      return options;
    }
    List<String> append = new ArrayList<>(ChildJvm.CHRONICLE_FLAGS);
    Collection<String> own = options.getJvmArgsAppend().orElse(List.of());
    append.addAll(own);
    return new OptionsBuilder().parent(options).jvmArgsAppend(append.toArray(new String[0])).build();
  }

  /**
   * Whether a run includes {@link IndexBenchmark} (its includes match it, or there are none) with the
   * Chronicle index among its {@code index} values (no {@code -p index=...}, or one that names CHRONICLE).
   */
  static boolean opensChronicle(Options options) {
    String benchmark = IndexBenchmark.class.getName() + ".get";
    List<String> includes = options.getIncludes();
    boolean included = includes.isEmpty()
        || includes.stream().anyMatch(i -> Pattern.compile(i).matcher(benchmark).find());
    Collection<String> index = options.getParameter("index").orElse(null); // JMH's Optional: no map()
    return included && (index == null || index.contains(IndexType.CHRONICLE.name()));
  }
}
