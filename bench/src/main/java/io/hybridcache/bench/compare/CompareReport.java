package io.hybridcache.bench.compare;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.StatsJson;
import io.hybridcache.bench.TextTable;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The figures of one section of a comparison (the core records or the tiny ones), as a text table,
 * Markdown and JSON, with each store's ratio to the fio limits and, per workload, hybridcache over the
 * best disk-backed peer against the goal (at least 1.5x on B, C, D and the transactional phase,
 * at least even on A). A store may have run several times (repetitions): the summary then compares
 * medians and, for the spread, our slowest run against the peer's fastest; the detailed table has a row
 * per run. A peer that did not complete is a row saying why; only ours failing fails the run.
 * Immutable after construction.
 */
final class CompareReport {
  private static final double MIB = 1024.0 * 1024.0;
  /** The goal per workload: hybridcache ops/s over the best disk-backed peer's. */
  static final Map<String, Double> GOALS = Map.of("workloadb", 1.5, "workloadc", 1.5, "workloadd", 1.5, "workloada", 1.0,
      "transactional", 1.5);

  private final ObjectNode setup;
  private final DiskLimits limits;
  private final List<CompareCommand.StoreRun> runs;
  private final List<String> workloads;
  private final List<ObjectNode> records = new ArrayList<>();

  CompareReport(ObjectNode setup, DiskLimits limits, List<CompareCommand.StoreRun> runs, List<String> workloads) {
    this.setup = setup;
    this.limits = limits;
    this.runs = runs;
    this.workloads = workloads;
    for (CompareCommand.StoreRun r : runs) {
      for (ObjectNode p : r.phases()) {
        ObjectNode rec = p.deepCopy();
        rec.put("repetition", r.repetition());
        rec.put("disk_backed", r.store().diskBacked());
        if (limits != null && !p.get("workload").asText().equals("load")) {
          rec.put("ratio_to_fio_randread_iops", p.get("throughput_ops").asDouble() / limits.randReadIopsN());
          // how close the store drives the disk to fio's random-read limit (in 4 KiB reads per second)
          rec.put("disk_read_rate_over_fio",
              p.get("disk_bytes_read").asDouble() / 4096 / p.get("seconds").asDouble() / limits.randReadIopsN());
          if (!p.get("read_p99_us").isNull()) {
            rec.put("read_p99_over_fio_p99", p.get("read_p99_us").asDouble() / limits.randReadP99UsN());
          }
          rec.put("write_mibs_over_fio_seqwrite",
              p.get("disk_bytes_written").asDouble() / MIB / p.get("seconds").asDouble() / limits.seqWriteMiBs());
        }
        records.add(rec);
      }
    }
  }

  List<ObjectNode> records() {
    return records;
  }

  List<String> workloads() {
    return workloads;
  }

  List<String> storeNames() {
    return runs.stream().map(r -> r.store().cliName()).distinct().toList();
  }

  /** The stores that keep data on disk (ours and the disk-backed peers). */
  List<String> diskBackedStoreNames() {
    return runs.stream().filter(r -> r.store().diskBacked()).map(r -> r.store().cliName()).distinct().toList();
  }

  /** True unless a run of ours failed: peers that cannot complete are reported, not fatal. */
  boolean oursCompleted() {
    return runs.stream().noneMatch(r -> r.store().ours() && r.failure() != null);
  }

  /** Every run, in the order they ran. */
  List<CompareCommand.StoreRun> runs() {
    return runs;
  }

  /** The throughput of {@code store} on {@code workload} in each run that measured it, in run order. */
  List<Double> samples(String store, String workload) {
    List<Double> out = new ArrayList<>();
    for (ObjectNode r : records) {
      if (r.get("store").asText().equals(store) && r.get("workload").asText().equals(workload)) {
        out.add(r.get("throughput_ops").asDouble());
      }
    }
    return out;
  }

