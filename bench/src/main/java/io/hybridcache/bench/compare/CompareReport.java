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
 * The figures of one comparison, as a text table, Markdown and JSON, with each store's ratio to
 * the fio limits and, per workload, hybridcache over the best disk-backed peer against the issue's
 * goal (at least 1.5x on B, C and D, at least even on A). Immutable after construction.
 */
final class CompareReport {
  private static final double MIB = 1024.0 * 1024.0;
  /** The goal per workload: hybridcache ops/s over the best disk-backed peer's. */
  static final Map<String, Double> GOALS = Map.of("workloadb", 1.5, "workloadc", 1.5, "workloadd", 1.5, "workloada", 1.0);

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
    List<String> names = new ArrayList<>();
    runs.forEach(r -> names.add(r.store().cliName()));
    return names;
  }

  /** The stores that keep data on disk (ours and the disk-backed peers). */
  List<String> diskBackedStoreNames() {
    List<String> names = new ArrayList<>();
    runs.stream().filter(r -> r.store().diskBacked()).forEach(r -> names.add(r.store().cliName()));
    return names;
  }

  /** The record of {@code store} on {@code workload}, or null. */
  ObjectNode find(String store, String workload) {
    for (ObjectNode r : records) {
      if (r.get("store").asText().equals(store) && r.get("workload").asText().equals(workload)) {
        return r;
      }
    }
    return null;
  }

  /** One summary line per workload: ours, the best disk-backed peer, the ratio and the goal. */
  record Summary(String workload, double ours, double oursHitRatio, String bestPeer, double peer, double peerHitRatio,
                 double ratio, Double goal) {
    String verdict() {
      if (goal == null || Double.isNaN(ratio)) {
        return "";
      }
      return ratio >= goal ? "met" : "not met";
    }
  }

  List<Summary> summary() {
    List<Summary> out = new ArrayList<>();
    for (String w : workloads) {
      ObjectNode ours = find(StoreType.HYBRIDCACHE.cliName(), w);
      String best = null;
      double bestOps = Double.NaN;
      for (CompareCommand.StoreRun r : runs) {
        if (r.store().diskBacked() && !r.store().ours()) {
          ObjectNode p = find(r.store().cliName(), w);
          if (p != null && (best == null || p.get("throughput_ops").asDouble() > bestOps)) {
            best = r.store().cliName();
            bestOps = p.get("throughput_ops").asDouble();
          }
        }
      }
      double o = ours == null ? Double.NaN : ours.get("throughput_ops").asDouble();
      ObjectNode peer = best == null ? null : find(best, w);
      out.add(new Summary(w, o, hitRatio(ours), best, bestOps, hitRatio(peer), o / bestOps, GOALS.get(w)));
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
    for (CompareCommand.StoreRun r : runs) {
      if (r.failure() != null) {
        out.println(r.store().cliName() + ": FAILED: " + r.failure());
      }
    }
  }

  private static final String[] SUMMARY_HEADER = {"workload", "hybridcache ops/s", "its hit ratio",
      "best disk-backed peer", "its ops/s", "its hit ratio", "ratio", "goal", ""};

  private static Object[] summaryRow(Summary m) {
    return new Object[] {m.workload(), m.ours(), m.oursHitRatio(), m.bestPeer(), m.peer(), m.peerHitRatio(), m.ratio(),
        m.goal() == null ? null : "≥ " + m.goal(), m.verdict()};
  }

  private static String[] header() {
    return new String[] {"store", "workload", "ops/s", "read p50 us", "read p99 us", "read p99.9 us", "hit ratio",
        "disk B read/op", "disk B written/op", "RSS MiB", "page cache MiB", "disk reads / fio", "ops/s / fio IOPS"};
  }

  private static Object[] row(ObjectNode r) {
    return new Object[] {r.get("store").asText(), r.get("workload").asText(), r.get("throughput_ops").asDouble(),
        num(r, "read_p50_us"), num(r, "read_p99_us"), num(r, "read_p999_us"), num(r, "hit_ratio"),
        num(r, "disk_bytes_read_per_op"), num(r, "disk_bytes_written_per_op"), mib(r, "rss_bytes"),
        mib(r, "page_cache_bytes"), num(r, "disk_read_rate_over_fio"), num(r, "ratio_to_fio_randread_iops")};
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
    StringBuilder b = new StringBuilder();
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
    for (CompareCommand.StoreRun r : runs) {
      if (r.failure() != null) {
        b.append("\n").append(r.store().cliName()).append(" failed: ").append(r.failure()).append('\n');
      }
    }
    Files.writeString(file, b.toString());
    return file.toAbsolutePath();
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
    var names = root.get("stores").fieldNames();
    while (names.hasNext()) {
      String name = names.next();
      JsonNode s = root.get("stores").get(name);
      List<ObjectNode> phases = new ArrayList<>();
      for (JsonNode r : root.get("records")) {
        if (r.get("store").asText().equals(name)) {
          phases.add((ObjectNode) r);
        }
      }
      runs.add(new CompareCommand.StoreRun(StoreType.parse(name), phases,
          s.get("failure").isNull() ? null : s.get("failure").asText(), s.get("cgroup_peak_bytes").asLong(),
          s.get("oom_kills").asLong()));
    }
    List<String> workloads = new ArrayList<>();
    root.get("setup").get("workloads").forEach(w -> workloads.add(w.asText()));
    return new CompareReport((ObjectNode) root.get("setup"), limits, runs, workloads);
  }

  /** {@code {setup, limits, records: [...], summary: [...], failures: {...}}}. */
  ObjectNode toJson() {
    ObjectNode n = StatsJson.MAPPER.createObjectNode();
    n.set("setup", setup);
    n.set("limits", limits == null ? StatsJson.MAPPER.nullNode() : StatsJson.MAPPER.valueToTree(limits));
    ArrayNode a = n.putArray("records");
    records.forEach(a::add);
    n.set("summary", StatsJson.MAPPER.valueToTree(summary()));
    ObjectNode stores = n.putObject("stores");
    for (CompareCommand.StoreRun r : runs) {
      ObjectNode s = stores.putObject(r.store().cliName());
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
