package io.hybridcache.bench.compare;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.BenchDirs;
import io.hybridcache.bench.BenchMain;
import io.hybridcache.bench.ChildJvm;
import io.hybridcache.bench.MemoryCgroup;
import io.hybridcache.bench.Sizes;
import io.hybridcache.bench.StatsJson;
import io.hybridcache.bench.limits.Fio;
import io.hybridcache.core.api.CacheConfig;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Our cache against the peer libraries, side by side, against the disk's own limits: every
 * {@link StoreType} runs the same YCSB workloads (B, C, D, A and the CaSSanDra paper's
 * transactional phase, in that order, after one load) through the same binding ({@link
 * KvStoreDB}) in a child JVM with the same JVM flags, the same DRAM budget and the same memory
 * cgroup limit (heap + budget + a fixed allowance for JVM native memory and page cache), on a data
 * set {@code --data-factor} times the budget. fio measures the disk in the same run.
 *
 * <p>Writes: a table (stdout), {@code OUT/compare.md} (the tables as Markdown), PNG charts in
 * {@code OUT} (throughput, read p99, hit ratio per workload and store) and, with {@code --json FILE},
 * one record per store and workload.
 *
 * <p>Run: {@code java -jar bench/target/hybridcache-bench.jar compare --quick} (about 9 minutes
 * here: DRAM 32 MiB, 150k records, 6 s per workload) or without {@code --quick} (DRAM 64 MiB,
 * 300k records, 60 s per workload after 10 s of warm-up: about an hour); {@code --stores} and
 * {@code --workloads} pick a subset.
 */
@Command(name = "compare", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Runs YCSB workloads against hybridcache and the peer libraries with the same DRAM budget",
        "(each store in its own child JVM and memory cgroup), measures the disk with fio in the same run,",
        "and writes a table, Markdown, PNG charts and --json records."})
public final class CompareCommand implements Callable<Integer> {
  /** Encoded bytes of a core-workload record (10 fields of 100 B, names inline) and its key. */
  static final long RECORD_BYTES = 1_100;
  static final List<String> DEFAULT_WORKLOADS = List.of("workloadb", "workloadc", "workloadd", "workloada", "transactional");

  @Spec
  CommandSpec spec;

  @Option(names = "--quick", description = "short run: DRAM 32 MiB, 6 s per workload after 2 s warm-up, fio 5 s per test (under 10 minutes)")
  boolean quick;

  @Option(names = "--stores", split = ",", paramLabel = "NAME", converter = StoreConverter.class,
      description = "stores to run, in order (default: hybridcache,caffeine,ohc,chronicle-map,ehcache,mapdb,rocksdb,infinispan;"
          + " hybridcache-jcache, this library through its JSR-107 provider, only when named)")
  List<StoreType> stores = new ArrayList<>(StoreType.defaultSet());

  @Option(names = "--workloads", split = ",", paramLabel = "NAME", description = "workload files under --workload-dir, in run order (default: workloadb,workloadc,workloadd,workloada,transactional)")
  List<String> workloads = new ArrayList<>(DEFAULT_WORKLOADS);

  @Option(names = "--workload-dir", paramLabel = "DIR", description = "where the workload files are (default: ${DEFAULT-VALUE})")
  Path workloadDir = Path.of("src/workloads");

  @Option(names = "--dram", paramLabel = "SIZE", converter = Sizes.Converter.class, description = "DRAM budget of every store (default: 64MiB, 32MiB with --quick)")
  Long dram;

  @Option(names = "--data-factor", paramLabel = "X", description = "data set size over the DRAM budget, at least 4 (default: ${DEFAULT-VALUE})")
  double dataFactor = 5;

  @Option(names = "--records", paramLabel = "N", description = "records to load (default: data factor x DRAM / 1100 B)")
  Long records;

  @Option(names = "--seconds", paramLabel = "S", description = "measured seconds per workload (default: 60, 6 with --quick)")
  Double seconds;

  @Option(names = "--warmup", paramLabel = "S", description = "unmeasured seconds before each workload's measurement (default: 10, 2 with --quick)")
  Double warmup;

  @Option(names = "--load-seconds", paramLabel = "S", description = "give up a store whose load takes longer (default: 90, 900 with full runs)")
  Double loadSeconds;

  @Option(names = "--threads", paramLabel = "N", description = "YCSB client threads (default: ${DEFAULT-VALUE})")
  int threads = 4;

  @Option(names = "--memory-limit", paramLabel = "auto|off", description = "run each store in a memory cgroup of heap + DRAM budget + allowance (default: ${DEFAULT-VALUE})")
  String memoryLimit = "auto";

  @Option(names = "--native-allowance", paramLabel = "SIZE", converter = Sizes.Converter.class, description = "cgroup room beyond heap and budget, for JVM native memory and page cache (default: 192MiB)")
  long nativeAllowance = 192 * CacheConfig.MIB;

  @Option(names = "--no-fio", description = "skip the fio limits")
  boolean noFio;

  @Option(names = "--no-install", description = "do not apt-get install fio when it is missing")
  boolean noInstall;

