package io.hybridcache.bench.placement;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.BenchDirs;
import io.hybridcache.bench.BenchMain;
import io.hybridcache.bench.Sizes;
import io.hybridcache.bench.StatsJson;
import io.hybridcache.bench.TextTable;
import io.hybridcache.bench.ftl.ClosedForm;
import io.hybridcache.bench.ftl.Ftl;
import io.hybridcache.bench.ftl.TraceReplay;
import io.hybridcache.bench.ftl.UniformRandom;
import io.hybridcache.bench.ycsb.HybridCacheDB;
import io.hybridcache.bench.ycsb.YcsbCommand;
import io.hybridcache.core.api.CacheConfig;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Lifetime placement experiment: runs YCSB workloads with updates against the cache with its device
 * write trace on, then replays each trace through the FTL simulator ({@link Ftl}) with one stream and
 * with the streams the static, DSM and FileStream mappers chose, at 80% and 90% device utilization.
 *
 * <p>Workloads (files in src/workloads): A (50% updates), F (read-modify-write), the CaSSanDra paper's
 * fragmentation phase (90% updates, latest distribution, five 75-byte columns) and twotables (a table
 * updated by 90% of its operations beside one updated by 2%, each its own lifetime class; and again
 * as twotables-oneclass with both tables in FRESH, to see what the classes themselves change). Each runs
 * as the {@code ycsb} command does (load and run in two JVMs); the cache discards reclaimed segments
 * (trimReclaimed) so the device sees them die, and records in its trace the stream every mapper chose
 * for every segment, so one run serves all mappers.
 *
 * <p>Device: erase blocks of {@code --block} bytes (default 4 segments: a superblock holds several
 * segments, as on real drives); the cache's footprint is {@code utilization} of the device's user
 * capacity; physical = user * (1 + {@code --over-provisioning}); greedy GC. The command first checks
 * the simulator against the closed form (FIFO, uniform random writes).
 *
 * <p>Measures per workload, mapper and utilization: {@code device_waf} (FTL write amplification over
 * the run phase), {@code app_wa} (the cache's own: device bytes written / bytes admitted, run phase),
 * {@code total_wa} = app_wa * device_waf, and the reduction of device WAF against one stream.
 *
 * <p>Run from the repository root: {@code java -jar bench/target/hybridcache-bench.jar placement
 * --json placement.json --chart src/site/placement-waf.png} (five YCSB runs of 100k records and 1.5M
 * operations, 4 MiB DRAM over 64 MiB flash of 128 KiB segments: about 4 minutes on 2 cores). {@code --trace FILE}
 * replays existing traces instead of running YCSB.
 */
@Command(name = "placement", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Lifetime placement: YCSB workloads with the write trace on, each trace replayed through the FTL",
        "simulator with 1 stream, static, DSM and FileStream streams at 80%% and 90%% device utilization.",
        "Prints mapper, utilization, device_waf, app_wa, total_wa per workload; the data directory is wiped first."})
public final class PlacementCommand implements Callable<Integer> {
  static final List<String> MAPPERS = List.of("single", "static", "dsm", "filestream", "oracle");
  /** Longest wait of an eviction for flash room: no eviction of the load phase is dropped. */
  static final int CASCADE_WAIT_MS = 10_000;

  @Spec
  CommandSpec spec;

  @Option(names = "--workloads", split = ",", paramLabel = "NAME",
      description = {"workload files under src/workloads, or paths; NAME:oneclass runs a multi-table workload",
          "with all tables in FRESH (default: ${DEFAULT-VALUE})"})
  List<String> workloads = new ArrayList<>(List.of("workloada", "workloadf", "fragmentation", "twotables",
      "twotables:oneclass"));

  @Option(names = "--records", paramLabel = "N", description = "records loaded (default: ${DEFAULT-VALUE})")
  long records = 100_000;

  @Option(names = "--operations", paramLabel = "N", description = "operations in each run phase (default: ${DEFAULT-VALUE})")
  long operations = 1_500_000;

  @Option(names = "--threads", paramLabel = "N", description = "YCSB client threads (default: ${DEFAULT-VALUE})")
  int threads = 4;

  @Option(names = "--dram", paramLabel = "SIZE", converter = Sizes.Converter.class, description = "DRAM tier (default: 4MiB)")
  long dram = 4 * CacheConfig.MIB;

  @Option(names = "--flash", paramLabel = "SIZE", converter = Sizes.Converter.class, description = "flash tier (default: 64MiB)")
  long flash = 64 * CacheConfig.MIB;

  @Option(names = "--segment", paramLabel = "SIZE", converter = Sizes.Converter.class, description = "segment (default: 128KiB)")
  long segment = 128 * CacheConfig.KIB;

