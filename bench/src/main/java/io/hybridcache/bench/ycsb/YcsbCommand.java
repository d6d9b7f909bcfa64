package io.hybridcache.bench.ycsb;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.BenchDirs;
import io.hybridcache.bench.BenchMain;
import io.hybridcache.bench.ChildJvm;
import io.hybridcache.bench.Sizes;
import io.hybridcache.bench.StatsJson;
import io.hybridcache.bench.TextTable;
import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.api.SmallObjectStats;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * Runs a YCSB core workload against the cache on local files: the LOAD phase, then the RUN phase,
 * each in its own child JVM ({@code site.ycsb.Client} with {@link HybridCacheDB}), so the run
 * phase starts from a warm reopen of what the load phase closed cleanly.
 *
 * <p>Measures: YCSB throughput and per-operation latency percentiles (hdrhistogram), and from the
 * cache stats the run phase writes: DRAM and flash hit ratios, device reads per flash hit,
 * application write amplification, index DRAM per flash entry, DRAM tier + index, and the small-object
 * engine's own figures when it is on. {@code --preload} loads in the run JVM instead of a load JVM; the
 * tiny-record comparison (which uses it) is in src/site/benchmarks.md.
 *
 * <p>Run from the repository root: {@code java -jar bench/target/hybridcache-bench.jar ycsb}
 * (workload B, 100k records of 10 x 100 B, 200k operations, 4 threads, 16 MiB DRAM, 512 MiB
 * flash; about a minute on 2 cores). {@code --json FILE} writes the figures as JSON.
 *
 * <p>The same harness runs the MongoDB bindings ({@link io.hybridcache.bench.mongo.MongoYcsbDB}):
 * {@code --db mongo} goes straight to a MongoDB-wire server, {@code --db mongo-bridge} through the
 * Mongo bridge with this command's cache settings; {@code --mongo-uri} names the server (FerretDB in
 * {@code src/it/mongo-ferretdb.sh}), else a mongo-java-server runs in this JVM for the two phases.
 */
@Command(name = "ycsb", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Runs a YCSB core workload against the cache (load, then run, each in a child JVM).",
        "Prints throughput, latency percentiles and the cache's hit ratios; the data directory is wiped first.",
        "Child status lines are streamed to stderr; each phase's YCSB stdout is kept in DIR/ycsb-<phase>.out."})
public final class YcsbCommand implements Callable<Integer> {
  static final String BINDING = HybridCacheDB.class.getName();
  static final String MONGO_DIRECT = io.hybridcache.bench.mongo.MongoYcsbDB.Direct.class.getName();
  static final String MONGO_BRIDGE = io.hybridcache.bench.mongo.MongoYcsbDB.Bridge.class.getName();

  @Spec
  CommandSpec spec;

  @Option(names = "--workload", paramLabel = "PATH", description = "YCSB workload file (default: ${DEFAULT-VALUE}, relative to the current directory)")
  Path workload = Path.of("src/workloads/workloadb");

  @Option(names = "--records", paramLabel = "N", description = "recordcount: records loaded (default: ${DEFAULT-VALUE})")
  long records = 100_000;

  @Option(names = "--operations", paramLabel = "N", description = "operationcount: operations in the run phase (default: ${DEFAULT-VALUE})")
  long operations = 200_000;

  @Option(names = "--threads", paramLabel = "N", description = "YCSB client threads (default: ${DEFAULT-VALUE})")
  int threads = 4;

  @Option(names = "--dram", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "DRAM tier bytes (default: 16MiB)")
  long dram = 16 * CacheConfig.MIB;

  @Option(names = "--flash", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "flash tier bytes (default: 512MiB)")
  long flash = 512 * CacheConfig.MIB;

  @Option(names = "--segment", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "segment bytes (default: 16MiB)")
  long segment = 16 * CacheConfig.MIB;

  @Option(names = "--write-buffer", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "write buffer bytes (default: the cache's default)")
  Long writeBuffer;