  @Option(names = "--out", paramLabel = "DIR", description = "data, charts and Markdown; wiped first (default: ${DEFAULT-VALUE})")
  Path out = Path.of("target/compare");

  @Option(names = "--json", paramLabel = "FILE", description = "also write the setup, the fio limits and one record per store and workload as JSON")
  Path json;

  @Option(names = "--replot", paramLabel = "FILE", description = "redraw the tables and charts of an earlier run's --json FILE into --out, running nothing")
  Path replot;

  @Option(names = {"-p", "--property"}, paramLabel = "KEY=VALUE", description = "extra YCSB property for every phase (repeatable)")
  Map<String, String> properties = new LinkedHashMap<>();

  /** Store names on the command line. */
  static final class StoreConverter implements picocli.CommandLine.ITypeConverter<StoreType> {
    @Override
    public StoreType convert(String value) {
      return StoreType.parse(value);
    }
  }

  /** One store's outcome: its phase records, or why it failed. */
  record StoreRun(StoreType store, List<ObjectNode> phases, String failure, long peakBytes, long oomKills) {}

  @Override
  public Integer call() throws Exception {
    PrintStream err = System.err;
    if (replot != null) {
      CompareReport report = CompareReport.fromJson(StatsJson.MAPPER.readTree(replot.toFile()));
      Files.createDirectories(out);
      report.printTable(System.out);
      err.println("compare: wrote " + report.writeMarkdown(out.resolve("compare.md")) + " and " + CompareChart.write(out, report));
      return BenchMain.OK;
    }
    long budget = dram != null ? dram : (quick ? 32 : 64) * CacheConfig.MIB;
    double secs = seconds != null ? seconds : quick ? 6 : 60;
    double warm = warmup != null ? warmup : quick ? 2 : 10;
    if (dataFactor < 4) {
      throw new ParameterException(spec.commandLine(), "--data-factor must be at least 4 (the issue's data set), was " + dataFactor);
    }
    long n = records != null ? records : (long) Math.ceil(dataFactor * budget / RECORD_BYTES);
    if (n * RECORD_BYTES < 4 * budget) {
      throw new ParameterException(spec.commandLine(), "--records " + n + " is under 4x the DRAM budget ("
          + (4 * budget / RECORD_BYTES) + " records of ~" + RECORD_BYTES + " B)");
    }
    if (threads <= 0 || secs <= 0 || warm < 0) {
      throw new ParameterException(spec.commandLine(), "--threads and --seconds must be > 0, --warmup >= 0");
    }
    if (!memoryLimit.equals("auto") && !memoryLimit.equals("off")) {
      throw new ParameterException(spec.commandLine(), "--memory-limit must be auto or off, was " + memoryLimit);
    }
    Map<String, Path> files = new LinkedHashMap<>();
    for (String w : workloads) {
      Path f = workloadDir.resolve(w).toAbsolutePath().normalize();
      if (!Files.isRegularFile(f)) {
        throw new ParameterException(spec.commandLine(), "workload file not found: " + f + " (run from the repository root or pass --workload-dir)");
      }
      files.put(w, f);
    }
    long dataBytes = n * RECORD_BYTES;
    long disk = Math.max(512 * CacheConfig.MIB, roundUpMiB(3 * dataBytes));
    long heap = 2 * budget + 256 * CacheConfig.MIB;
    long limit = heap + budget + nativeAllowance;
    Path work = BenchDirs.prepare(out);

    ObjectNode setup = StatsJson.MAPPER.createObjectNode();
    setup.put("date", Instant.now().toString());
    setup.put("machine", Machine.describe());
    setup.put("commit", Machine.gitCommit());
    setup.put("quick", quick);
    setup.put("dram_budget_bytes", budget);
    setup.put("records", n);
    setup.put("data_bytes_estimate", dataBytes);
    setup.put("disk_bytes", disk);
    setup.put("threads", threads);
    setup.put("seconds", secs);
    setup.put("warmup_seconds", warm);
    setup.put("heap_bytes", heap);
    setup.put("memory_limit_bytes", memoryLimit.equals("off") ? -1 : limit);
    setup.set("workloads", StatsJson.MAPPER.valueToTree(workloads));
    err.printf("compare: %d stores x %s; DRAM budget %s, %,d records (~%s, %.1fx the budget), disk room %s, %d threads, %.0f s + %.0f s warm-up per workload%n",
        stores.size(), workloads, Sizes.format(budget), n, Sizes.format(dataBytes), (double) dataBytes / budget,
        Sizes.format(disk), threads, secs, warm);

    DiskLimits limits = null;
    if (!noFio) {
      limits = DiskLimits.measure(work.resolve("fio"), threads, quick, !noInstall, err);
      if (limits == null) {
        return BenchMain.ENVIRONMENT;
      }
    }

    List<StoreRun> runs = new ArrayList<>();
    int i = 0;
    for (StoreType s : stores) {
      i++;
      err.printf("compare: [%d/%d] %s: %s%n", i, stores.size(), s.cliName(), s.description());
      runs.add(runStore(s, work, budget, disk, n, heap, limit, secs, warm, files, err));
      BenchDirs.deleteTree(work.resolve("data-" + s.cliName()));
    }

    CompareReport report = new CompareReport(setup, limits, runs, workloads);
    report.printTable(System.out);
    Path md = report.writeMarkdown(work.resolve("compare.md"));
    List<Path> charts = CompareChart.write(work, report);
    err.println("compare: wrote " + md + " and " + charts);
    if (json != null) {
      err.println("compare: wrote " + StatsJson.writeFile(json, report.toJson()));
    }
    boolean ok = runs.stream().allMatch(r -> r.failure() == null);
    for (StoreRun r : runs) {
      if (r.failure() != null) {
        err.println("compare: " + r.store().cliName() + " failed: " + r.failure());
      }
    }
    return ok ? BenchMain.OK : BenchMain.FAILED;
  }

