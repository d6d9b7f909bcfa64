package io.hybridcache.bench.compare;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.TextTable;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A {@link CompareReport} as tables, in text (stdout) and Markdown: the setup, a row per store, run and
 * phase, the summary against the goals, write amplification, the tiny-record table, then warnings and
 * the runs that did not complete. Stateless; thread-safe.
 */
final class CompareTables {
  private static final double MIB = 1024.0 * 1024.0;
  private static final String[] ROW_HEADER = {"store", "run", "phase", "ops/s", "read p50 us", "read p99 us",
      "read p99.9 us", "hit ratio", "disk B read/read", "disk B written/op", "write ampl.", "major faults",
      "index MiB (charged)", "allowance MiB (measured native MiB)", "RSS MiB", "page cache MiB", "disk reads / fio", "ops/s / fio IOPS"};
  private static final String[] OBJECTS_HEADER = {"store", "objects held (hit ratio x records)",
      "budget B per object held", "miss ratio", "disk B read per read", "ops/s (median)",
      "ours holds more, misses less, reads less than every disk-backed peer"};

  private CompareTables() {}

  /** Every table of {@code r} as text. */
  static void print(CompareReport r, PrintStream out) {
    out.println(title(r));
    DiskLimits limits = r.limits();
    if (limits != null) {
      out.printf(Locale.ROOT, "disk (fio %s, 4 KiB random reads QD1, direct I/O): %,.0f IOPS p99 %.0f us with 1 job; %,.0f IOPS"
              + " p99 %.0f us with %d jobs; sequential writes %,.0f MiB/s%n", limits.fioVersion(), limits.randReadIops1(),
          limits.randReadP99Us1(), limits.randReadIopsN(), limits.randReadP99UsN(), limits.jobs(), limits.seqWriteMiBs());
    }
    for (Table t : tables(r)) {
      TextTable text = new TextTable(t.header());
      t.rows().forEach(text::row);
      text.print(out);
      out.println();
    }
    lines(r).forEach(out::println);
  }

  /** Every table of {@code r} as Markdown. */
  static String markdown(CompareReport r) {
    ObjectNode setup = r.setup();
    StringBuilder b = new StringBuilder("### ").append(title(r)).append("\n\n");
    b.append("Run ").append(setup.path("date").asText()).append(" on ").append(setup.path("machine").asText())
        .append(", commit `").append(setup.path("commit").asText()).append("`.\n\n");
    b.append(String.format(Locale.ROOT, "DRAM budget %.0f MiB per store, %,d records (~%.0f MiB, %.1fx the budget), %d client"
            + " threads, %.0f s measured after %.0f s warm-up per workload, memory cgroup %s.%n%n",
        setup.path("dram_budget_bytes").asDouble() / MIB, setup.path("records").asLong(),
        setup.path("data_bytes_estimate").asDouble() / MIB,
        setup.path("data_bytes_estimate").asDouble() / setup.path("dram_budget_bytes").asDouble(),
        setup.path("threads").asInt(), setup.path("seconds").asDouble(), setup.path("warmup_seconds").asDouble(),
        memoryCgroup(setup)));
    DiskLimits limits = r.limits();
    if (limits != null) {
      b.append(String.format(Locale.ROOT, "Disk (fio %s, same directory, just before): 4 KiB random reads QD1 %,.0f IOPS (p99 %.0f"
              + " us) with 1 job, %,.0f IOPS (p99 %.0f us) with %d jobs; 1 MiB sequential writes %,.0f MiB/s.%n%n",
          limits.fioVersion(), limits.randReadIops1(), limits.randReadP99Us1(), limits.randReadIopsN(), limits.randReadP99UsN(),
          limits.jobs(), limits.seqWriteMiBs()));
    }
    for (Table t : tables(r)) {
      b.append('|').append(String.join("|", t.header())).append("|\n|").append("---|".repeat(t.header().length)).append('\n');
      for (Object[] row : t.rows()) {
        b.append('|');
        for (Object c : row) {
          b.append(TextTable.cell(c)).append('|');
        }
        b.append('\n');
      }
      b.append('\n');
    }
    for (String line : lines(r)) {
      b.append(line).append("\n\n");
    }
    return b.toString();
  }

  /** The memory cgroup of the setup line: off, one limit, or heap + budget + each store's allowance and its rule. */
  private static String memoryCgroup(ObjectNode setup) {
    if (setup.path("memory_limit_bytes").asLong() < 0) {
      return "off";
    }
    String heap = String.format(Locale.ROOT, "heap %.0f MiB pre-touched", setup.path("heap_bytes").asDouble() / MIB);
    if (setup.path("allowance_rule").asText("").startsWith("calibrated")) {
      return "of " + heap + " + the budget + the store's allowance (column `allowance MiB`: "
          + setup.get("allowance_rule").asText() + ")";
    }
    return String.format(Locale.ROOT, "%.0f MiB (%s)", setup.path("memory_limit_bytes").asDouble() / MIB, heap);
  }

