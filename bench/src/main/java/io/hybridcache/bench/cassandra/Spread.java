package io.hybridcache.bench.cassandra;

import java.util.List;

/**
 * The median and range of one figure over repeated runs (the pairs of the Cassandra experiment);
 * NaN values (a figure a run could not measure) are left out. Immutable.
 *
 * @param n how many values were not NaN
 */
record Spread(double median, double min, double max, int n) {
  static final Spread NONE = new Spread(Double.NaN, Double.NaN, Double.NaN, 0);

  static Spread of(List<Double> values) {
    List<Double> v = values.stream().filter(x -> x != null && !Double.isNaN(x)).sorted().toList();
    int n = v.size();
    if (n == 0) {
      return NONE;
    }
    double median = n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
    return new Spread(median, v.get(0), v.get(n - 1), n);
  }
}