  private static long roundUpMiB(long bytes) {
    return (bytes + CacheConfig.MIB - 1) / CacheConfig.MIB * CacheConfig.MIB;
  }

  private StoreRun runStore(StoreType s, Path work, long budget, long disk, long n, long heap, long limit,
                            double secs, double warm, Map<String, Path> files, PrintStream err) throws Exception {
    Path data = work.resolve("data-" + s.cliName());
    Files.createDirectories(data);
    DropCaches.tryDrop();
    List<String> args = new ArrayList<>(List.of("--store", s.cliName(), "--dir", data.toString(),
        "--dram", Long.toString(budget), "--disk", Long.toString(disk), "--records", Long.toString(n),
        "--threads", Integer.toString(threads), "--seconds", Double.toString(secs), "--warmup", Double.toString(warm),
        "--load-seconds", Double.toString(loadSeconds != null ? loadSeconds : quick ? 90 : 900),
        "--load-workload", files.values().iterator().next().toString()));
    files.forEach((name, f) -> args.addAll(List.of("--workload", name + "=" + f)));
    properties.forEach((k, v) -> args.addAll(List.of("-p", k + "=" + v)));
    List<String> jvm = List.of("-Xms" + heap / CacheConfig.MIB + "m", "-Xmx" + heap / CacheConfig.MIB + "m",
        "-XX:+AlwaysPreTouch", "-XX:+UseG1GC");
    // glibc's per-thread malloc arenas let off-heap stores (OHC mallocs each entry) grow far past their
    // capacity under churn; Cassandra's launcher caps them the same way. The same for every store.
    List<String> cmd = new ArrayList<>(List.of("env", "MALLOC_ARENA_MAX=4"));
    cmd.addAll(ChildJvm.javaCommand(jvm, CompareRunner.class.getName(), args, s.opensChronicle()));

    MemoryCgroup group = null;
    if (memoryLimit.equals("auto")) {
      MemoryCgroup.Attempt a = MemoryCgroup.create("hybridcache-compare-" + s.cliName(), limit);
      if (a.group() == null) {
        err.println("compare: warning: " + a.whyNot() + "; page cache is not bounded, so stores reading through it get more DRAM than the budget");
      } else {
        group = a.group();
        cmd = group.wrap(cmd);
        err.println("compare: " + s.cliName() + " runs in memory cgroup " + group);
      }
    }
    List<ObjectNode> phases = new ArrayList<>();
    MemoryCgroup g = group;
    ChildJvm.Result r;
    try {
      r = ChildJvm.run(cmd, "  ", err, line -> {
        if (line.startsWith(CompareRunner.RESULT_PREFIX)) {
          try {
            ObjectNode p = (ObjectNode) StatsJson.MAPPER.readTree(line.substring(CompareRunner.RESULT_PREFIX.length()));
            if (g != null) {
              p.put("cgroup_bytes", g.usageBytes());
              p.put("page_cache_bytes", g.pageCacheBytes());
            }
            phases.add(p);
          } catch (Exception e) {
            err.println("compare: unreadable result line: " + line);
          }
        }
      }, work.resolve("runner-" + s.cliName() + ".out"));
      long peak = g == null ? -1 : g.peakBytes();
      long ooms = g == null ? 0 : g.oomKills();
      String failure = null;
      if (r.exitCode() == CompareRunner.LOAD_TOO_SLOW && !phases.isEmpty()) {
        ObjectNode load = phases.get(0);
        failure = String.format("too slow: loaded %,d of %,d records in %.0f s (%,.0f ops/s); workloads skipped",
            load.get("operations").asLong(), n, load.get("seconds").asDouble(), load.get("throughput_ops").asDouble());
      } else if (r.exitCode() != 0) {
        failure = "the child JVM exited with " + r.exitCode() + (ooms > 0 ? " (killed by the memory cgroup's OOM killer)" : "")
            + ": " + String.join(" | ", r.stderrTail().subList(Math.max(0, r.stderrTail().size() - 3), r.stderrTail().size()));
      } else if (phases.size() != files.size() + 1) {
        failure = "the child JVM reported " + phases.size() + " of " + (files.size() + 1) + " phases";
      }
      return new StoreRun(s, phases, failure, peak, ooms);
    } finally {
      if (group != null) {
        group.close();
      }
    }
  }
}