  private static String title(CompareReport r) {
    return r.isTiny() ? "Tiny records: " + r.section() : "Core records (" + String.join(", ", r.workloads()) + ")";
  }

  private record Table(String[] header, List<Object[]> rows) {}

  private static List<Table> tables(CompareReport r) {
    List<Table> out = new ArrayList<>();
    out.add(new Table(ROW_HEADER, r.records().stream().map(CompareTables::row).toList()));
    if (!r.isTiny()) {
      out.add(new Table(new String[] {"workload", "ours", "ops/s (median, min-max)", "its lowest hit ratio", "best disk-backed"
          + " peer", "its ops/s (median, min-max)", "its lowest hit ratio", "ratio of medians", "ratio, our min / its max",
          "goal", ""}, r.summary().stream().map(CompareTables::summaryRow).toList()));
    }
    List<String> phases = r.waPhases();
    String[] waHeader = new String[phases.size() + 1];
    waHeader[0] = "write amplification (device bytes written / bytes put), median";
    for (int i = 0; i < phases.size(); i++) {
      waHeader[i + 1] = phases.get(i);
    }
    List<Object[]> waRows = new ArrayList<>();
    List<String> stores = r.storeNames();
    List<double[]> medians = r.waMedians();
    for (int i = 0; i < stores.size(); i++) {
      Object[] row = new Object[phases.size() + 1];
      row[0] = stores.get(i);
      for (int j = 0; j < phases.size(); j++) {
        row[j + 1] = nan(medians.get(i)[j]);
      }
      waRows.add(row);
    }
    out.add(new Table(waHeader, waRows));
    if (r.isTiny()) {
      out.add(new Table(OBJECTS_HEADER, r.objects().stream().map(o -> new Object[] {o.store(), nan(o.held()),
          nan(o.budgetPerObject()), nan(o.missRatio()), nan(o.diskBytesPerRead()), nan(o.throughput()), o.verdict()}).toList()));
    }
    return out;
  }

  private static List<String> lines(CompareReport r) {
    List<String> out = new ArrayList<>(r.warnings());
    out.addAll(r.failureLines());
    return out;
  }

  private static Object[] summaryRow(CompareReport.Summary m) {
    return new Object[] {m.workload(), m.ourStore(), m.ours().text(), nan(m.oursHitRatio()), m.bestPeer(), m.peer().text(),
        nan(m.peerHitRatio()), nan(m.ratio()), nan(m.ratioAtWorst()), m.goal() == null ? null : "≥ " + m.goal(), m.verdict()};
  }

  private static Object[] row(ObjectNode r) {
    Double index = mib(r, "index_bytes");
    Double charge = mib(r, "index_charge_bytes");
    return new Object[] {r.get("store").asText(), r.path("repetition").asInt(1), r.get("workload").asText(),
        r.get("throughput_ops").asDouble(), num(r, "read_p50_us"), num(r, "read_p99_us"), num(r, "read_p999_us"),
        num(r, "hit_ratio"), CompareReport.diskBytesPerRead(r), num(r, "disk_bytes_written_per_op"),
        num(r, "write_amplification"), num(r, "major_faults"),
        index == null ? null : String.format(Locale.ROOT, "%.1f (%.1f)", index, charge == null ? Double.NaN : charge),
        allowance(r),
        mib(r, "rss_bytes"), mib(r, "page_cache_bytes"), num(r, "disk_read_rate_over_fio"), num(r, "ratio_to_fio_randread_iops")};
  }

  /** "allowance (measured native)" in MiB, "allowance (override)" or "(flat)" when not calibrated; null without an allowance. */
  static String allowance(JsonNode r) {
    Double allowance = mib(r, "allowance_bytes");
    if (allowance == null) {
      return null;
    }
    Double measured = mib(r, "measured_native_bytes");
    String source = r.path("allowance_source").asText("");
    return String.format(Locale.ROOT, "%.0f (%s)", allowance, measured != null ? String.format(Locale.ROOT, "%.1f", measured)
        : source.startsWith("flat") ? "flat" : source);
  }

  private static Double nan(double v) {
    return Double.isNaN(v) ? null : v;
  }

  private static Double num(JsonNode r, String key) {
    return CompareReport.num(r, key);
  }

  private static Double mib(JsonNode r, String key) {
    Double v = num(r, key);
    return v == null || v < 0 ? null : v / MIB;
  }
}
