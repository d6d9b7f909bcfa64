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
 * <p>Two sections: the core records (~1.1 KB, {@code --workloads}) and tiny records ({@code
 * --tiny-workloads}: 100 B and 50-300 B values, a data set of the same {@code --data-factor} in
 * objects of ~{@value #TINY_RECORD_BYTES} B), each with its own load. Every store runs each section
 * once; then, for the spread, the leaders of each section (ours and the best disk-backed peer of each
 * workload) run again {@code --repetitions - 1} times, alternating their order. A peer that cannot
 * complete is a row saying why; the exit status is FAILED only when ours fails.
 *
 * <p>Run: {@code java -jar bench/target/hybridcache-bench.jar compare --quick} (DRAM 32 MiB, 150k
 * records, 6 s per workload, one run each) or without {@code --quick} (DRAM 64 MiB, 300k records, 60 s
 * per workload after 10 s of warm-up, 3 runs of the leaders: about three hours); {@code --stores},
 * {@code --workloads} and {@code --no-tiny} pick a subset.
 */
@Command(name = "compare", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Runs YCSB workloads against hybridcache and the peer libraries with the same DRAM budget",
        "(each store in its own child JVM and memory cgroup), measures the disk with fio in the same run,",
        "and writes a table, Markdown, PNG charts and --json records."})
public final class CompareCommand implements Callable<Integer> {
  /** Encoded bytes of a core-workload record (10 fields of 100 B, names inline) and its key. */
  static final long RECORD_BYTES = 1_100;
  static final List<String> DEFAULT_WORKLOADS = List.of("workloadb", "workloadc", "workloadd", "workloada", "transactional");
  /** Encoded bytes of a tiny record (one 100 B field, its name inline) and its ~23 B key. */
  static final long TINY_RECORD_BYTES = 135;
  static final List<String> DEFAULT_TINY_WORKLOADS = List.of("tiny100", "tinymix");

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

  @Option(names = "--tiny-workloads", split = ",", paramLabel = "NAME", description = "tiny-record workloads, loaded on their own (default: tiny100,tinymix; the first should read uniformly: its hit ratio gives the objects held)")
  List<String> tinyWorkloads = new ArrayList<>(DEFAULT_TINY_WORKLOADS);

  @Option(names = "--no-tiny", description = "skip the tiny-record section")
  boolean noTiny;

  @Option(names = "--tiny-records", paramLabel = "N", description = "tiny records to load (default: data factor x DRAM / 135 B)")
  Long tinyRecords;

  @Option(names = "--repetitions", paramLabel = "N", description = "runs of the leading stores per section, for the spread (default: 3, 1 with --quick)")
  Integer repetitions;

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

  /** One run of one store: its phase records, or why it did not complete. */
  record StoreRun(StoreType store, int repetition, List<ObjectNode> phases, String failure, long peakBytes, long oomKills) {}

  /** One section of the run: its workloads (files), records, room on disk and entries expected. */
  record Section(String name, List<String> workloads, Map<String, Path> files, long records, long recordBytes, long disk,
                 long expectedEntries) {}

  @Override
  public Integer call() throws Exception {
    PrintStream err = System.err;
    if (replot != null) {
      var root = StatsJson.MAPPER.readTree(replot.toFile());
      List<CompareReport> reports = new ArrayList<>(List.of(CompareReport.fromJson(root)));
      if (root.has("tiny")) {
        reports.add(CompareReport.fromJson(root.get("tiny")));
      }
      Files.createDirectories(out);
      err.println("compare: wrote " + write(reports, out));
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
    int reps = repetitions != null ? repetitions : quick ? 1 : 3;
    if (reps < 1) {
      throw new ParameterException(spec.commandLine(), "--repetitions must be at least 1, was " + reps);
    }
    long dataBytes = n * RECORD_BYTES;
    // D inserts about 5% of its operations: room for them in preallocating stores and in our index's charge
    List<Section> sections = new ArrayList<>(List.of(section("core", workloads, n, RECORD_BYTES, n + n / 2)));
    if (!noTiny) {
      long nt = tinyRecords != null ? tinyRecords : (long) Math.ceil(dataFactor * budget / TINY_RECORD_BYTES);
      if (nt * TINY_RECORD_BYTES < 4 * budget) {
        throw new ParameterException(spec.commandLine(), "--tiny-records " + nt + " is under 4x the DRAM budget ("
            + (4 * budget / TINY_RECORD_BYTES) + " records of ~" + TINY_RECORD_BYTES + " B)");
      }
      sections.add(section("tiny", tinyWorkloads, nt, TINY_RECORD_BYTES, nt)); // tiny workloads insert nothing
    }
    long disk = sections.get(0).disk();
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
    setup.put("repetitions", reps);
    setup.put("budget_rule", "every store gets the DRAM budget for its own cache; ours charges its compact index to it at "
        + "16 B per expected entry (the DRAM tier is the rest); RocksDB charges index, filters and memtables to its block "
        + "cache; every JVM runs in the same memory cgroup (heap + budget + allowance)");
    err.printf("compare: %d stores x %s; DRAM budget %s, %,d records (~%s, %.1fx the budget), disk room %s, %d threads, %.0f s + %.0f s warm-up per workload%s, %d run(s) of the leaders%n",
        stores.size(), workloads, Sizes.format(budget), n, Sizes.format(dataBytes), (double) dataBytes / budget,
        Sizes.format(disk), threads, secs, warm, noTiny ? "" : String.format("; tiny records %s: %,d", tinyWorkloads,
            sections.get(sections.size() - 1).records()), reps);

    DiskLimits limits = null;
    if (!noFio) {
      limits = DiskLimits.measure(work.resolve("fio"), threads, quick, !noInstall, err);
      if (limits == null) {
        return BenchMain.ENVIRONMENT;
      }
    }

    List<List<StoreRun>> runs = new ArrayList<>();
    int total = stores.size() * sections.size();
    int i = 0;
    for (Section sec : sections) {
      List<StoreRun> secRuns = new ArrayList<>();
      for (StoreType s : stores) {
        i++;
        err.printf("compare: [%d/%d] %s, %s records: %s%n", i, total, s.cliName(), sec.name(), s.description());
        secRuns.add(runStore(s, 1, sec, work, budget, heap, limit, secs, warm, err));
      }
      runs.add(secRuns);
    }
    for (int rep = 2; rep <= reps; rep++) {
      for (int k = 0; k < sections.size(); k++) {
        Section sec = sections.get(k);
        List<StoreType> leaders = new ArrayList<>(report(setup, sec, limits, runs.get(k)).leaders());
        if (rep % 2 == 0) {
          java.util.Collections.reverse(leaders); // alternate the order: A B, B A, A B
        }
        for (StoreType s : leaders) {
          err.printf("compare: run %d of %d of the leaders, %s records: %s%n", rep, reps, sec.name(), s.cliName());
          runs.get(k).add(runStore(s, rep, sec, work, budget, heap, limit, secs, warm, err));
        }
      }
    }

    List<CompareReport> reports = new ArrayList<>();
    for (int k = 0; k < sections.size(); k++) {
      reports.add(report(setup, sections.get(k), limits, runs.get(k)));
    }
    err.println("compare: wrote " + write(reports, work));
    if (json != null) {
      ObjectNode root = reports.get(0).toJson();
      if (reports.size() > 1) {
        root.set("tiny", reports.get(1).toJson());
      }
      err.println("compare: wrote " + StatsJson.writeFile(json, root));
    }
    boolean ok = reports.stream().allMatch(CompareReport::oursCompleted);
    reports.forEach(r -> r.failureLines().forEach(line -> err.println("compare: " + line)));
    return ok ? BenchMain.OK : BenchMain.FAILED;
  }

  private Section section(String name, List<String> names, long records, long recordBytes, long expected) {
    Map<String, Path> files = new LinkedHashMap<>();
    for (String w : names) {
      Path f = workloadDir.resolve(w).toAbsolutePath().normalize();
      if (!Files.isRegularFile(f)) {
        throw new ParameterException(spec.commandLine(), "workload file not found: " + f + " (run from the repository root or pass --workload-dir)");
      }
      files.put(w, f);
    }
    long disk = Math.max(512 * CacheConfig.MIB, roundUpMiB(3 * records * recordBytes));
    return new Section(name, List.copyOf(names), files, records, recordBytes, disk, expected);
  }

  private static CompareReport report(ObjectNode setup, Section sec, DiskLimits limits, List<StoreRun> runs) {
    ObjectNode s = setup.deepCopy();
    s.put("section", sec.name());
    s.put("records", sec.records());
    s.put("data_bytes_estimate", sec.records() * sec.recordBytes());
    s.put("disk_bytes", sec.disk());
    s.set("workloads", StatsJson.MAPPER.valueToTree(sec.workloads()));
    return new CompareReport(s, limits, runs, sec.workloads());
  }

  /** Prints every section's tables and writes compare.md and the charts into {@code dir}; returns what it wrote. */
  private static List<Path> write(List<CompareReport> reports, Path dir) throws java.io.IOException {
    List<Path> written = new ArrayList<>();
    StringBuilder md = new StringBuilder();
    for (CompareReport r : reports) {
      r.printTable(System.out);
      System.out.println();
      md.append(r.markdown()).append('\n');
      written.addAll(CompareChart.write(dir, r, r.isTiny() ? "compare-tiny" : "compare"));
    }
    Path file = dir.resolve("compare.md");
    Files.writeString(file, md.toString());
    written.add(0, file.toAbsolutePath());
    return written;
  }

  /** The last exception line of a child's stderr (not a stack frame), else its last line. */
  static String cause(List<String> stderrTail) {
    for (int i = stderrTail.size() - 1; i >= 0; i--) {
      String line = stderrTail.get(i).strip();
      if (!line.startsWith("at ") && !line.startsWith("...") && (line.contains("Exception") || line.contains("Error"))) {
        return line;
      }
    }
    return stderrTail.isEmpty() ? "(no output)" : stderrTail.get(stderrTail.size() - 1).strip();
  }

  private static long roundUpMiB(long bytes) {
    return (bytes + CacheConfig.MIB - 1) / CacheConfig.MIB * CacheConfig.MIB;
  }

  private StoreRun runStore(StoreType s, int repetition, Section sec, Path work, long budget, long heap, long limit,
                            double secs, double warm, PrintStream err) throws Exception {
    Path data = work.resolve("data-" + s.cliName());
    try {
      return runStore(s, repetition, sec, data, work, budget, heap, limit, secs, warm, err);
    } finally {
      BenchDirs.deleteTree(data);
    }
  }

  private StoreRun runStore(StoreType s, int repetition, Section sec, Path data, Path work, long budget, long heap,
                            long limit, double secs, double warm, PrintStream err) throws Exception {
    Map<String, Path> files = sec.files();
    long n = sec.records();
    Files.createDirectories(data);
    DropCaches.tryDrop();
    List<String> args = new ArrayList<>(List.of("--store", s.cliName(), "--dir", data.toString(),
        "--dram", Long.toString(budget), "--disk", Long.toString(sec.disk()), "--records", Long.toString(n),
        "--threads", Integer.toString(threads), "--seconds", Double.toString(secs), "--warmup", Double.toString(warm),
        "--load-seconds", Double.toString(loadSeconds != null ? loadSeconds : quick ? 90 : 900),
        "--load-workload", files.values().iterator().next().toString()));
    files.forEach((name, f) -> args.addAll(List.of("--workload", name + "=" + f)));
    args.addAll(List.of("-p", KvStoreDB.EXPECTED_ENTRIES + "=" + sec.expectedEntries()));
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
      }, work.resolve("runner-" + s.cliName() + "-" + sec.name() + "-" + repetition + ".out"));
      long peak = g == null ? -1 : g.peakBytes();
      long ooms = g == null ? 0 : g.oomKills();
      String failure = null;
      if (r.exitCode() == CompareRunner.LOAD_TOO_SLOW && !phases.isEmpty()) {
        ObjectNode load = phases.get(0);
        failure = String.format("too slow: loaded %,d of %,d records in %.0f s (%,.0f ops/s, %,d major page faults, RSS %s); workloads skipped",
            load.get("operations").asLong(), n, load.get("seconds").asDouble(), load.get("throughput_ops").asDouble(),
            load.path("major_faults").asLong(), Sizes.format(load.path("rss_bytes").asLong()));
      } else if (r.exitCode() != 0) {
        failure = "the child JVM exited with " + r.exitCode() + (ooms > 0 ? " (killed by the memory cgroup's OOM killer)" : "")
            + ": " + cause(r.stderrTail());
      } else if (phases.size() != files.size() + 1) {
        failure = "the child JVM reported " + phases.size() + " of " + (files.size() + 1) + " phases";
      }
      return new StoreRun(s, repetition, phases, failure, peak, ooms);
    } finally {
      if (group != null) {
        group.close();
      }
    }
  }
}
