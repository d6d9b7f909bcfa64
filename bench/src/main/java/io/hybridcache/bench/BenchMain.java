package io.hybridcache.bench;

import io.hybridcache.bench.catalog.CatalogCommand;
import io.hybridcache.bench.jmh.JmhCommand;
import io.hybridcache.bench.limits.LimitsCommand;
import io.hybridcache.bench.ycsb.YcsbCommand;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * Command line of the benchmarks: {@code java -jar bench/target/hybridcache-bench.jar <command>}.
 *
 * <ul>
 *   <li>{@code ycsb}: a YCSB core workload (default B, 95% reads) against the cache, load and run
 *       phases in two JVMs; prints throughput, read latency and the cache's hit ratios.
 *   <li>{@code limits}: what the disk can do (fio) next to what the cache gets out of it
 *       (flash-hit reads, insert bandwidth), as ratios.
 *   <li>{@code catalog}: footprint of rows with inline column names vs schema-catalogue encoding.
 *   <li>{@code jmh}: the JMH micro-benchmarks: alone, a short default set of all of them; with
 *       arguments, JMH's command line.
 *   <li>{@code small-design}: an event-count simulation of small-object flash layouts (issue 36; no
 *       device I/O, no timing).
 * </ul>
 *
 * <p>Exit codes: {@value #OK} success, {@value #FAILED} the benchmark ran but failed (a child JVM
 * failed, operations errored, the cache could not be opened), {@value #USAGE} bad command line,
 * {@value #ENVIRONMENT} a required tool is missing (fio).
 */
@Command(name = "hybridcache-bench",
    mixinStandardHelpOptions = true,
    versionProvider = BenchMain.Version.class,
    description = {
        "Benchmarks of hybridcache, a flash tier under a Caffeine DRAM cache.",
        "Run from the repository root (paths such as src/workloads/workloadb are relative to it)."},
    subcommands = {YcsbCommand.class, LimitsCommand.class, CatalogCommand.class, JmhCommand.class,
        io.hybridcache.bench.mongo.MongoCommand.class,
        io.hybridcache.bench.placement.PlacementCommand.class,
        io.hybridcache.bench.cassandra.CassandraCommand.class,
        io.hybridcache.bench.cassandra.RollingRestartCommand.class,
        io.hybridcache.bench.compare.CompareCommand.class,
        io.hybridcache.bench.faults.FaultsCommand.class,
        io.hybridcache.bench.restart.RestartCommand.class,
        io.hybridcache.bench.jcache.JCacheProbeCommand.class,
        io.hybridcache.bench.smalldesign.SmallDesignCommand.class,
        CommandLine.HelpCommand.class},
    footerHeading = "%nExit codes:%n",
    footer = {"  0  success", "  1  the benchmark failed (see the messages above)", "  2  bad command line",
        "  3  a required tool is missing (fio)", "",
        "Examples:",
        "  java -jar bench/target/hybridcache-bench.jar ycsb",
        "  java -jar bench/target/hybridcache-bench.jar ycsb --workload src/workloads/workloada",
        "  java -jar bench/target/hybridcache-bench.jar limits --quick --json limits.json",
        "  java -jar bench/target/hybridcache-bench.jar catalog --json catalog.json",
        "  java -jar bench/target/hybridcache-bench.jar jmh",
        "  java -jar bench/target/hybridcache-bench.jar jcache-probe",
        "  java -jar bench/target/hybridcache-bench.jar small-design --json small-design.json",
        "  java -jar bench/target/hybridcache-bench.jar jmh -f 1 -wi 2 -i 3 -w 1s -r 1s Catalog",
        "  java -jar bench/target/hybridcache-bench.jar help ycsb"})
public final class BenchMain implements Runnable {
  public static final int OK = 0;
  public static final int FAILED = 1;
  public static final int USAGE = 2;
  public static final int ENVIRONMENT = 3;

  @Spec
  CommandSpec spec;

  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** Runs the command line and returns the exit code (no System.exit; for tests). */
  public static int execute(String... args) {
    // Before any Chronicle class loads (FACTS.md): no usage analytics.
    System.setProperty("chronicle.analytics.disable", "true");
    CommandLine cl = commandLine();
    cl.setExecutionExceptionHandler((ex, cmd, parseResult) -> {
      PrintWriter err = cmd.getErr();
      err.println("error: " + describe(ex));
      if (Boolean.getBoolean("hybridcache.bench.stacktrace")) {
        ex.printStackTrace(err);
      } else {
        err.println("(run with -Dhybridcache.bench.stacktrace=true for the stack trace)");
      }
      err.flush();
      return FAILED;
    });
    cl.setExitCodeExceptionMapper(ex -> ex instanceof CommandLine.ParameterException ? USAGE : FAILED);
    return cl.execute(args);
  }

  /** The command line with every subcommand (tests: their usage messages). */
  static CommandLine commandLine() {
    return new CommandLine(new BenchMain());
  }

  /** Message of {@code t} with its causes, e.g. "cannot open: x; caused by UnsupportedOperationException: y". */
  public static String describe(Throwable t) {
    StringBuilder sb = new StringBuilder(String.valueOf(t.getMessage() != null ? t.getMessage() : t.toString()));
    for (Throwable c = t.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      sb.append("; caused by ").append(c);
    }
    return sb.toString();
  }

  @Override
  public void run() {
    // No subcommand: show the usage and fail as a usage error.
    throw new CommandLine.ParameterException(spec.commandLine(),
        "missing command: choose one of " + String.join(", ", spec.subcommands().keySet()));
  }

  /** The version from the jar manifest, or "dev" when run from classes. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = BenchMain.class.getPackage().getImplementationVersion();
      return new String[] {"hybridcache-bench " + (v == null ? "dev" : v),
          "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.home") + ")"};
    }
  }
}
