package io.hybridcache.bench.compare;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.BenchDirs;
import io.hybridcache.bench.BenchMain;
import io.hybridcache.bench.compare.stores.OurDramBudget;
import io.hybridcache.bench.Sizes;
import io.hybridcache.bench.StatsJson;
import io.hybridcache.core.api.CacheConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
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
 * cgroup rule (heap + budget + the store's allowance: its calibrated native memory and code + 32 MiB), on a data
 * set {@code --data-factor} times the budget. fio measures the disk in the same run.
 *
 * <p>Writes: a table (stdout), {@code OUT/compare.md} (the tables as Markdown), PNG charts in
 * {@code OUT} (throughput, read p99, hit ratio per workload and store) and, with {@code --json FILE},
 * one record per store and workload.
 *
 * <p>Sections: the core records (~1.1 KB, {@code --workloads}), then each tiny-record workload ({@code
 * --tiny-workloads}: tiny100's 100 B values, tinymix's 50-300 B) on a load of its own record shape, a data
 * set {@code --tiny-data-factor} times the budget. Every store runs each section once; then, for the
 * spread, the leaders of each section ({@link RunSchedule}: ours and the best disk-backed peer of each
 * workload, fixed after the first runs) run again {@code --repetitions - 1} times, alternating their
 * order. A peer that cannot complete is a row saying why; the exit status is FAILED only when ours fails.
 *
 * <p>Run: {@code java -jar bench/target/hybridcache-bench.jar compare --quick} (DRAM 32 MiB, 150k
 * records, 6 s per workload, one run each) or without {@code --quick} (DRAM 64 MiB, 300k records, 60 s
 * per workload after 10 s of warm-up, 3 runs of the leaders); {@code --stores}, {@code --workloads} and
 * {@code --no-tiny} pick a subset.
 */
@Command(name = "compare", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Runs YCSB workloads against hybridcache and the peer libraries with the same DRAM budget",
        "(each store in its own child JVM and memory cgroup), measures the disk with fio in the same run,",
        "and writes a table, Markdown, PNG charts and --json records."})
public final class CompareCommand implements Callable<Integer> {
  /** Encoded bytes of a core-workload record (10 fields of 100 B, names inline) and its key. */
  static final long RECORD_BYTES = 1_100;
  static final List<String> DEFAULT_WORKLOADS = List.of("workloadb", "workloadc", "workloadd", "workloada", "transactional");
  static final List<String> DEFAULT_TINY_WORKLOADS = List.of("tiny100", "tinymix");
  /** A YCSB key ("user" and up to 19 digits) as the binding stores it. */
  static final long KEY_BYTES = 23;
  /** What the record codec adds per field (its name inline and a length). */
  static final long FIELD_OVERHEAD_BYTES = 12;
  /**
   * The highest operation rate any store reaches here, with room (ours: 113-166k ops/s on D): the bound on
   * inserts a timed phase can make, so a preallocating store and our index's charge have room for them.
   */
  static final double OPS_PER_SECOND_BOUND = 250_000;

  @Spec
  CommandSpec spec;

  @Option(names = "--quick", description = "short run: DRAM 32 MiB, 6 s per workload after 2 s warm-up, one run per store, fio 5 s per test")
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

  @Option(names = "--tiny-records", paramLabel = "N", description = "tiny records to load per tiny workload (default: tiny data factor x DRAM / record size)")
  Long tinyRecords;

  @Option(names = "--tiny-data-factor", paramLabel = "X", description = "tiny data set over the DRAM budget, at least 2 (default: ${DEFAULT-VALUE}: at 5x, ours' default index, 16 B per object, would take 59%% of the budget)")
  double tinyDataFactor = 2.5;

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

  @Option(names = "--native-allowance", paramLabel = "SIZE", converter = Sizes.Converter.class, description = "cgroup room beyond"
      + " heap and budget, the same for every store, instead of each store's calibration (default: calibrated per store: its"
      + " measured native memory and mapped code + 32 MiB; 192 MiB where a calibration fails)")
  Long nativeAllowance;

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

  /** One run of one store: its phase records, or why it did not complete, and its memory cgroup's allowance (null: not known). */
  record StoreRun(StoreType store, int repetition, List<ObjectNode> phases, String failure, long peakBytes, long oomKills,
                  NativeAllowance allowance) {
    StoreRun(StoreType store, int repetition, List<ObjectNode> phases, String failure, long peakBytes, long oomKills) {
      this(store, repetition, phases, failure, peakBytes, oomKills, null);
    }
  }

