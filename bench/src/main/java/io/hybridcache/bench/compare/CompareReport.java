package io.hybridcache.bench.compare;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.Spread;
import io.hybridcache.bench.StatsJson;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The figures of one section of a comparison (the core records, or one tiny-record workload on its own
 * load): one record per store, run and phase, with each store's ratios to the fio limits, and what is
 * derived from them: per workload, hybridcache over the best disk-backed peer against the goal
 * (medians, and our slowest run against the peer's fastest), write amplification per phase and over the
 * whole run, the objects-held table of a tiny section, warnings where our index outgrew its charge, and
 * a line per run that did not complete (ours: a failure; a peer: a row). {@link CompareTables} renders it.
 * Immutable after construction.
 */
final class CompareReport {
  /** The goal per workload: hybridcache ops/s over the best disk-backed peer's. */
  static final Map<String, Double> GOALS = Map.of("workloadb", 1.5, "workloadc", 1.5, "workloadd", 1.5, "workloada", 1.0,
      "transactional", 1.5);
  /** Hit ratios closer than this are the same (a store that refused a few evictions is still comparable). */
  static final double HIT_RATIO_SLACK = 0.001;
  /** The section of the core records; the others are tiny-record workloads. */
  static final String CORE = "core";

  private final ObjectNode setup;
  private final DiskLimits limits;
  private final List<CompareCommand.StoreRun> runs;
  private final List<String> workloads;
  private final List<ObjectNode> records = new ArrayList<>();

  CompareReport(ObjectNode setup, DiskLimits limits, List<CompareCommand.StoreRun> runs, List<String> workloads) {
    this.setup = setup;
    this.limits = limits;
    this.runs = List.copyOf(runs);
    this.workloads = List.copyOf(workloads);
    for (CompareCommand.StoreRun r : runs) {
      for (ObjectNode p : r.phases()) {
        ObjectNode rec = p.deepCopy();
        rec.put("repetition", r.repetition());
        rec.put("disk_backed", r.store().diskBacked());
        if (limits != null && !isWholeRunOrLoad(p)) {
          rec.put("ratio_to_fio_randread_iops", p.get("throughput_ops").asDouble() / limits.randReadIopsN());
          // how close the store drives the disk to fio's random-read limit (in 4 KiB reads per second)
          rec.put("disk_read_rate_over_fio",
              p.get("disk_bytes_read").asDouble() / 4096 / p.get("seconds").asDouble() / limits.randReadIopsN());
          if (!p.path("read_p99_us").isNull() && p.has("read_p99_us")) {
            rec.put("read_p99_over_fio_p99", p.get("read_p99_us").asDouble() / limits.randReadP99UsN());
          }
          rec.put("write_mibs_over_fio_seqwrite",
              p.get("disk_bytes_written").asDouble() / (1 << 20) / p.get("seconds").asDouble() / limits.seqWriteMiBs());
        }
        records.add(rec);
      }
    }
  }

  private static boolean isWholeRunOrLoad(JsonNode p) {
    String w = p.get("workload").asText();
    return w.equals("load") || w.equals(CompareRunner.WHOLE_RUN);
  }

  ObjectNode setup() {
    return setup;
  }

  DiskLimits limits() {
    return limits;
  }

  List<ObjectNode> records() {
    return records;
  }

  List<String> workloads() {
    return workloads;
  }

  List<CompareCommand.StoreRun> runs() {
    return runs;
  }

  /** This section's name: {@link #CORE} or the tiny workload's. */
  String section() {
    return setup.path("section").asText(CORE);
  }

  /** True for a tiny-record section (its own table of objects held). */
  boolean isTiny() {
    return !section().equals(CORE);
  }

  List<String> storeNames() {
    return runs.stream().map(r -> r.store().cliName()).distinct().toList();
  }

  /** The stores that keep data on disk (ours and the disk-backed peers). */
  List<String> diskBackedStoreNames() {
    return runs.stream().filter(r -> r.store().diskBacked()).map(r -> r.store().cliName()).distinct().toList();
  }

  /** The disk-backed peers (not ours). */
  List<String> diskBackedPeers() {
    return diskBackedStoreNames().stream().filter(n -> !StoreType.parse(n).ours()).toList();
  }

  /** True unless a run of ours failed: peers that cannot complete are reported, not fatal. */
  boolean oursCompleted() {
    return runs.stream().noneMatch(r -> r.store().ours() && r.failure() != null);
  }

  /** Figure {@code key} of {@code store} on {@code workload} in each run that measured it, in run order. */
  List<Double> samples(String store, String workload, String key) {
    List<Double> out = new ArrayList<>();
    for (ObjectNode r : records) {
      if (r.get("store").asText().equals(store) && r.get("workload").asText().equals(workload)) {
        Double v = num(r, key);
        if (v != null) {
          out.add(v);
        }
      }
    }
    return out;
  }

  /** The spread of figure {@code key} of {@code store} on {@code workload} over its runs. */
  Spread spread(String store, String workload, String key) {
    return Spread.of(samples(store, workload, key));
  }

  /** The median of figure {@code key} of {@code store} on {@code workload} over its runs (NaN if none). */
  double median(String store, String workload, String key) {
    return spread(store, workload, key).median();
  }

  /** Disk bytes read per read operation of a phase record (null without reads). */
  static Double diskBytesPerRead(JsonNode r) {
    long reads = r.path("reads_found").asLong() + r.path("reads_missing").asLong();
    return reads == 0 ? null : r.path("disk_bytes_read").asDouble() / reads;
  }

  /**
   * One summary line per workload: ours and the best disk-backed peer (by median throughput over their
   * runs), the ratio of medians, the ratio at the spread's edge (our slowest run over the peer's fastest:
   * equal to the ratio with one run each), the lowest hit ratio each had in a run, and the goal.
   */
  record Summary(String workload, String ourStore, Spread ours, double oursHitRatio, String bestPeer, Spread peer,
                 double peerHitRatio, double ratio, double ratioAtWorst, Double goal) {
    /** "met" when both ratios reach the goal and ours found as many records as the peer; "" without a goal. */
    String verdict() {
      if (goal == null || Double.isNaN(ratio)) {
        return "";
      }
      if (oursHitRatio < peerHitRatio - HIT_RATIO_SLACK) {
        return "not comparable: ours found fewer records";
      }
      return ratio >= goal && ratioAtWorst >= goal ? "met" : "not met";
    }
  }

  List<Summary> summary() {
    List<Summary> out = new ArrayList<>();
    String ourName = ourStore();
    for (String w : workloads) {
      String best = bestPeer(w);
      Spread o = ourName == null ? Spread.NONE : spread(ourName, w, "throughput_ops");
      Spread p = best == null ? Spread.NONE : spread(best, w, "throughput_ops");
      out.add(new Summary(w, ourName, o, ourName == null ? Double.NaN : spread(ourName, w, "hit_ratio").min(), best, p,
          best == null ? Double.NaN : spread(best, w, "hit_ratio").min(), o.median() / p.median(), o.min() / p.max(),
          GOALS.get(w)));
    }
    return out;
  }

  /** The disk-backed peer with the highest median throughput on {@code workload}, or null. */
  String bestPeer(String workload) {
    String best = null;
    double bestOps = Double.NaN;
    for (String name : diskBackedPeers()) {
      double m = median(name, workload, "throughput_ops");
      if (!Double.isNaN(m) && (best == null || m > bestOps)) {
        best = name;
        bestOps = m;
      }
    }
    return best;
  }

  /** The store of ours the summary compares: the default one if it ran, else the first of ours that did. */
  String ourStore() {
    List<String> names = storeNames();
    if (names.contains(StoreType.HYBRIDCACHE.cliName())) {
      return StoreType.HYBRIDCACHE.cliName();
    }
    return names.stream().filter(n -> StoreType.parse(n).ours()).findFirst().orElse(null);
  }

  /** The phases of the write-amplification table: the load, each workload, and the whole run. */
  List<String> waPhases() {
    List<String> phases = new ArrayList<>(List.of("load"));
    phases.addAll(workloads);
    phases.add(CompareRunner.WHOLE_RUN);
    return phases;
  }

  /** Per store, the median write amplification of each of {@link #waPhases()} over its runs (NaN where nothing was put). */
  List<double[]> waMedians() {
    List<double[]> rows = new ArrayList<>();
    List<String> phases = waPhases();
    for (String store : storeNames()) {
      double[] row = new double[phases.size()];
      for (int i = 0; i < phases.size(); i++) {
        row[i] = median(store, phases.get(i), "write_amplification");
      }
      rows.add(row);
    }
    return rows;
  }

  /**
   * One row of the tiny-record table: objects held (hit ratio x records: uniform reads over every record),
   * the DRAM budget per object held, misses, disk bytes read per read (what the store's DRAM did not
   * serve), throughput; medians over the store's runs.
   */
  record Objects(String store, double held, double budgetPerObject, double missRatio, double diskBytesPerRead,
                 double throughput, String verdict) {}

  /**
   * The tiny-record table of this section. Ours' verdict is "yes" when it holds at least as many objects
   * as every disk-backed peer, misses no more, and reads fewer disk bytes per read than each of them.
   */
  List<Objects> objects() {
    String w = workloads.get(0);
    long recordCount = setup.path("records").asLong();
    double budget = setup.path("dram_budget_bytes").asDouble();
    List<Objects> rows = new ArrayList<>();
    for (String store : storeNames()) {
      double hit = median(store, w, "hit_ratio");
      double held = hit * recordCount;
      rows.add(new Objects(store, held, held > 0 ? budget / held : Double.NaN, 1 - hit, medianDiskBytesPerRead(store, w),
          median(store, w, "throughput_ops"), ""));
    }
    List<Objects> out = new ArrayList<>();
    for (Objects o : rows) {
      if (!StoreType.parse(o.store()).ours() || Double.isNaN(o.held())) {
        out.add(o);
        continue;
      }
      boolean better = true;
      for (Objects p : rows) {
        if (diskBackedPeers().contains(p.store()) && !Double.isNaN(p.held())) {
          better &= o.held() >= p.held() - HIT_RATIO_SLACK * recordCount && o.missRatio() <= p.missRatio() + HIT_RATIO_SLACK
              && o.diskBytesPerRead() < p.diskBytesPerRead();
        }
      }
      out.add(new Objects(o.store(), o.held(), o.budgetPerObject(), o.missRatio(), o.diskBytesPerRead(), o.throughput(),
          better ? "yes" : "no"));
    }
    return out;
  }

  private double medianDiskBytesPerRead(String store, String workload) {
    List<Double> xs = new ArrayList<>();
    for (ObjectNode r : records) {
      if (r.get("store").asText().equals(store) && r.get("workload").asText().equals(workload)) {
        Double v = diskBytesPerRead(r);
        if (v != null) {
          xs.add(v);
        }
      }
    }
    return Spread.of(xs).median();
  }

  /** A warning per record of ours whose measured index passed the DRAM charged for it. */
  List<String> warnings() {
    List<String> out = new ArrayList<>();
    for (ObjectNode r : records) {
      long index = r.path("index_bytes").asLong(-1);
      long charge = r.path("index_charge_bytes").asLong(-1);
      if (charge > 0 && index > charge) {
        out.add(String.format(Locale.ROOT, "warning: %s (run %d) %s: the index measured %,d B, over the %,d B charged to"
                + " the budget: its DRAM tier had %,d B more than the rule allows", r.get("store").asText(),
            r.path("repetition").asInt(1), r.get("workload").asText(), index, charge, index - charge));
      }
    }
    return out;
  }

  /** One line per run that did not complete: ours as a failure, a peer as a row that does not fail the run. */
  List<String> failureLines() {
    List<String> out = new ArrayList<>();
    for (CompareCommand.StoreRun r : runs) {
      if (r.failure() != null) {
        out.add(r.store().cliName() + " (" + section() + ", run " + r.repetition() + "): " + (r.store().ours() ? "FAILED: "
            : "did not complete (reported; a peer does not fail the run): ") + r.failure());
      }
    }
    return out;
  }

  static Double num(JsonNode r, String key) {
    JsonNode v = r.get(key);
    return v == null || v.isNull() || !v.isNumber() ? null : v.asDouble();
  }

  /**
   * The report of an earlier run from what {@link #toJson} wrote; also reads the layout before runs were
   * repeated (one {@code stores} entry per store, whose {@code hybridcache} opened the Chronicle index).
   */
  static CompareReport fromJson(JsonNode root) throws IOException {
    for (String key : List.of("setup", "limits", "records")) {
      if (!root.has(key)) {
        throw new IOException("not a compare --json file: no \"" + key + "\"");
      }
    }
    DiskLimits limits = root.get("limits").isNull() ? null : StatsJson.MAPPER.treeToValue(root.get("limits"), DiskLimits.class);
    List<CompareCommand.StoreRun> runs = new ArrayList<>();
    if (root.has("runs")) {
      for (JsonNode s : root.get("runs")) {
        runs.add(run(root, StoreType.parse(s.get("store").asText()), s.get("store").asText(), s.get("repetition").asInt(), s));
      }
    } else if (root.has("stores")) {
      var names = root.get("stores").fieldNames();
      while (names.hasNext()) {
        String name = names.next();
        // before 2026-11-27 the store named hybridcache opened the Chronicle Map index
        StoreType type = name.equals("hybridcache") ? StoreType.HYBRIDCACHE_CHRONICLE : StoreType.parse(name);
        runs.add(run(root, type, name, 1, root.get("stores").get(name)));
      }
    } else {
      throw new IOException("not a compare --json file: neither \"runs\" nor \"stores\"");
    }
    List<String> workloads = new ArrayList<>();
    root.get("setup").get("workloads").forEach(w -> workloads.add(w.asText()));
    return new CompareReport((ObjectNode) root.get("setup"), limits, runs, workloads);
  }

  private static CompareCommand.StoreRun run(JsonNode root, StoreType type, String name, int repetition, JsonNode s) {
    List<ObjectNode> phases = new ArrayList<>();
    for (JsonNode r : root.get("records")) {
      if (r.get("store").asText().equals(name) && r.path("repetition").asInt(1) == repetition) {
        ObjectNode p = ((ObjectNode) r).deepCopy();
        p.put("store", type.cliName());
        phases.add(p);
      }
    }
    return new CompareCommand.StoreRun(type, repetition, phases, s.get("failure").isNull() ? null : s.get("failure").asText(),
        s.path("cgroup_peak_bytes").asLong(-1), s.path("oom_kills").asLong());
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
      if (r.allowance() != null) {
        r.allowance().putInto(s);
      }
      if (r.failure() == null) {
        s.putNull("failure");
      } else {
        s.put("failure", r.failure());
      }
    }
    return n;
  }
}