  /** Median, minimum and maximum of some runs' figures (NaN for none). */
  record Spread(double median, double min, double max, int runs) {
    static Spread of(List<Double> xs) {
      if (xs.isEmpty()) {
        return new Spread(Double.NaN, Double.NaN, Double.NaN, 0);
      }
      List<Double> s = xs.stream().sorted().toList();
      int n = s.size();
      double median = n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
      return new Spread(median, s.get(0), s.get(n - 1), n);
    }

    String text() {
      return runs <= 1 ? String.format(Locale.ROOT, "%,.0f", median)
          : String.format(Locale.ROOT, "%,.0f (%,.0f-%,.0f, %d runs)", median, min, max, runs);
    }
  }

  /** The first record of {@code store} on {@code workload} (its first run), or null. */
  ObjectNode find(String store, String workload) {
    for (ObjectNode r : records) {
      if (r.get("store").asText().equals(store) && r.get("workload").asText().equals(workload)) {
        return r;
      }
    }
    return null;
  }

  /**
   * One summary line per workload: ours and the best disk-backed peer (by median throughput over their
   * runs), the ratio of medians, the ratio at the spread's edge (our slowest run over the peer's
   * fastest: equal to the ratio with one run each) and the goal, met only when both reach it.
   */
  record Summary(String workload, Spread ours, double oursHitRatio, String bestPeer, Spread peer, double peerHitRatio,
                 double ratio, double ratioAtWorst, Double goal) {
    String verdict() {
      if (goal == null || Double.isNaN(ratio)) {
        return "";
      }
      return ratio >= goal && ratioAtWorst >= goal ? "met" : "not met";
    }
  }

  List<Summary> summary() {
    List<Summary> out = new ArrayList<>();
    String ourName = ourStore();
    for (String w : workloads) {
      String best = null;
      Spread bestSpread = Spread.of(List.of());
      for (String name : diskBackedStoreNames()) {
        if (StoreType.parse(name).ours()) {
          continue;
        }
        Spread sp = Spread.of(samples(name, w));
        if (sp.runs() > 0 && (best == null || sp.median() > bestSpread.median())) {
          best = name;
          bestSpread = sp;
        }
      }
      Spread o = ourName == null ? Spread.of(List.of()) : Spread.of(samples(ourName, w));
      out.add(new Summary(w, o, hitRatio(ourName == null ? null : find(ourName, w)), best, bestSpread,
          hitRatio(best == null ? null : find(best, w)), o.median() / bestSpread.median(), o.min() / bestSpread.max(),
          GOALS.get(w)));
    }
    return out;
  }

  /** The store of ours the summary compares: the default one if it ran, else the first of ours that did. */
  String ourStore() {
    List<String> names = storeNames();
    if (names.contains(StoreType.HYBRIDCACHE.cliName())) {
      return StoreType.HYBRIDCACHE.cliName();
    }
    return names.stream().filter(n -> StoreType.parse(n).ours()).findFirst().orElse(null);
  }

  /**
   * The stores worth repeating for the spread: per workload, ours and the best disk-backed peer of the
   * runs so far; their union, ours first.
   */
  List<StoreType> leaders() {
    List<StoreType> out = new ArrayList<>();
    String o = ourStore();
    if (o != null) {
      out.add(StoreType.parse(o));
    }
    for (Summary m : summary()) {
      if (m.bestPeer() != null && !out.contains(StoreType.parse(m.bestPeer()))) {
        out.add(StoreType.parse(m.bestPeer()));
      }
    }
    return out;
  }

  private static double hitRatio(ObjectNode r) {
    Double h = r == null ? null : num(r, "hit_ratio");
    return h == null ? Double.NaN : h;
  }