  @Option(names = "--write-buffer", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "write buffer, the size of one flush (default: 32KiB)")
  long writeBuffer = 32 * CacheConfig.KIB;

  /** Write buffers of all classes together in every run: the library's default until issue 38's change. */
  static final int PLACEMENT_WRITE_BUFFERS_TOTAL = 16;

  @Option(names = "--streams", paramLabel = "N", description = "streams N of the mappers (default: ${DEFAULT-VALUE})")
  int streams = 8;

  @Option(names = "--utilization", split = ",", paramLabel = "U",
      description = "device utilizations, (0, 1) (default: ${DEFAULT-VALUE})")
  List<Double> utilizations = new ArrayList<>(List.of(0.8, 0.9));

  @Option(names = "--block", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "erase block (default: 4 segments)")
  Long block;

  @Option(names = "--sensitivity-blocks", split = ",", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "also replay with these erase blocks at the highest utilization (default: 1 and 8 segments)")
  List<Long> sensitivityBlocks;

  @Option(names = "--over-provisioning", paramLabel = "F",
      description = "hidden spare capacity of the device, a fraction of its user capacity (default: ${DEFAULT-VALUE})")
  double overProvisioning = 0;

  @Option(names = "--victim", paramLabel = "greedy|cost-benefit|fifo", description = "FTL victim selection (default: greedy)")
  String victim = "greedy";

  @Option(names = "--cache-victim", paramLabel = "greedy|cost-benefit|fifo",
      description = "the cache's reclaim victim policy (default: ${DEFAULT-VALUE})")
  String cacheVictim = "greedy";

  @Option(names = "--no-trims", description = "replay ignoring the trace's discards (a device that never sees them)")
  boolean noTrims;

  @Option(names = "--trace", paramLabel = "FILE", description = "replay this trace (repeatable) instead of running YCSB")
  List<Path> traces = new ArrayList<>();

  @Option(names = "--dir", paramLabel = "DIR", description = "data directory, wiped first (default: ${DEFAULT-VALUE})")
  Path dir = Path.of("target/placement-data");

  @Option(names = "--json", paramLabel = "FILE", description = "also write the figures as JSON to FILE")
  Path json;

  @Option(names = "--chart", paramLabel = "FILE", description = "also draw device WAF per workload and mapper (PNG)")
  Path chart;

  /** One replayed figure. */
  record Row(String workload, String mapper, double utilization, long blockBytes, double deviceWaf,
      double deviceWafAll, double appWa, double totalWa, double reduction, int blocks) {}

