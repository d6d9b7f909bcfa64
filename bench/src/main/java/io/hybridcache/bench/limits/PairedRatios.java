package io.hybridcache.bench.limits;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One cache/fio ratio measured in several interleaved pairs (fio, then the cache, again and again): the
 * disk here is shared and drifts between runs, so a single fio figure can be off by a third for the
 * cache run beside it. Reports the median and the spread. Not thread-safe.
 */
final class PairedRatios {
  private final List<Double> values = new ArrayList<>();

  /** Adds one pair's ratio; null (not measured) is skipped. */
  void add(Double ratio) {
    if (ratio != null && !ratio.isNaN()) {
      values.add(ratio);
    }
  }

  /** The median of the pairs' ratios (the mean of the middle two for an even count), or null if none. */
  Double median() {
    if (values.isEmpty()) {
      return null;
    }
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  /** "min-max over n", or "-" if none. */
  String spread() {
    if (values.isEmpty()) {
      return "-";
    }
    double min = values.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
    double max = values.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    return String.format(Locale.ROOT, "%.3f-%.3f over %d", min, max, values.size());
  }

  /** Writes {@code key} (the median, or null), {@code key_min}, {@code key_max} and {@code key_pairs}. */
  void put(ObjectNode out, String key) {
    Double m = median();
    if (m == null) {
      out.putNull(key);
      return;
    }
    out.put(key, m);
    out.put(key + "_min", values.stream().mapToDouble(Double::doubleValue).min().orElseThrow());
    out.put(key + "_max", values.stream().mapToDouble(Double::doubleValue).max().orElseThrow());
    ArrayNode a = out.putArray(key + "_pairs");
    values.forEach(a::add);
  }
}