  @Option(names = "--index", paramLabel = "heap|chronicle", converter = IndexConverter.class,
      description = "flash index (default: heap, the compact index, as the library)")
  IndexType index = IndexType.HEAP;

  @Option(names = "--direct-io", negatable = true, defaultValue = "true", fallbackValue = "true",
      description = "use O_DIRECT for the flash tier (default: ${DEFAULT-VALUE})")
  boolean directIo;

  @Option(names = "--codec", paramLabel = "raw|catalog", converter = CodecConverter.class,
      description = "record values: raw (field names in every record) or catalog (schema id + values, names in the schema catalogue) (default: ${DEFAULT-VALUE})")
  String codec = "raw";

  @Option(names = "--dir", paramLabel = "DIR", description = "data directory, wiped before the load phase (default: ${DEFAULT-VALUE})")
  Path dir = Path.of("target/ycsb-data");

  @Option(names = "--verify", description = "YCSB dataintegrity=true: check every value read back (a wrong value fails the run; a missing record is a miss)")
  boolean verify;

  @Option(names = "--preload", description = {
      "no load JVM: the run JVM loads the records itself (one thread, the workload's own inserts) before the run",
      "starts, so the run sees the cache as loaded without a close and reopen (the small-object engine's",
      "comparisons in src/site/benchmarks.md use it for both sides).",
      "The load column then shows the preload; the run's throughput and runtime leave it out"})
  boolean preload;

  @Option(names = "--json", paramLabel = "FILE", description = "also write the figures as JSON to FILE")
  Path json;

  @Option(names = {"-p", "--property"}, paramLabel = "KEY=VALUE",
      description = "extra YCSB property for both phases (repeatable), e.g. -p requestdistribution=uniform")
  Map<String, String> properties = new LinkedHashMap<>();

  @Option(names = "--jvm-arg", paramLabel = "ARG", description = "extra argument for the child JVMs (repeatable), e.g. --jvm-arg=-Xmx2g")
  List<String> jvmArgs = new ArrayList<>();

  @Option(names = "--status-interval", paramLabel = "SECONDS", description = "YCSB status line interval (default: ${DEFAULT-VALUE})")
  int statusInterval = 5;

  @Option(names = "--db", paramLabel = "hybridcache|mongo|mongo-bridge|CLASS",
      description = {"what YCSB runs against (default: hybridcache): the cache alone; mongo = direct to a MongoDB-wire",
          "server; mongo-bridge = the same server through the Mongo bridge (cache in front); or a site.ycsb.DB class",
          "(site.ycsb.BasicDB checks the harness)"})
  String db = "hybridcache";

  @Option(names = "--mongo-uri", paramLabel = "URI",
      description = {"server for --db mongo|mongo-bridge, e.g. mongodb://127.0.0.1:27017/ycsb (its collection usertable",
          "is dropped before the load); default: a mongo-java-server started in this JVM on a loopback port"})
  String mongoUri;

  /** The YCSB DB class --db names. */
  String dbClass() {
    return switch (db) {
      case "hybridcache" -> BINDING;
      case "mongo" -> MONGO_DIRECT;
      case "mongo-bridge" -> MONGO_BRIDGE;
      default -> db;
    };
  }

  /** True if the binding runs a hybrid cache (and writes its stats). */
  boolean usesCache() {
    return dbClass().equals(BINDING) || dbClass().equals(MONGO_BRIDGE);
  }

  boolean usesMongo() {
    return dbClass().equals(MONGO_DIRECT) || dbClass().equals(MONGO_BRIDGE);
  }

  /** The server of a Mongo run, set in call(). */
  private io.hybridcache.bench.mongo.MongoTarget mongo;

  /** One phase's outcome. */
  record Phase(String name, ChildJvm.Result result, YcsbOutput output, CacheStats stats, List<String> problems) {
    boolean ok() {
      return problems.isEmpty();
    }
  }