  void printTable(PrintStream out) {
    if (limits != null) {
      out.printf("disk (fio %s, 4 KiB random reads QD1, direct I/O): %,.0f IOPS p99 %.0f us with 1 job; %,.0f IOPS p99 %.0f us with %d jobs; sequential writes %,.0f MiB/s%n",
          limits.fioVersion(), limits.randReadIops1(), limits.randReadP99Us1(), limits.randReadIopsN(),
          limits.randReadP99UsN(), limits.jobs(), limits.seqWriteMiBs());
    }
    TextTable t = new TextTable(header());
    for (ObjectNode r : records) {
      t.row(row(r));
    }
    t.print(out);
    out.println();
    TextTable s = new TextTable(SUMMARY_HEADER);
    for (Summary m : summary()) {
      s.row(summaryRow(m));
    }
    s.print(out);
    out.println();
    TextTable wa = new TextTable(waHeader());
    waRows().forEach(wa::row);
    wa.print(out);
    if (isTiny()) {
      out.println();
      TextTable o = new TextTable(OBJECTS_HEADER);
      objectsRows().forEach(o::row);
      o.print(out);
    }
    failureLines().forEach(out::println);
  }

  /** True for the tiny-record section (its own table of objects held). */
  boolean isTiny() {
    return "tiny".equals(setup.path("section").asText());
  }

  /** One line per run that did not complete: ours as a failure, a peer as a row that does not fail the run. */
  List<String> failureLines() {
    List<String> out = new ArrayList<>();
    for (CompareCommand.StoreRun r : runs) {
      if (r.failure() != null) {
        out.add(r.store().cliName() + " (run " + r.repetition() + "): " + (r.store().ours() ? "FAILED: "
            : "did not complete (reported; a peer does not fail the run): ") + r.failure());
      }
    }
    return out;
  }

  private String[] waHeader() {
    List<String> h = new ArrayList<>(List.of("write amplification (device bytes written / bytes put), median", "load"));
    h.addAll(workloads);
    return h.toArray(String[]::new);
  }

  /** Per store, the median write amplification of each phase over its runs (null where nothing was put). */
  private List<Object[]> waRows() {
    List<Object[]> rows = new ArrayList<>();
    List<String> phases = new ArrayList<>(List.of("load"));
    phases.addAll(workloads);
    for (String store : storeNames()) {
      Object[] row = new Object[phases.size() + 1];
      row[0] = store;
      for (int i = 0; i < phases.size(); i++) {
        List<Double> xs = new ArrayList<>();
        for (ObjectNode r : records) {
          Double v = num(r, "write_amplification");
          if (r.get("store").asText().equals(store) && r.get("workload").asText().equals(phases.get(i)) && v != null) {
            xs.add(v);
          }
        }
        row[i + 1] = xs.isEmpty() ? null : Spread.of(xs).median();
      }
      rows.add(row);
    }
    return rows;
  }

  private static final String[] OBJECTS_HEADER = {"store (tiny records)", "objects held (hit ratio x records)",
      "budget B per object held", "miss ratio", "ops/s (median)", "RSS MiB", "more held and fewer misses than every disk-backed peer"};

  /**
   * The tiny-record table, from the first workload (uniform reads over every record, so the hit ratio
   * times the records is the objects a store holds): objects held, the DRAM budget per object held (the
   * same budget for every store), misses and throughput.
   */
  private List<Object[]> objectsRows() {
    String w = workloads.get(0);
    long recordCount = setup.path("records").asLong();
    double budget = setup.path("dram_budget_bytes").asDouble();
    double bestPeerHeld = 0;
    for (String store : diskBackedStoreNames()) {
      if (!StoreType.parse(store).ours()) {
        bestPeerHeld = Math.max(bestPeerHeld, hitRatio(find(store, w)) * recordCount);
      }
    }
    List<Object[]> rows = new ArrayList<>();
    for (String store : storeNames()) {
      ObjectNode r = find(store, w);
      double hit = hitRatio(r);
      double held = hit * recordCount;
      String verdict = StoreType.parse(store).ours() && !Double.isNaN(held) ? (held > bestPeerHeld ? "yes" : "no") : "";
      rows.add(new Object[] {store, Double.isNaN(held) ? null : held, Double.isNaN(held) || held == 0 ? null : budget / held,
          Double.isNaN(hit) ? null : 1 - hit, Spread.of(samples(store, w)).median(), r == null ? null : mib(r, "rss_bytes"),
          verdict});
    }
    return rows;
  }

