package io.hybridcache.bench.jmh;

import io.hybridcache.bench.BenchMain;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * Runs the JMH micro-benchmarks of this jar (package {@code io.hybridcache.bench.jmh}); every argument
 * goes to JMH as on its own command line. Short run of the catalogue benchmarks:
 * {@code java -jar bench/target/hybridcache-bench.jar jmh -f 1 -wi 2 -i 3 -w 1s -r 1s Catalog};
 * {@code jmh -l} lists them, {@code jmh -h} shows JMH's options.
 */
@Command(name = "jmh", description = {"Runs the JMH micro-benchmarks; arguments are JMH's (jmh -h lists them).",
    "e.g. jmh -f 1 -wi 2 -i 3 -w 1s -r 1s Catalog"})
public final class JmhCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Unmatched
  List<String> args = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    CommandLineOptions options;
    try {
      options = new CommandLineOptions(args.toArray(new String[0]));
    } catch (CommandLineOptionException e) {
      throw new ParameterException(spec.commandLine(), "bad JMH arguments: " + e.getMessage());
    }
    if (options.shouldHelp()) {
      options.showHelp();
      return BenchMain.OK;
    }
    Runner runner = new Runner(options);
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
}