  @Override
  public Integer call() throws Exception {
    PrintStream err = System.err;
    Path wl = workload.toAbsolutePath().normalize();
    if (!Files.isRegularFile(wl)) {
      throw new ParameterException(spec.commandLine(), "workload file not found: " + wl
          + " (run from the repository root, or pass --workload PATH)");
    }
    if (records <= 0 || operations <= 0 || threads <= 0) {
      throw new ParameterException(spec.commandLine(), "--records, --operations and --threads must be > 0");
    }
    if (preload && !usesCache()) {
      throw new ParameterException(spec.commandLine(), "--preload needs --db hybridcache or mongo-bridge (the binding"
          + " that loads the records), was --db " + db);
    }
    Path data = BenchDirs.prepare(dir);
    Path cacheDir = data.resolve("cache");
    // Fail fast on a bad cache configuration, before starting any JVM.
    try {
      HybridCacheDB.configFrom(cacheProperties(cacheDir));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "bad cache configuration: " + e.getMessage());
    }

    err.printf("ycsb: workload %s, %,d records, %,d operations, %d threads, DRAM %s, flash %s, segment %s, index %s, direct I/O %s, codec %s, data in %s, db %s%n",
        wl, records, operations, threads, Sizes.format(dram), Sizes.format(flash), Sizes.format(segment),
        index.name().toLowerCase(), directIo, codec, data, db);

    Phase load;
    Phase run;
    try {
      if (usesMongo()) {
        mongo = io.hybridcache.bench.mongo.MongoTarget.open(mongoUri);
        mongo.dropCollection("usertable");
        err.println("ycsb: server " + mongo.serverName() + " at " + mongo.uri() + " (collection usertable dropped)");
      }
      if (preload) {
        run = runPhase("run", wl, data, cacheDir, err);
        load = preloadPhase(run, data);
      } else {
        load = runPhase("load", wl, data, cacheDir, err);
        run = load.ok() ? runPhase("run", wl, data, cacheDir, err) : null;
      }
    } finally {
      if (mongo != null) {
        mongo.close();
      }
    }