  private static final String[] SUMMARY_HEADER = {"workload", "hybridcache ops/s (median, min-max)", "its hit ratio",
      "best disk-backed peer", "its ops/s (median, min-max)", "its hit ratio", "ratio of medians",
      "ratio, our min / its max", "goal", ""};

  private static Object[] summaryRow(Summary m) {
    return new Object[] {m.workload(), m.ours().text(), m.oursHitRatio(), m.bestPeer(), m.peer().text(), m.peerHitRatio(),
        m.ratio(), m.ratioAtWorst(), m.goal() == null ? null : "≥ " + m.goal(), m.verdict()};
  }

  private static String[] header() {
    return new String[] {"store", "run", "workload", "ops/s", "read p50 us", "read p99 us", "read p99.9 us", "hit ratio",
        "disk B read/op", "disk B written/op", "write ampl.", "major faults", "RSS MiB", "page cache MiB",
        "disk reads / fio", "ops/s / fio IOPS"};
  }

  private static Object[] row(ObjectNode r) {
    return new Object[] {r.get("store").asText(), r.path("repetition").asInt(1), r.get("workload").asText(),
        r.get("throughput_ops").asDouble(), num(r, "read_p50_us"), num(r, "read_p99_us"), num(r, "read_p999_us"),
        num(r, "hit_ratio"), num(r, "disk_bytes_read_per_op"), num(r, "disk_bytes_written_per_op"),
        num(r, "write_amplification"), num(r, "major_faults"), mib(r, "rss_bytes"), mib(r, "page_cache_bytes"),
        num(r, "disk_read_rate_over_fio"), num(r, "ratio_to_fio_randread_iops")};
  }

  private static Double num(JsonNode r, String key) {
    JsonNode v = r.get(key);
    return v == null || v.isNull() ? null : v.asDouble();
  }

  private static Double mib(JsonNode r, String key) {
    Double v = num(r, key);
    return v == null || v < 0 ? null : v / MIB;
  }

  /** The setup, limits, results and summary as Markdown. */
  Path writeMarkdown(Path file) throws IOException {
    Files.writeString(file, markdown());
    return file.toAbsolutePath();
  }

  /** The setup, limits, results and summary as Markdown text. */
  String markdown() {
    StringBuilder b = new StringBuilder();
    if (isTiny()) {
      b.append("Tiny records (").append(String.join(", ", workloads)).append(").\n\n");
    }
    b.append("Run ").append(setup.get("date").asText()).append(" on ").append(setup.get("machine").asText())
        .append(", commit `").append(setup.get("commit").asText()).append("`.\n\n");
    b.append(String.format(Locale.ROOT, "DRAM budget %.0f MiB per store, %,d records (~%.0f MiB, %.1fx the budget), %d client threads, %.0f s measured after %.0f s warm-up per workload, memory cgroup %s.%n%n",
        setup.get("dram_budget_bytes").asDouble() / MIB, setup.get("records").asLong(),
        setup.get("data_bytes_estimate").asDouble() / MIB,
        setup.get("data_bytes_estimate").asDouble() / setup.get("dram_budget_bytes").asDouble(),
        setup.get("threads").asInt(), setup.get("seconds").asDouble(), setup.get("warmup_seconds").asDouble(),
        setup.get("memory_limit_bytes").asLong() < 0 ? "off"
            : String.format(Locale.ROOT, "%.0f MiB (heap %.0f MiB pre-touched)", setup.get("memory_limit_bytes").asDouble() / MIB,
                setup.get("heap_bytes").asDouble() / MIB)));
    if (limits != null) {
      b.append(String.format(Locale.ROOT, "Disk (fio %s, same directory, just before): 4 KiB random reads QD1 %,.0f IOPS (p99 %.0f us) with 1 job, %,.0f IOPS (p99 %.0f us) with %d jobs; 1 MiB sequential writes %,.0f MiB/s.%n%n",
          limits.fioVersion(), limits.randReadIops1(), limits.randReadP99Us1(), limits.randReadIopsN(), limits.randReadP99UsN(),
          limits.jobs(), limits.seqWriteMiBs()));
    }
    table(b, header(), records.stream().map(CompareReport::row).toList());
    b.append('\n');
    table(b, SUMMARY_HEADER, summary().stream().map(CompareReport::summaryRow).toList());
    b.append('\n');
    table(b, waHeader(), waRows());
    if (isTiny()) {
      b.append('\n');
      table(b, OBJECTS_HEADER, objectsRows());
    }
    for (String line : failureLines()) {
      b.append("\n").append(line).append('\n');
    }
    return b.toString();
  }

