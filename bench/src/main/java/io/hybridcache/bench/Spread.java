package io.hybridcache.bench;

import java.util.List;
import java.util.Locale;

/**
 * The median and range of one figure over repeated runs (the pairs of the Cassandra experiment, the
 * repetitions of a comparison); NaN and null values (a figure a run could not measure) are left out.
 * Immutable.
 *
 * @param n how many values were not NaN
 */
public record Spread(double median, double min, double max, int n) {
  public static final Spread NONE = new Spread(Double.NaN, Double.NaN, Double.NaN, 0);

  public static Spread of(List<Double> values) {
    List<Double> v = values.stream().filter(x -> x != null && !Double.isNaN(x)).sorted().toList();
    int n = v.size();
    if (n == 0) {
      return NONE;
    }
    double median = n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
    return new Spread(median, v.get(0), v.get(n - 1), n);
  }

  /** "median" with one value, "median (min-max, n runs)" with more; "" with none. */
  public String text() {
    if (n == 0) {
      return "";
    }
    return n == 1 ? String.format(Locale.ROOT, "%,.0f", median)
        : String.format(Locale.ROOT, "%,.0f (%,.0f-%,.0f, %d runs)", median, min, max, n);
  }
}