  @Override
  public Integer call() throws Exception {
    PrintStream err = System.err;
    for (double u : utilizations) {
      if (!(u > 0 && u < 1)) {
        throw new ParameterException(spec.commandLine(), "--utilization must be in (0, 1), was " + u);
      }
    }
    Ftl.Victim v = switch (victim) {
      case "greedy" -> Ftl.Victim.GREEDY;
      case "cost-benefit" -> Ftl.Victim.COST_BENEFIT;
      case "fifo" -> Ftl.Victim.FIFO;
      default -> throw new ParameterException(spec.commandLine(), "--victim must be greedy, cost-benefit or fifo");
    };
    if (segment % TraceReplay.PAGE != 0 || streams < 1 || overProvisioning < 0) {
      throw new ParameterException(spec.commandLine(), "--segment must be a multiple of 4 KiB, --streams >= 1, "
          + "--over-provisioning >= 0");
    }
    for (long b : concat(block == null ? 4 * segment : block, sensitivityBlocks == null ? List.of() : sensitivityBlocks)) {
      if (b % TraceReplay.PAGE != 0 || b / TraceReplay.PAGE < 2) {
        throw new ParameterException(spec.commandLine(), "erase blocks must be multiples of 4 KiB, >= 8 KiB: " + b);
      }
    }

    ObjectNode out = StatsJson.MAPPER.createObjectNode();
    out.set("validation", validate(err));

    Map<String, Path> traceOf = new LinkedHashMap<>();
    Map<String, Double> appWa = new LinkedHashMap<>();
    ObjectNode ycsb = StatsJson.MAPPER.createObjectNode();
    if (traces.isEmpty()) {
      Path data = BenchDirs.prepare(dir);
      for (String w : workloads) {
        boolean oneClass = w.endsWith(":oneclass");
        Path wl = workloadFile(oneClass ? w.substring(0, w.length() - ":oneclass".length()) : w);
        String name = wl.getFileName().toString() + (oneClass ? "-oneclass" : "");
        Path runDir = data.resolve(name);
        Path trace = data.resolve(name + "-trace.csv");
        Path stats = data.resolve(name + "-ycsb.json");
        int rc = runYcsb(wl, runDir, trace, stats, !oneClass, err);
        if (rc != BenchMain.OK) {
          err.println("placement: the YCSB run of " + name + " failed (exit " + rc + ")");
          return BenchMain.FAILED;
        }
        traceOf.put(name, trace);
        JsonNode y = StatsJson.MAPPER.readTree(stats.toFile());
        appWa.put(name, y.path("app_write_amplification").asDouble(Double.NaN));
        ycsb.set(name, y);
      }
    } else {
      for (Path t : traces) {
        String file = t.getFileName().toString();
        // the command's own traces are NAME-trace.csv: name them as the run did
        String name = file.endsWith("-trace.csv") ? file.substring(0, file.length() - "-trace.csv".length()) : t.toString();
        traceOf.put(name, t);
        appWa.put(name, Double.NaN);
      }
    }

    List<Row> rows = new ArrayList<>();
    List<Row> sensitivity = new ArrayList<>();
    double top = utilizations.stream().mapToDouble(Double::doubleValue).max().orElse(0.9);
    long blockBytes = 0;
    for (Map.Entry<String, Path> e : traceOf.entrySet()) {
      long t0 = System.nanoTime();
      TraceReplay replay = TraceReplay.read(e.getValue());
      long seg = replay.slotBytes() > 0 ? replay.slotBytes() : segment;
      blockBytes = block != null ? block : 4 * seg; // a superblock holds several segments
      List<Long> sens = sensitivityBlocks != null ? sensitivityBlocks : List.of(seg, 8 * seg);
      double app = appWa.get(e.getKey());
      for (double u : utilizations) {
        rows.addAll(replayAll(e.getKey(), replay, u, blockBytes, v, app));
      }
      for (long b : sens) {
        sensitivity.addAll(replayAll(e.getKey(), replay, top, b, v, app));
      }
      long footprint = Math.max(1, (long) replay.footprintPages() * TraceReplay.PAGE);
      err.printf(Locale.ROOT, "placement: %s: %s written (%.1f x the footprint of %s), %s trimmed; replayed in %.1f s%n",
          e.getKey(), Sizes.format(replay.writtenBytes()), (double) replay.writtenBytes() / footprint,
          Sizes.format(footprint), Sizes.format(replay.trimmedBytes()), (System.nanoTime() - t0) / 1e9);
    }

    print(System.out, rows, "device WAF per workload and mapper");
    print(System.out, sensitivity, "sensitivity to the erase block size, utilization " + top);
    ObjectNode settings = out.putObject("settings");
    settings.put("records", records).put("operations", operations).put("threads", threads).put("dram_bytes", dram)
        .put("flash_bytes", flash).put("segment_bytes", segment).put("write_buffer_bytes", writeBuffer)
        .put("write_buffers_total", PLACEMENT_WRITE_BUFFERS_TOTAL)
        .put("streams", streams).put("block_bytes", blockBytes).put("over_provisioning", overProvisioning)
        .put("victim", victim).put("trims", !noTrims).put("cache_victim_policy", cacheVictim);
    out.set("results", toJson(rows));
    out.set("ycsb", ycsb);
    out.set("sensitivity", toJson(sensitivity));
    if (json != null) {
      err.println("placement: wrote " + StatsJson.writeFile(json, out));
    }
    if (chart != null) {
      err.println("placement: wrote " + PlacementChart.write(chart, rows, utilizations));
    }
    return BenchMain.OK;
  }

  private List<Row> replayAll(String workload, TraceReplay replay, double u, long blockBytes, Ftl.Victim v,
      double app) {
    List<Row> out = new ArrayList<>();
    double single = Double.NaN;
    for (String m : MAPPERS) {
      if (!m.equals("single") && !m.equals("oracle") && !replay.mappers().contains(m)) {
        continue;
      }
      TraceReplay.Result r = replay.replay(m, new TraceReplay.Device((int) (blockBytes / TraceReplay.PAGE), u,
          overProvisioning, v, !noTrims));
      if (m.equals("single")) {
        single = r.deviceWaf();
      }
      out.add(new Row(workload, m, u, blockBytes, r.deviceWaf(), r.deviceWafAll(), app, app * r.deviceWaf(),
          1 - r.deviceWaf() / single, r.blocks()));
    }
    return out;
  }

  /** The simulator against the closed form before any figure is trusted (FtlTest does the same). */
  private static ObjectNode validate(PrintStream err) {
    ObjectNode n = StatsJson.MAPPER.createObjectNode();
    for (double u : new double[] {0.8, 0.9}) {
      double closed = ClosedForm.fifoWriteAmplification(u);
      double fifo = UniformRandom.writeAmplification(Ftl.Victim.FIFO, u);
      double greedy = UniformRandom.writeAmplification(Ftl.Victim.GREEDY, u);
      err.printf(Locale.ROOT, "placement: simulator check at %.0f%%: closed form %.3f, FIFO %.3f (%+.1f%%), greedy %.3f%n",
          100 * u, closed, fifo, 100 * (fifo / closed - 1), greedy);
      n.putObject(String.format(Locale.ROOT, "u%.2f", u)).put("closed_form", closed).put("fifo", fifo)
          .put("greedy", greedy);
    }
    return n;
  }