    ObjectNode out = toJson(wl, load, run);
    printTable(System.out, load, run);
    if (json != null) {
      err.println("ycsb: wrote " + StatsJson.writeFile(json, out));
    }
    boolean ok = load.ok() && run != null && run.ok();
    for (Phase p : run == null ? List.of(load) : List.of(load, run)) {
      for (String problem : p.problems()) {
        err.println("ycsb: " + p.name() + " phase: " + problem);
      }
    }
    return ok ? BenchMain.OK : BenchMain.FAILED;
  }

  /** The load column of a --preload run: the run JVM's [PRELOAD] lines and the stats it wrote as the preload ended. */
  private Phase preloadPhase(Phase run, Path data) throws java.io.IOException {
    List<String> lines = run.result().stdout().stream()
        .filter(l -> l.startsWith("[" + HybridCacheDB.PRELOAD_SECTION + "]"))
        .map(l -> "[OVERALL]" + l.substring(HybridCacheDB.PRELOAD_SECTION.length() + 2))
        .toList();
    YcsbOutput o = YcsbOutput.parse(lines);
    List<String> problems = new ArrayList<>();
    Path statsFile = data.resolve("stats-load.json");
    CacheStats stats = Files.isRegularFile(statsFile) ? StatsJson.read(statsFile) : null;
    if (!o.hasOverall() || stats == null) {
      problems.add("the run JVM printed no [PRELOAD] lines or wrote no " + statsFile + " (see its output)");
    } else if (o.number("OVERALL", "Failed") > 0) {
      problems.add((long) o.number("OVERALL", "Failed") + " preload inserts failed");
    }
    return new Phase("load", run.result(), o, stats, problems);
  }

  /** Runtime of the run's operations: YCSB's [OVERALL] RunTime less the preload, which it includes. */
  static double runMs(YcsbOutput o) {
    double pre = o.number(HybridCacheDB.PRELOAD_SECTION, "RunTime(ms)");
    return Double.isNaN(pre) ? o.runtimeMs() : o.runtimeMs() - pre;
  }

  /** Throughput of the run's operations (YCSB's own unless there was a preload, which its runtime includes). */
  static double runThroughput(YcsbOutput o) {
    if (Double.isNaN(o.number(HybridCacheDB.PRELOAD_SECTION, "RunTime(ms)"))) {
      return o.throughput();
    }
    double ms = runMs(o);
    return ms <= 0 ? Double.NaN : o.totalOperations() * 1000.0 / ms;
  }

  private java.util.Properties cacheProperties(Path cacheDir) {
    java.util.Properties p = new java.util.Properties();
    p.setProperty(HybridCacheDB.DIR, cacheDir.toString());
    p.setProperty(HybridCacheDB.DRAM_BYTES, Long.toString(dram));
    p.setProperty(HybridCacheDB.FLASH_BYTES, Long.toString(flash));
    p.setProperty(HybridCacheDB.SEGMENT_BYTES, Long.toString(segment));
    if (writeBuffer != null) {
      p.setProperty(HybridCacheDB.WRITE_BUFFER_BYTES, Long.toString(writeBuffer));
    }
    p.setProperty(HybridCacheDB.DIRECT_IO, Boolean.toString(directIo));
    p.setProperty(HybridCacheDB.INDEX, index.name().toLowerCase());
    // size the index for the data set (inserts of workloads D and E add a few percent, which both
    // indexes absorb), so "DRAM bytes per flash entry" is measured at the size a user would pick
    p.setProperty(HybridCacheDB.EXPECTED_ENTRIES, Long.toString(records));
    p.setProperty(HybridCacheDB.CODEC, codec);
    properties.forEach((k, v) -> {
      if (k.startsWith(HybridCacheDB.PREFIX)) {
        p.setProperty(k, v);
      }
    });
    return p;
  }

  /** The site.ycsb.Client arguments of one phase. */
  List<String> clientArgs(String phase, Path wl, Path cacheDir, Path statsFile) {
    List<String> a = new ArrayList<>();
    a.add(phase.equals("load") ? "-load" : "-t");
    a.addAll(List.of("-db", dbClass(), "-P", wl.toString(), "-threads", Integer.toString(threads), "-s"));
    Map<String, String> p = new LinkedHashMap<>();
    p.put("recordcount", Long.toString(records));
    p.put("operationcount", Long.toString(operations));
    p.put("measurementtype", "hdrhistogram");
    p.put("hdrhistogram.percentiles", "50,95,99,99.9");
    p.put("status.interval", Integer.toString(statusInterval));
    if (verify) {
      p.put("dataintegrity", "true");
    }
    if (usesCache()) {
      cacheProperties(cacheDir).forEach((k, v) -> p.put((String) k, (String) v));
      p.put(HybridCacheDB.STATS_FILE, statsFile.toString());
      if (preload) {
        p.put(HybridCacheDB.PRELOAD, "true");
        p.put(HybridCacheDB.PRELOAD_STATS_FILE, statsFile.resolveSibling("stats-load.json").toString());
      }
    }
    if (usesMongo()) {
      p.put(io.hybridcache.bench.mongo.MongoYcsbDB.URL, mongo == null ? String.valueOf(mongoUri) : mongo.uri());
    }
    if (!usesCache() && !usesMongo()) {
      p.put("basicdb.verbose", "false");
    }
    properties.forEach(p::putIfAbsent);
    p.forEach((k, v) -> a.addAll(List.of("-p", k + "=" + v)));
    return a;
  }

  private Phase runPhase(String phase, Path wl, Path data, Path cacheDir, PrintStream err) throws Exception {
    Path statsFile = data.resolve("stats-" + phase + ".json");
    Path outFile = data.resolve("ycsb-" + phase + ".out");
    List<String> jvm = new ArrayList<>();
    long heapMiB = Math.max(1024, (2 * dram + 512 * CacheConfig.MIB) / CacheConfig.MIB);
    jvm.add("-Xmx" + heapMiB + "m");
    jvm.addAll(jvmArgs);
    List<String> cmd = ChildJvm.javaCommand(jvm, "site.ycsb.Client", clientArgs(phase, wl, cacheDir, statsFile),
        index == IndexType.CHRONICLE && db.equals("hybridcache"));
    err.println("ycsb: " + phase + " phase: " + ChildJvm.quote(cmd));
    long t0 = System.nanoTime();
    ChildJvm.Result r = ChildJvm.run(cmd, "[" + phase + "] ", err, null, outFile);
    err.printf("ycsb: %s phase finished in %.1f s (exit %d); YCSB output in %s%n",
        phase, (System.nanoTime() - t0) / 1e9, r.exitCode(), outFile);

    YcsbOutput o = YcsbOutput.parse(r.stdout());
    List<String> problems = new ArrayList<>();
    long expected = phase.equals("load") ? records : operations;
    if (r.exitCode() != 0) {
      problems.add("the YCSB JVM exited with " + r.exitCode());
    }
    if (!o.hasOverall()) {
      problems.add("YCSB printed no [OVERALL] measurements (see " + outFile + ")");
    } else if (o.totalOperations() < expected) {
      problems.add("only " + o.totalOperations() + " of " + expected
          + " operations completed: a DB instance probably failed to initialise (see the stderr lines above)");
    }
    long errors = o.returns("ERROR");
    if (errors > 0) {
      problems.add(errors + " operations returned ERROR");
    }
    // dataintegrity: UNEXPECTED_STATE = a read returned wrong bytes (a failure); ERROR = the record
    // was missing, which a cache may legitimately be (the miss ratio reports it).
    long wrong = o.returns("VERIFY", "UNEXPECTED_STATE");
    if (wrong > 0) {
      problems.add(wrong + " reads returned data that failed YCSB's dataintegrity check");
    }
    CacheStats stats = null;
    if (usesCache()) {
      if (Files.isRegularFile(statsFile)) {
        stats = StatsJson.read(statsFile);
      } else if (problems.isEmpty()) {
        problems.add("the binding wrote no cache stats to " + statsFile + " (the cache was not closed cleanly)");
      }
    }
    return new Phase(phase, r, o, stats, problems);
  }

  private ObjectNode toJson(Path wl, Phase load, Phase run) {
    ObjectNode n = StatsJson.MAPPER.createObjectNode();
    n.put("workload", wl.toString());
    n.put("records", records);
    n.put("operations", operations);
    n.put("threads", threads);
    n.put("dram_bytes", dram);
    n.put("flash_bytes", flash);
    n.put("segment_bytes", segment);
    n.put("index", index.name().toLowerCase());
    n.put("direct_io", directIo);
    n.put("codec", usesMongo() ? (usesCache() ? "catalog (bridge)" : "bson (server)") : codec);
    n.put("db", db);
    if (mongo != null) {
      n.put("server", mongo.serverName());
    }
    n.put("preload", preload);
    n.put("ok", load.ok() && run != null && run.ok());
    putNumber(n, "load_throughput_ops", load.output().throughput());
    putNumber(n, "load_runtime_ms", load.output().runtimeMs());
    YcsbOutput o = run == null ? YcsbOutput.parse(List.of()) : run.output();
    putNumber(n, "throughput_ops", runThroughput(o));
    putNumber(n, "runtime_ms", runMs(o));
    putNumber(n, "read_p50_us", o.percentileUs("READ", "50th"));
    putNumber(n, "read_p99_us", o.percentileUs("READ", "99th"));
    for (String op : o.operations()) {
      String k = op.toLowerCase().replace('-', '_');
      putNumber(n, k + "_operations", o.number(op, "Operations"));
      putNumber(n, k + "_p50_us", o.percentileUs(op, "50th"));
      putNumber(n, k + "_p95_us", o.percentileUs(op, "95th"));
      putNumber(n, k + "_p99_us", o.percentileUs(op, "99th"));
      putNumber(n, k + "_p999_us", o.percentileUs(op, "99.9"));
    }
    n.put("read_not_found", o.returns("NOT_FOUND"));
    n.put("errors", o.returns("ERROR") + load.output().returns("ERROR"));
    if (verify) {
      n.put("verified_reads", o.returns("VERIFY", "OK") + o.returns("VERIFY", "UNEXPECTED_STATE"));
      n.put("failed_verifications", o.returns("VERIFY", "UNEXPECTED_STATE"));
      n.put("verified_missing", o.returns("VERIFY", "ERROR"));
    }
    CacheStats s = run == null ? null : run.stats();
    if (s != null) {
      StatsJson.addDerived(n, s);
      n.set("run_cache_stats", StatsJson.toJson(s));
    } else {
      for (String k : List.of("hit_ratio_dram", "hit_ratio_flash", "device_reads_per_flash_hit",
          "app_write_amplification", "dram_bytes_per_flash_entry")) {
        n.putNull(k);
      }
    }
    if (s != null) {
      n.put("miss_ratio", s.gets() == 0 ? 0 : (double) s.misses() / s.gets());
      n.put("not_admitted", notAdmitted(s));
      n.put("dram_tier_plus_index_bytes", dram + s.indexMemoryBytes());
      n.set("small_objects", StatsJson.MAPPER.valueToTree(s.smallObjects()));
    }
    if (load.stats() != null) {
      n.put("load_app_write_amplification", load.stats().appWriteAmplification());
      n.put("load_not_admitted", notAdmitted(load.stats()));
      n.set("load_cache_stats", StatsJson.toJson(load.stats()));
    }
    return n;
  }

  private static void putNumber(ObjectNode n, String key, double v) {
    if (Double.isNaN(v)) {
      n.putNull(key);
    } else if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      n.put(key, (long) v);
    } else {
      n.put(key, v);
    }
  }

  private void printTable(PrintStream out, Phase load, Phase run) {
    YcsbOutput lo = load.output();
    YcsbOutput ro = run == null ? YcsbOutput.parse(List.of()) : run.output();
    TextTable t = new TextTable("figure", "load", "run");
    t.row("throughput (ops/s)", lo.throughput(), runThroughput(ro));
    t.row("runtime (s)", lo.runtimeMs() / 1000, runMs(ro) / 1000);
    List<String> ops = new ArrayList<>(lo.operations());
    for (String op : ro.operations()) {
      if (!ops.contains(op)) {
        ops.add(op);
      }
    }
    for (String op : ops) {
      t.row(op + " operations", lo.number(op, "Operations"), ro.number(op, "Operations"));
      t.row(op + " p50 / p99 (us)", pair(lo, op), pair(ro, op));
    }
    CacheStats ls = load.stats();
    CacheStats rs = run == null ? null : run.stats();
    t.row("hit ratio DRAM", ls == null ? null : ls.hitRatioDram(), rs == null ? null : rs.hitRatioDram());
    t.row("hit ratio flash", ls == null ? null : ls.hitRatioFlash(), rs == null ? null : rs.hitRatioFlash());
    t.row("miss ratio", ls == null ? null : missRatio(ls), rs == null ? null : missRatio(rs));
    t.row("evictions not admitted to flash", ls == null ? null : notAdmitted(ls), rs == null ? null : notAdmitted(rs));
    t.row("evictions that waited for flash room", ls == null ? null : ls.cascadeWaits(),
        rs == null ? null : rs.cascadeWaits());
    t.row("device reads per flash hit", ls == null ? null : ls.deviceReadsPerFlashHit(),
        rs == null ? null : rs.deviceReadsPerFlashHit());
    t.row("app write amplification", ls == null ? null : ls.appWriteAmplification(),
        rs == null ? null : rs.appWriteAmplification());
    t.row("index DRAM bytes per flash entry", ls == null ? null : ls.dramBytesPerFlashEntry(),
        rs == null ? null : rs.dramBytesPerFlashEntry());
    t.row("flash entries", ls == null ? null : ls.flashEntries(), rs == null ? null : rs.flashEntries());
    t.row("DRAM tier + index bytes", ls == null ? null : dram + ls.indexMemoryBytes(),
        rs == null ? null : dram + rs.indexMemoryBytes());
    t.row("bytes admitted to flash", ls == null ? null : ls.bytesAdmitted(), rs == null ? null : rs.bytesAdmitted());
    if ((ls != null && ls.smallObjects().enabled()) || (rs != null && rs.smallObjects().enabled())) {
      smallRows(t, ls == null ? null : ls.smallObjects(), rs == null ? null : rs.smallObjects());
    }
    t.print(out);
    out.flush();
  }

  /** The small-object engine's own figures (CacheStats.smallObjects()), load and run. */
  static void smallRows(TextTable t, SmallObjectStats l, SmallObjectStats r) {
    List<Map.Entry<String, java.util.function.Function<SmallObjectStats, Object>>> rows = List.of(
        Map.entry("small: objects in set pages", SmallObjectStats::entries),
        Map.entry("small: DRAM bytes", SmallObjectStats::dramBytes),
        Map.entry("small: DRAM bytes per object", SmallObjectStats::dramBytesPerEntry),
        Map.entry("small: hits / lookups", s -> s.lookups() == 0 ? Double.NaN : (double) s.hits() / s.lookups()),
        Map.entry("small: log hit share", SmallObjectStats::logHitShare),
        // reads of its lookups (both in CacheStats.deviceReads); a set rewrite's read is not one of them
        Map.entry("small: set-page reads per hit", s -> s.hits() == 0 ? Double.NaN : (double) s.pageReads() / s.hits()),
        Map.entry("small: log-page reads per hit", s -> s.hits() == 0 ? Double.NaN : (double) s.logPageReads() / s.hits()),
        Map.entry("small: Bloom false-positive reads", SmallObjectStats::bloomFalsePositiveReads),
        Map.entry("small: set rewrites", SmallObjectStats::setRewrites),
        Map.entry("small: objects per set rewrite", SmallObjectStats::objectsPerSetRewrite),
        Map.entry("small: log objects dropped", SmallObjectStats::logObjectsDropped),
        Map.entry("small: write amplification", SmallObjectStats::writeAmplification),
        Map.entry("small: faults / resets", s -> s.faults() + " / " + s.resets()));
    for (Map.Entry<String, java.util.function.Function<SmallObjectStats, Object>> e : rows) {
      t.row(e.getKey(), l == null ? null : e.getValue().apply(l), r == null ? null : e.getValue().apply(r));
    }
  }

  private static Double missRatio(CacheStats s) {
    return s.gets() == 0 ? Double.NaN : (double) s.misses() / s.gets();
  }

  /** Evictions from DRAM the flash tier did not take: admission, full queue, too large, degraded. */
  static long notAdmitted(CacheStats s) {
    return s.admissionRejected() + s.queueRejected() + s.tooLargeRejected() + s.degradedRejected();
  }

  private static String pair(YcsbOutput o, String op) {
    double p50 = o.percentileUs(op, "50th");
    double p99 = o.percentileUs(op, "99th");
    if (Double.isNaN(p50) && Double.isNaN(p99)) {
      return "-";
    }
    return TextTable.cell(p50) + " / " + TextTable.cell(p99);
  }

  /** Picocli converter: raw or catalog. */
  public static final class CodecConverter implements picocli.CommandLine.ITypeConverter<String> {
    @Override
    public String convert(String value) {
      return RecordFormat.parse("--codec", value);
    }
  }

  /** Picocli converter: heap or chronicle. */
  public static final class IndexConverter implements picocli.CommandLine.ITypeConverter<IndexType> {
    @Override
    public IndexType convert(String value) {
      return HybridCacheDB.parseIndex(value);
    }
  }
}