  private static void table(StringBuilder b, String[] header, List<Object[]> rows) {
    b.append('|').append(String.join("|", header)).append("|\n|").append("---|".repeat(header.length)).append('\n');
    for (Object[] row : rows) {
      b.append('|');
      for (Object c : row) {
        b.append(TextTable.cell(c)).append('|');
      }
      b.append('\n');
    }
  }

  /** The report of an earlier run from what {@link #toJson} wrote. */
  static CompareReport fromJson(JsonNode root) throws IOException {
    DiskLimits limits = root.get("limits").isNull() ? null : StatsJson.MAPPER.treeToValue(root.get("limits"), DiskLimits.class);
    List<CompareCommand.StoreRun> runs = new ArrayList<>();
    for (JsonNode s : root.get("runs")) {
      String name = s.get("store").asText();
      int repetition = s.get("repetition").asInt();
      List<ObjectNode> phases = new ArrayList<>();
      for (JsonNode r : root.get("records")) {
        if (r.get("store").asText().equals(name) && r.path("repetition").asInt(1) == repetition) {
          phases.add((ObjectNode) r);
        }
      }
      runs.add(new CompareCommand.StoreRun(StoreType.parse(name), repetition, phases,
          s.get("failure").isNull() ? null : s.get("failure").asText(), s.get("cgroup_peak_bytes").asLong(),
          s.get("oom_kills").asLong()));
    }
    List<String> workloads = new ArrayList<>();
    root.get("setup").get("workloads").forEach(w -> workloads.add(w.asText()));
    return new CompareReport((ObjectNode) root.get("setup"), limits, runs, workloads);
  }

  /** {@code {setup, limits, records: [...], summary: [...], runs: [...]}}. */
  ObjectNode toJson() {
    ObjectNode n = StatsJson.MAPPER.createObjectNode();
    n.set("setup", setup);
    n.set("limits", limits == null ? StatsJson.MAPPER.nullNode() : StatsJson.MAPPER.valueToTree(limits));
    ArrayNode a = n.putArray("records");
    records.forEach(a::add);
    n.set("summary", StatsJson.MAPPER.valueToTree(summary()));
    ArrayNode rs = n.putArray("runs");
    for (CompareCommand.StoreRun r : runs) {
      ObjectNode s = rs.addObject();
      s.put("store", r.store().cliName());
      s.put("repetition", r.repetition());
      s.put("description", r.store().description());
      s.put("disk_backed", r.store().diskBacked());
      s.put("cgroup_peak_bytes", r.peakBytes());
      s.put("oom_kills", r.oomKills());
      if (r.failure() == null) {
        s.putNull("failure");
      } else {
        s.put("failure", r.failure());
      }
    }
    return n;
  }
}
