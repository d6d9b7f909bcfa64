package io.hybridcache.bench.cassandra;

import com.datastax.oss.driver.api.core.CqlSession;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.BenchMain;
import io.hybridcache.bench.ChildJvm;
import io.hybridcache.bench.Sizes;
import io.hybridcache.bench.StatsJson;
import io.hybridcache.bench.TextTable;
import io.hybridcache.bench.ycsb.YcsbOutput;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The CaSSanDra paper's row cache experiment (section VI-A) at this machine's scale: one real
 * Cassandra node (started by {@code src/it/cassandra.sh}), the same data, first with Cassandra's
 * default {@code OHCProvider} and a DRAM budget X, then with hybridcache and the same X plus a flash
 * tier. Phases per provider, all YCSB over {@link CqlDB} in child JVMs with the "latest" request
 * distribution: load; fragmentation (10% reads, 90% updates of one field, a memtable flush after
 * each slice, compaction off, so a partition's columns spread over several SSTables); warm-up (99%
 * reads); transactional (95% reads, 5% updates) for a fixed time, which is what is measured. Both
 * nodes run side by side (OHC on 127.0.0.1, hybridcache on 127.0.0.2) and the measured phase
 * alternates between them in slices ({@code --rounds}), so the load other work puts on this shared
 * machine falls on both alike.
 *
 * <p>Run from the repository root: {@code java -jar bench/target/hybridcache-bench.jar cassandra}
 * (about 8 minutes with the defaults; the first run also builds the node's lib/ from Maven).
 * Prints, and with {@code --json} writes, per provider: {@code provider}, {@code throughput_ops},
 * {@code read_p50_us}, {@code read_p99_us}, {@code row_cache_hit_ratio} (from {@code nodetool info}
 * over the transactional phase).
 */
@Command(name = "cassandra",
    description = {"The CaSSanDra paper's experiment on one real Cassandra 5.0.9 node: OHCProvider with DRAM X",
        "versus hybridcache with the same X plus flash; YCSB load, fragmentation, warm-up, then 95% reads."},
    mixinStandardHelpOptions = true)
public final class CassandraCommand implements Callable<Integer> {
  private static final Pattern ROW_CACHE = Pattern.compile(
      "Row Cache\\s*:\\s*entries (\\d+), size ([^,]+), capacity ([^,]+), (\\d+) hits, (\\d+) requests");

  @Spec
  CommandSpec spec;

  @Option(names = "--records", description = "YCSB records (10 fields x 100 B) (default: ${DEFAULT-VALUE})")
  long records = 60_000;

  @Option(names = "--row-cache", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "DRAM budget X of both providers: row_cache_size (default: 8MiB)")
  long rowCache = 8L << 20;

  @Option(names = "--flash", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "hybridcache's flash tier budget (default: 1GiB)")
  long flash = 1L << 30;

  @Option(names = "--threads", description = "YCSB client threads (default: ${DEFAULT-VALUE})")
  int threads = 16;

  @Option(names = "--fragment-ops", description = "fragmentation operations, 90% updates (default: records / 2)")
  Long fragmentOps;

  @Option(names = "--flushes", description = "memtable flushes during fragmentation (default: ${DEFAULT-VALUE})")
  int flushes = 4;

  @Option(names = "--warmup-ops", description = "warm-up operations, 99% reads (default: records)")
  Long warmupOps;

  @Option(names = "--seconds", description = "length of the measured transactional phase per provider (default: ${DEFAULT-VALUE})")
  int seconds = 60;

  @Option(names = "--rounds", description = "the measured phase alternates between the providers in this many slices each (default: ${DEFAULT-VALUE})")
  int rounds = 3;

  @Option(names = "--heap", description = "Cassandra's heap (default: ${DEFAULT-VALUE})")
  String heap = "1G";

  @Option(names = "--node-memory", paramLabel = "SIZE", description = "memory cgroup limit of each node: heap, off-heap"
      + " and the page cache of its SSTables, so the data set is not all in RAM, as in the paper (default: none)")
  String nodeMemory;

  @Option(names = "--providers", split = ",", description = "providers, in order (default: ohc,hybrid)")
  List<String> providers = List.of("ohc", "hybrid");

  @Option(names = "--script", description = "node script (default: ${DEFAULT-VALUE}, relative to the repository root)")
  Path script = Path.of("src/it/cassandra.sh");

  @Option(names = "--workload", description = "YCSB base workload file (default: ${DEFAULT-VALUE})")
  Path workload = Path.of("src/workloads/workloadb");

  @Option(names = "--json", paramLabel = "FILE", description = "also write the results as JSON")
  Path json;

  /** One provider's measured figures. */
  record Result(String provider, double throughputOps, double readP50Us, double readP99Us, double hitRatio,
                long reads, long readErrors, String rowCacheLine) {}

  @Override
  public Integer call() throws Exception {
    PrintStream err = System.err;
    if (!Files.isRegularFile(script) || !Files.isRegularFile(workload)) {
      throw new ParameterException(spec.commandLine(), "run from the repository root: " + script + " or " + workload
          + " not found");
    }
    for (String p : providers) {
      if (!p.equals("ohc") && !p.equals("hybrid")) {
        throw new ParameterException(spec.commandLine(), "--providers: ohc or hybrid, was " + p);
      }
    }
    if (providers.size() != new java.util.HashSet<>(providers).size() || providers.size() > 2) {
      throw new ParameterException(spec.commandLine(), "--providers: each of ohc and hybrid at most once");
    }
    if (rowCache < (1L << 20) || records <= 0 || threads <= 0 || seconds <= 0 || flushes <= 0 || rounds <= 0) {
      throw new ParameterException(spec.commandLine(),
          "--row-cache >= 1MiB; --records, --threads, --seconds, --flushes, --rounds > 0");
    }
    err.printf(Locale.ROOT, "cassandra: %,d records (~%s of partitions), row cache X = %s, flash %s, %d threads, %d s measured"
            + " per provider in %d alternating slices%n",
        records, Sizes.format(records * 1100), Sizes.format(rowCache), Sizes.format(flash), threads, seconds, rounds);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> node(List.of("stop-all"), null)));
    Map<String, String> address = new LinkedHashMap<>();
    for (String provider : providers) {
      address.put(provider, "127.0.0." + (address.size() + 1));
    }
    try {
      for (String provider : providers) {
        prepare(provider, address.get(provider), err);
      }
      // The measured phase alternates between the nodes in slices, so load from elsewhere on this
      // shared machine falls on both alike.
      Map<String, List<YcsbOutput>> slices = new LinkedHashMap<>();
      Map<String, long[]> before = new LinkedHashMap<>();
      for (String provider : providers) {
        slices.put(provider, new ArrayList<>());
        before.put(provider, rowCacheFigures(name(provider)));
      }
      int slice = Math.max(1, seconds / rounds);
      for (int round = 1; round <= rounds; round++) {
        for (String provider : providers) {
          slices.get(provider).add(ycsb(provider, address.get(provider), "transactional-" + round, false,
              Map.of("readproportion", "0.95", "updateproportion", "0.05"), Integer.MAX_VALUE / 2, slice, err));
        }
      }
      List<Result> results = new ArrayList<>();
      for (String provider : providers) {
        results.add(result(provider, slices.get(provider), before.get(provider), err));
      }
      print(System.out, results);
      if (json != null) {
        StatsJson.MAPPER.writerWithDefaultPrettyPrinter().writeValue(json.toFile(), toJson(results));
        err.println("cassandra: wrote " + json.toAbsolutePath());
      }
      boolean ok = results.stream().allMatch(r -> r.readErrors() == 0 && r.reads() > 0);
      return ok ? BenchMain.OK : BenchMain.FAILED;
    } finally {
      for (String provider : providers) {
        node(List.of("stop", name(provider)), null);
      }
    }
  }

  private static String name(String provider) {
    return "bench-" + provider;
  }

  /** Starts the provider's node and runs load, fragmentation and warm-up against it. */
  private void prepare(String provider, String address, PrintStream err) throws Exception {
    String name = name(provider);
    long mib = rowCache >> 20;
    Map<String, String> env = new LinkedHashMap<>(Map.of("HC_FLASH_SIZE", (flash >> 20) + "MiB",
        "HC_SEGMENT_SIZE", "16MiB", "HC_MEMTABLE_MIB", "128", "HC_CLUSTER", name));
    if (nodeMemory != null) {
      env.put("HC_NODE_MEMORY", nodeMemory);
    }
    err.println("cassandra: === " + provider + " on " + address + " ===");
    node(List.of("start", name, address, provider, Long.toString(mib), heap), env);
    try (CqlSession s = CqlDB.connect(address + ":19042", "datacenter1", null, Duration.ofSeconds(60))) {
      s.execute("CREATE KEYSPACE IF NOT EXISTS ycsb WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
      // compaction off: the fragmentation phase leaves each hot partition spread over several SSTables
      s.execute(CqlDB.createTableCql("ycsb", "usertable", 10,
          "compaction = {'class': 'SizeTieredCompactionStrategy', 'enabled': 'false'}"));
    }
    ycsb(provider, address, "load", true, Map.of(), records, 0, err);
    long frag = fragmentOps != null ? fragmentOps : records / 2;
    for (int i = 0; i < flushes; i++) {
      ycsb(provider, address, "fragment-" + (i + 1), false, Map.of("readproportion", "0.1", "updateproportion", "0.9"),
          frag / flushes, 0, err);
      node(List.of("nodetool", name, "flush", "ycsb", "usertable"), null);
    }
    ycsb(provider, address, "warmup", false, Map.of("readproportion", "0.99", "updateproportion", "0.01"),
        warmupOps != null ? warmupOps : records, 0, err);
  }

  /**
   * One provider's figures over its slices: throughput = all operations / all run time; read p50 and
   * p99 = the median of the slices' values; hit ratio from nodetool's row cache counters.
   */
  private Result result(String provider, List<YcsbOutput> slices, long[] before, PrintStream err) {
    long[] after = rowCacheFigures(name(provider));
    String line = node(List.of("nodetool", name(provider), "info"), null).stream()
        .filter(l -> l.startsWith("Row Cache")).findFirst().orElse("");
    double ops = 0;
    double ms = 0;
    long reads = 0;
    long readErrors = 0;
    List<Double> p50 = new ArrayList<>();
    List<Double> p99 = new ArrayList<>();
    for (YcsbOutput o : slices) {
      ops += o.totalOperations();
      ms += o.runtimeMs();
      reads += o.returns("READ", "OK");
      readErrors += o.returns("READ", "ERROR") + o.returns("READ", "NOT_FOUND");
      p50.add(o.percentileUs("READ", "50th"));
      p99.add(o.percentileUs("READ", "99th"));
    }
    double requests = after[1] - before[1];
    Result r = new Result(provider, ms == 0 ? 0 : ops * 1000 / ms, median(p50), median(p99),
        requests == 0 ? 0 : (after[0] - before[0]) / requests, reads, readErrors, line);
    err.printf(Locale.ROOT, "cassandra: %s: %.0f ops/s, read p50 %.0f us, p99 %.0f us, row cache hit ratio %.3f (%s)%n",
        provider, r.throughputOps(), r.readP50Us(), r.readP99Us(), r.hitRatio(), line.replaceAll("\\s+", " "));
    return r;
  }

  private static double median(List<Double> values) {
    List<Double> v = values.stream().sorted().toList();
    int n = v.size();
    return n == 0 ? Double.NaN : n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
  }

  /** {hits, requests} of the row cache line of nodetool info. */
  private long[] rowCacheFigures(String name) {
    for (String l : node(List.of("nodetool", name, "info"), null)) {
      Matcher m = ROW_CACHE.matcher(l);
      if (m.find()) {
        return new long[] {Long.parseLong(m.group(4)), Long.parseLong(m.group(5))};
      }
    }
    throw new IllegalStateException("nodetool info printed no row cache line");
  }

  /** Runs one YCSB phase in a child JVM against the node; fails on any errored operation. */
  private YcsbOutput ycsb(String provider, String address, String phase, boolean load, Map<String, String> mix,
                          long ops, int maxSeconds, PrintStream err) throws Exception {
    List<String> args = new ArrayList<>(List.of(load ? "-load" : "-t", "-db", CqlDB.class.getName(), "-P",
        workload.toString(), "-threads", Integer.toString(threads), "-s"));
    Map<String, String> p = new LinkedHashMap<>();
    p.put("recordcount", Long.toString(records));
    p.put("operationcount", Long.toString(ops));
    p.put("requestdistribution", "latest");
    p.put("measurementtype", "hdrhistogram");
    p.put("hdrhistogram.percentiles", "50,95,99");
    p.put("status.interval", "10");
    p.put(CqlDB.HOSTS, address + ":19042");
    if (maxSeconds > 0) {
      p.put("maxexecutiontime", Integer.toString(maxSeconds));
    }
    p.putAll(mix);
    p.forEach((k, v) -> args.addAll(List.of("-p", k + "=" + v)));
    List<String> cmd = ChildJvm.javaCommand(List.of("-Xmx512m"), "site.ycsb.Client", args);
    Path out = Path.of("target", "cassandra-it", "ycsb-" + provider + "-" + phase + ".out");
    Files.createDirectories(out.getParent());
    long t0 = System.nanoTime();
    ChildJvm.Result r = ChildJvm.run(cmd, "[" + provider + " " + phase + "] ", err, null, out);
    YcsbOutput o = YcsbOutput.parse(r.stdout());
    err.printf(Locale.ROOT, "cassandra: %s %s: %.0f s, %.0f ops/s%n", provider, phase, (System.nanoTime() - t0) / 1e9,
        o.hasOverall() ? o.throughput() : 0);
    if (r.exitCode() != 0 || !o.hasOverall() || o.returns("ERROR") > 0) {
      throw new IllegalStateException("YCSB " + phase + " against " + provider + " failed (exit " + r.exitCode() + ", "
          + o.returns("ERROR") + " errors); see " + out + " and the node's log under target/cassandra-it/nodes/"
          + name(provider) + (nodeMemory == null ? "" : " (with --node-memory the kernel may have OOM-killed the node:"
          + " see dmesg; leave heap + 512 MiB at least)"));
    }
    return o;
  }

  /** Runs the node script; returns its stdout lines. */
  private List<String> node(List<String> args, Map<String, String> env) {
    List<String> cmd = new ArrayList<>(List.of("bash", script.toString()));
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
    if (env != null) {
      pb.environment().putAll(env);
    }
    try {
      Process p = pb.start();
      p.getOutputStream().close();
      List<String> out = List.of(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split("\n"));
      if (p.waitFor() != 0) {
        throw new IllegalStateException(script + " " + String.join(" ", args) + " failed (exit " + p.exitValue() + ")");
      }
      return out;
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + script + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static void print(PrintStream out, List<Result> results) {
    TextTable t = new TextTable("provider", "throughput (ops/s)", "read p50 (us)", "read p99 (us)", "row cache hit ratio");
    for (Result r : results) {
      t.row(r.provider(), Math.round(r.throughputOps()), Math.round(r.readP50Us()), Math.round(r.readP99Us()),
          String.format(Locale.ROOT, "%.3f", r.hitRatio()));
    }
    t.print(out);
    Result ohc = find(results, "ohc");
    Result hybrid = find(results, "hybrid");
    if (ohc != null && hybrid != null && ohc.throughputOps() > 0) {
      out.printf(Locale.ROOT, "hybrid vs ohc: throughput %+.0f%% (goal +85%%), read p99 %.0f -> %.0f us (goal: lower)%n",
          100 * (hybrid.throughputOps() / ohc.throughputOps() - 1), ohc.readP99Us(), hybrid.readP99Us());
    }
  }

  private static Result find(List<Result> results, String provider) {
    return results.stream().filter(r -> r.provider().equals(provider)).findFirst().orElse(null);
  }

  private ObjectNode toJson(List<Result> results) {
    ObjectNode n = StatsJson.MAPPER.createObjectNode();
    ObjectNode setup = n.putObject("setup");
    setup.put("records", records);
    setup.put("row_cache_bytes", rowCache);
    setup.put("flash_bytes", flash);
    setup.put("threads", threads);
    setup.put("transactional_seconds", seconds);
    setup.put("heap", heap);
    setup.put("node_memory", nodeMemory == null ? "unlimited" : nodeMemory);
    ArrayNode a = n.putArray("results");
    for (Result r : results) {
      ObjectNode o = a.addObject();
      o.put("provider", r.provider());
      o.put("throughput_ops", r.throughputOps());
      o.put("read_p50_us", r.readP50Us());
      o.put("read_p99_us", r.readP99Us());
      o.put("row_cache_hit_ratio", r.hitRatio());
      o.put("nodetool_row_cache", r.rowCacheLine().replaceAll("\\s+", " "));
    }
    Result ohc = find(results, "ohc");
    Result hybrid = find(results, "hybrid");
    if (ohc != null && hybrid != null && ohc.throughputOps() > 0) {
      double gain = hybrid.throughputOps() / ohc.throughputOps() - 1;
      n.put("throughput_gain", gain);
      n.put("goal_met", gain >= 0.85 && hybrid.readP99Us() < ohc.readP99Us());
    }
    return n;
  }
}