  private int runYcsb(Path wl, Path runDir, Path trace, Path stats, boolean tableClasses, PrintStream err)
      throws Exception {
    List<String> a = new ArrayList<>(List.of("--workload", wl.toString(), "--records", Long.toString(records),
        "--operations", Long.toString(operations), "--threads", Integer.toString(threads),
        "--dram", Long.toString(dram), "--flash", Long.toString(flash), "--segment", Long.toString(segment),
        "--write-buffer", Long.toString(writeBuffer), "--index", "heap", "--dir", runDir.toString(),
        "--json", stats.toString(), "--status-interval", "30",
        "-p", HybridCacheDB.WRITE_TRACE + "=" + trace, "-p", HybridCacheDB.TRIM_RECLAIMED + "=true",
        "-p", HybridCacheDB.STREAMS + "=" + streams, "-p", HybridCacheDB.JMX + "=false",
        "-p", HybridCacheDB.VICTIM_POLICY + "=" + cacheVictim,
        // the bound placement.md's figures were measured with (the library's derived default, a sixteenth
        // of the DRAM tier, gives 8 of 32 KiB at 4 MiB): fewer buffers than writing classes would pad pages
        // on steals and mix that into the streams' write amplification
        "-p", HybridCacheDB.WRITE_BUFFERS_TOTAL + "=" + PLACEMENT_WRITE_BUFFERS_TOTAL,
        // room for every eviction of the load phase: if a busy machine dropped a varying share of them
        // (the device falls behind 4 inserting threads), the state the run phase starts from would vary
        "-p", HybridCacheDB.CASCADE_WAIT_MS + "=" + CASCADE_WAIT_MS));
    String tables = tablesOf(wl);
    if (tables != null && tableClasses) {
      a.addAll(List.of("-p", HybridCacheDB.TABLE_CLASSES + "=" + tables));
    }
    err.println("placement: ycsb " + String.join(" ", a));
    return new CommandLine(new YcsbCommand()).execute(a.toArray(new String[0]));
  }

  /** The tables of a multi-table workload file (each its own lifetime class), or null. */
  static String tablesOf(Path wl) throws java.io.IOException {
    Properties p = new Properties();
    try (var r = Files.newBufferedReader(wl)) {
      p.load(r);
    }
    String t = p.getProperty("multitable.tables");
    return t == null || t.isBlank() ? null : t.trim();
  }

  private Path workloadFile(String w) {
    Path p = Path.of(w);
    if (!Files.isRegularFile(p)) {
      p = Path.of("src/workloads").resolve(w);
    }
    if (!Files.isRegularFile(p)) {
      throw new ParameterException(spec.commandLine(), "workload not found: " + w
          + " (a file under src/workloads or a path; run from the repository root)");
    }
    return p.toAbsolutePath().normalize();
  }

  private static ArrayNode toJson(List<Row> rows) {
    ArrayNode a = StatsJson.MAPPER.createArrayNode();
    for (Row r : rows) {
      ObjectNode n = a.addObject();
      n.put("workload", r.workload()).put("mapper", r.mapper()).put("utilization", r.utilization())
          .put("block_bytes", r.blockBytes()).put("blocks", r.blocks());
      putNumber(n, "device_waf", r.deviceWaf());
      putNumber(n, "device_waf_whole_trace", r.deviceWafAll());
      putNumber(n, "app_wa", r.appWa());
      putNumber(n, "total_wa", r.totalWa());
      putNumber(n, "device_waf_reduction_vs_single", r.reduction());
    }
    return a;
  }

  private static void putNumber(ObjectNode n, String k, double v) {
    if (Double.isNaN(v)) {
      n.putNull(k);
    } else {
      n.put(k, v);
    }
  }

  private static void print(PrintStream out, List<Row> rows, String title) {
    out.println();
    out.println("Lifetime placement: " + title);
    TextTable t = new TextTable("workload", "erase block", "mapper", "utilization", "device_waf", "vs 1 stream",
        "app_wa", "total_wa");
    for (Row r : rows) {
      t.row(r.workload(), Sizes.format(r.blockBytes()), r.mapper(), r.utilization(), r.deviceWaf(),
          r.mapper().equals("single") ? "-" : String.format(Locale.ROOT, "%+.1f%%", -100 * r.reduction()),
          r.appWa(), r.totalWa());
    }
    t.print(out);
    out.flush();
  }

  private static List<Long> concat(long first, List<Long> rest) {
    List<Long> l = new ArrayList<>(rest);
    l.add(0, first);
    return l;
  }
}
