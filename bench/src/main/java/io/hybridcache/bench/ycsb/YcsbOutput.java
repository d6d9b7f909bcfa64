package io.hybridcache.bench.ycsb;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The measurements YCSB's text exporter prints on stdout, e.g. {@code [OVERALL],
 * Throughput(ops/sec), 12345.6} and {@code [READ], 99thPercentileLatency(us), 120} (percentiles
 * come from {@code measurementtype=hdrhistogram} with {@code hdrhistogram.percentiles}).
 * Immutable after {@link #parse}; thread-safe.
 */
public final class YcsbOutput {
  private static final Pattern LINE = Pattern.compile("^\\[([^\\]]+)\\],\\s*([^,]+?),\\s*(\\S+)\\s*$");
  /** Sections that are not operations (VERIFY: dataintegrity checks of reads). */
  private static final List<String> NOT_OPS = List.of("OVERALL", "CLEANUP", "VERIFY");

  private final Map<String, Map<String, String>> sections;

  private YcsbOutput(Map<String, Map<String, String>> sections) {
    this.sections = sections;
  }

  /** Parses stdout lines; lines that are not measurements are ignored. */
  public static YcsbOutput parse(List<String> lines) {
    Map<String, Map<String, String>> s = new LinkedHashMap<>();
    for (String line : lines) {
      Matcher m = LINE.matcher(line);
      if (m.matches()) {
        s.computeIfAbsent(m.group(1), k -> new LinkedHashMap<>()).put(m.group(2).trim(), m.group(3));
      }
    }
    return new YcsbOutput(s);
  }

  /** The raw value of {@code [section], metric}, or null. */
  public String get(String section, String metric) {
    Map<String, String> m = sections.get(section);
    return m == null ? null : m.get(metric);
  }

  /** The value as a double, or NaN when absent or not a number. */
  public double number(String section, String metric) {
    String v = get(section, metric);
    if (v == null) {
      return Double.NaN;
    }
    try {
      return Double.parseDouble(v);
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  public boolean hasOverall() {
    return !Double.isNaN(throughput());
  }

  public double throughput() {
    return number("OVERALL", "Throughput(ops/sec)");
  }

  public double runtimeMs() {
    return number("OVERALL", "RunTime(ms)");
  }

  /** Latency percentile in µs of successful {@code op}s, e.g. percentileUs("READ", "99th"). */
  public double percentileUs(String op, String ordinal) {
    return number(op, ordinal + "PercentileLatency(us)");
  }

  /** Operation sections (READ, UPDATE, READ-FAILED, ...): those with an Operations count, minus CLEANUP and VERIFY. */
  public List<String> operations() {
    return sections.entrySet().stream()
        .filter(e -> e.getValue().containsKey("Operations") && !NOT_OPS.contains(e.getKey()))
        .map(Map.Entry::getKey)
        .toList();
  }

  /** Operations done, summed over operation sections (failed ones included). */
  public long totalOperations() {
    long n = 0;
    for (String op : operations()) {
      n += (long) number(op, "Operations");
    }
    return n;
  }

  /** Sum of {@code Return=<status>} counts over operation sections, e.g. returns("ERROR"). */
  public long returns(String status) {
    long n = 0;
    for (String op : operations()) {
      double v = number(op, "Return=" + status);
      if (!Double.isNaN(v)) {
        n += (long) v;
      }
    }
    return n;
  }

  /** {@code Return=<status>} count of one section, 0 if absent. */
  public long returns(String op, String status) {
    double v = number(op, "Return=" + status);
    return Double.isNaN(v) ? 0 : (long) v;
  }

  public Map<String, Map<String, String>> sections() {
    return sections;
  }
}