  /** One section of the run: its workloads (files; the first one's record shape is loaded), records, room on disk and entries expected. */
  record Section(String name, List<String> workloads, Map<String, Path> files, long records, long recordBytes, long disk,
                 long expectedEntries) {}

  @Override
  public Integer call() throws Exception {
    PrintStream err = System.err;
    if (replot != null) {
      JsonNode root = StatsJson.MAPPER.readTree(replot.toFile());
      List<CompareReport> reports = new ArrayList<>(List.of(CompareReport.fromJson(root)));
      for (JsonNode section : root.path("sections")) {
        reports.add(CompareReport.fromJson(section));
      }
      Files.createDirectories(out);
      err.println("compare: wrote " + write(reports, out));
      return BenchMain.OK;
    }
    long budget = dram != null ? dram : (quick ? 32 : 64) * CacheConfig.MIB;
    double secs = seconds != null ? seconds : quick ? 6 : 60;
    double warm = warmup != null ? warmup : quick ? 2 : 10;
    int reps = repetitions != null ? repetitions : quick ? 1 : 3;
    validate(budget, secs, warm, reps);
    List<Section> sections = sections(budget, secs + warm);
    long heap = 2 * budget + 256 * CacheConfig.MIB;
    Allowances allowances = new Allowances(memoryLimit.equals("auto"), nativeAllowance);
    long limit = memoryLimit.equals("off") ? -1 : heap + budget + allowances.flat();
    Path work = BenchDirs.prepare(out);
    ObjectNode setup = setup(budget, sections.get(0), secs, warm, reps, heap, limit, allowances);
    err.printf("compare: %d stores x %s; DRAM budget %s, %,d records (~%s, %.1fx the budget), disk room %s, %d threads,"
            + " %.0f s + %.0f s warm-up per workload; tiny sections %s; %d run(s) of the leaders%n", stores.size(), workloads,
        Sizes.format(budget), sections.get(0).records(), Sizes.format(sections.get(0).records() * RECORD_BYTES),
        (double) sections.get(0).records() * RECORD_BYTES / budget, Sizes.format(sections.get(0).disk()), threads, secs, warm,
        sections.stream().skip(1).map(x -> String.format("%s: %,d records", x.name(), x.records())).toList(), reps);

    DiskLimits limits = null;
    if (!noFio) {
      limits = DiskLimits.measure(work.resolve("fio"), threads, quick, !noInstall, err);
      if (limits == null) {
        return BenchMain.ENVIRONMENT;
      }
    }
    StoreRunner runner = new StoreRunner(work, budget, heap, allowances, threads, secs, warm,
        loadSeconds != null ? loadSeconds : quick ? 90 : 900, properties, err);
    List<List<StoreRun>> runs = new ArrayList<>();
    int total = stores.size() * sections.size();
    int i = 0;
    for (Section sec : sections) {
      List<StoreRun> secRuns = new ArrayList<>();
      for (StoreType s : stores) {
        err.printf("compare: [%d/%d] %s, %s: %s%n", ++i, total, s.cliName(), sec.name(), s.description());
        secRuns.add(runner.run(s, 1, sec));
      }
      runs.add(secRuns);
    }
    List<RunSchedule> schedules = new ArrayList<>();
    for (int k = 0; k < sections.size(); k++) {
      schedules.add(RunSchedule.after(report(setup, sections.get(k), limits, runs.get(k))));
    }
    for (int rep = 2; rep <= reps; rep++) {
      for (int k = 0; k < sections.size(); k++) {
        for (StoreType s : schedules.get(k).order(rep)) {
          err.printf("compare: run %d of %d of the leaders, %s: %s%n", rep, reps, sections.get(k).name(), s.cliName());
          runs.get(k).add(runner.run(s, rep, sections.get(k)));
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
      ArrayNode others = root.putArray("sections");
      reports.stream().skip(1).forEach(r -> others.add(r.toJson()));
      err.println("compare: wrote " + StatsJson.writeFile(json, root));
    }
    boolean ok = reports.stream().allMatch(CompareReport::oursCompleted);
    reports.forEach(r -> r.failureLines().forEach(line -> err.println("compare: " + line)));
    return ok ? BenchMain.OK : BenchMain.FAILED;
  }

  private void validate(long budget, double secs, double warm, int reps) {
    if (dataFactor < 4) {
      throw new ParameterException(spec.commandLine(), "--data-factor must be at least 4 (the issue's data set), was " + dataFactor);
    }
    if (tinyDataFactor < 2) {
      throw new ParameterException(spec.commandLine(), "--tiny-data-factor must be at least 2, was " + tinyDataFactor);
    }
    if (threads <= 0 || secs <= 0 || warm < 0) {
      throw new ParameterException(spec.commandLine(), "--threads and --seconds must be > 0, --warmup >= 0");
    }
    if (!memoryLimit.equals("auto") && !memoryLimit.equals("off")) {
      throw new ParameterException(spec.commandLine(), "--memory-limit must be auto or off, was " + memoryLimit);
    }
    if (reps < 1) {
      throw new ParameterException(spec.commandLine(), "--repetitions must be at least 1, was " + reps);
    }
    if (nativeAllowance != null && nativeAllowance <= 0) {
      throw new ParameterException(spec.commandLine(), "--native-allowance must be > 0, was " + nativeAllowance);
    }
  }

  /** The core section and one per tiny workload, each checked: 4x (tiny: 2x) the budget, and ours fits the budget. */
  private List<Section> sections(long budget, double phaseSeconds) {
    long n = records != null ? records : (long) Math.ceil(dataFactor * budget / RECORD_BYTES);
    if (n * RECORD_BYTES < 4 * budget) {
      throw new ParameterException(spec.commandLine(), "--records " + n + " is under 4x the DRAM budget ("
          + (4 * budget / RECORD_BYTES) + " records of ~" + RECORD_BYTES + " B)");
    }
    List<Section> out = new ArrayList<>(List.of(section(CompareReport.CORE, workloads, n, RECORD_BYTES, phaseSeconds)));
    if (!noTiny) {
      for (String w : tinyWorkloads) {
        long bytes = recordBytes(workloadFile(w));
        long nt = tinyRecords != null ? tinyRecords : (long) Math.ceil(tinyDataFactor * budget / bytes);
        if (nt * bytes < 2 * budget) {
          throw new ParameterException(spec.commandLine(), "--tiny-records " + nt + " is under 2x the DRAM budget ("
              + (2 * budget / bytes) + " records of ~" + bytes + " B of " + w + ")");
        }
        checkOverCacheable(w, nt * bytes, budget);
        out.add(section(w, List.of(w), nt, bytes, phaseSeconds));
      }
    }
    for (Section sec : out) {
      long charge = OurDramBudget.heapIndexCharge(sec.expectedEntries()) + OurDramBudget.bufferBytes(
          CacheConfig.builder(Path.of(".")).dramBytes(budget).flashBytes(sec.disk()).build());
      if (stores.stream().anyMatch(StoreType::ours) && budget - charge < OurDramBudget.MIN_DRAM_TIER) {
        throw new ParameterException(spec.commandLine(), String.format("section %s: ours' index (16 B x %,d entries) and"
                + " write buffers take %s of the %s DRAM budget, leaving under %s for its DRAM tier: give more --dram or"
                + " a smaller data factor", sec.name(), sec.expectedEntries(), Sizes.format(charge), Sizes.format(budget),
            Sizes.format(OurDramBudget.MIN_DRAM_TIER)));
      }
    }
    return out;
  }

  /**
   * With calibrated allowances, a store reading through the page cache can cache data in its budget and, at
   * most, the {@link NativeAllowance#MARGIN} beside what it was measured to need: a tiny section's data must
   * be larger than both, or such a store serves it from DRAM and the section measures nothing of its disk.
   */
  private void checkOverCacheable(String workload, long dataBytes, long budget) {
    long cacheable = NativeAllowance.cacheableBytes(budget);
    if (memoryLimit.equals("auto") && nativeAllowance == null && dataBytes <= cacheable) {
      throw new ParameterException(spec.commandLine(), String.format("section %s: its data (%s) is not larger than the"
              + " DRAM budget and the allowance's margin (%s + %s), which a store reading through the page cache can fill:"
              + " give a --tiny-data-factor over %.2f or more --tiny-records", workload, Sizes.format(dataBytes),
          Sizes.format(budget), Sizes.format(NativeAllowance.MARGIN), (double) cacheable / budget));
    }
  }

  private Path workloadFile(String w) {
    Path f = workloadDir.resolve(w).toAbsolutePath().normalize();
    if (!Files.isRegularFile(f)) {
      throw new ParameterException(spec.commandLine(), "workload file not found: " + f + " (run from the repository root or pass --workload-dir)");
    }
    return f;
  }

  /**
   * A section of {@code names}: its records, room on disk (3x the data, at least 512 MiB) and entries
   * expected: the records and the inserts its timed phases can make at {@link #OPS_PER_SECOND_BOUND}.
   */
  private Section section(String name, List<String> names, long records, long recordBytes, double phaseSeconds) {
    Map<String, Path> files = new LinkedHashMap<>();
    long inserts = 0;
    for (String w : names) {
      Path f = workloadFile(w);
      files.put(w, f);
      inserts += Math.round(doubleProperty(f, "insertproportion") * phaseSeconds * OPS_PER_SECOND_BOUND);
    }
    long disk = Math.max(512 * CacheConfig.MIB, roundUpMiB(3 * (records + inserts) * recordBytes));
    return new Section(name, List.copyOf(names), files, records, recordBytes, disk, records + inserts);
  }

  /** Bytes of one record of a workload file as the binding stores it: key + fields x (mean length + overhead). */
  static long recordBytes(Path workload) {
    Properties p = properties(workload);
    long fields = Long.parseLong(p.getProperty("fieldcount", "10").trim());
    double max = Double.parseDouble(p.getProperty("fieldlength", "100").trim());
    double mean = "uniform".equals(p.getProperty("fieldlengthdistribution", "constant").trim())
        ? (Double.parseDouble(p.getProperty("minfieldlength", "1").trim()) + max) / 2 : max;
    return KEY_BYTES + Math.round(fields * (mean + FIELD_OVERHEAD_BYTES));
  }

  private static double doubleProperty(Path workload, String key) {
    return Double.parseDouble(properties(workload).getProperty(key, "0").trim());
  }

  private static Properties properties(Path workload) {
    Properties p = new Properties();
    try (var in = Files.newInputStream(workload)) {
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read workload " + workload, e);
    }
    return p;
  }

  private ObjectNode setup(long budget, Section core, double secs, double warm, int reps, long heap, long limit,
                           Allowances allowances) {
    ObjectNode setup = StatsJson.MAPPER.createObjectNode();
    setup.put("date", Instant.now().toString());
    setup.put("machine", Machine.describe());
    setup.put("commit", Machine.gitCommit());
    setup.put("quick", quick);
    setup.put("dram_budget_bytes", budget);
    setup.put("threads", threads);
    setup.put("seconds", secs);
    setup.put("warmup_seconds", warm);
    setup.put("heap_bytes", heap);
    setup.put("memory_limit_bytes", limit);
    setup.put("repetitions", reps);
    setup.put("allowance_rule", !memoryLimit.equals("auto") ? "none (no memory cgroup)" : allowances.calibrating()
        ? "calibrated per store: its native memory (anonymous + kernel less the heap and the budget's direct buffers) and"
        + " mapped code, measured by a child of the store on " + StoreRunner.CALIBRATION_RECORDS + " records, + "
        + Sizes.format(NativeAllowance.MARGIN) + "; " + Sizes.format(allowances.flat()) + " where a calibration fails"
        : "the same for every store: " + Sizes.format(allowances.flat()) + " (--native-allowance)");
    setup.put("budget_rule", "every store gets the DRAM budget for what it caches, on its own knobs; ours' DRAM tier gets"
        + " the budget less its index (16 B per expected entry, the compact index's bound) and its write buffers, as"
        + " RocksDB's block cache holds its index, filters and memtables; every JVM runs in the same memory cgroup (heap +"
        + " budget + the store's calibrated allowance), which bounds page cache too");
    return setup;
  }

  private static CompareReport report(ObjectNode setup, Section sec, DiskLimits limits, List<StoreRun> runs) {
    ObjectNode s = setup.deepCopy();
    s.put("section", sec.name());
    s.put("records", sec.records());
    s.put("record_bytes", sec.recordBytes());
    s.put("data_bytes_estimate", sec.records() * sec.recordBytes());
    s.put("disk_bytes", sec.disk());
    s.put("expected_entries", sec.expectedEntries());
    s.set("workloads", StatsJson.MAPPER.valueToTree(sec.workloads()));
    return new CompareReport(s, limits, runs, sec.workloads());
  }

  /** Prints every section's tables and writes compare.md and the charts into {@code dir}; returns what it wrote. */
  private static List<Path> write(List<CompareReport> reports, Path dir) throws IOException {
    List<Path> written = new ArrayList<>();
    StringBuilder md = new StringBuilder();
    for (CompareReport r : reports) {
      CompareTables.print(r, System.out);
      System.out.println();
      md.append(CompareTables.markdown(r));
      written.addAll(CompareChart.write(dir, r, r.isTiny() ? "compare-" + r.section() : "compare"));
    }
    Path file = dir.resolve("compare.md");
    Files.writeString(file, md.toString());
    written.add(0, file.toAbsolutePath());
    return written;
  }

  static long roundUpMiB(long bytes) {
    return (bytes + CacheConfig.MIB - 1) / CacheConfig.MIB * CacheConfig.MIB;
  }
}
