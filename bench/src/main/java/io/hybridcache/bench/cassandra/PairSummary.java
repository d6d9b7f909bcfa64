package io.hybridcache.bench.cassandra;

import io.hybridcache.bench.Spread;
import io.hybridcache.bench.cassandra.CassandraCommand.Result;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The figures of the Cassandra experiment's runs summed up over its pairs: per provider, the median
 * and range of each figure; per pair, hybridcache's throughput over OHC's, and the median of those
 * ratios, the experiment's headline. Immutable.
 */
final class PairSummary {
  /** The figures summed up, by their JSON name, in the order they are printed. */
  static final Map<String, ToDoubleFunction<Result>> FIGURES = figures();

  private final List<Result> results;

  PairSummary(List<Result> results) {
    this.results = List.copyOf(results);
  }

  private static Map<String, ToDoubleFunction<Result>> figures() {
    Map<String, ToDoubleFunction<Result>> f = new LinkedHashMap<>();
    f.put("throughput_ops", Result::throughputOps);
    f.put("read_p50_us", Result::readP50Us);
    f.put("read_p99_us", Result::readP99Us);
    f.put("row_cache_hit_ratio", Result::hitRatio);
    f.put("sstable_reads_per_op", Result::sstableReadsPerOp);
    f.put("device_reads_per_miss", Result::deviceReadsPerMiss);
    f.put("page_cache_served_share", Result::pageCacheServedShare);
    f.put("cpu_ms_per_op", Result::cpuMsPerOp);
    f.put("warmup_seconds", r -> r.warmup().seconds());
    return f;
  }

  /** The providers in the order they first ran. */
  List<String> providers() {
    return results.stream().map(Result::provider).distinct().toList();
  }

  /** Median and range of {@code figure} (a key of {@link #FIGURES}) over {@code provider}'s runs. */
  Spread spread(String provider, String figure) {
    ToDoubleFunction<Result> f = FIGURES.get(figure);
    if (f == null) {
      throw new IllegalArgumentException("no figure named " + figure + "; one of " + FIGURES.keySet());
    }
    return Spread.of(results.stream().filter(r -> r.provider().equals(provider)).map(r -> f.applyAsDouble(r)).toList());
  }

  /**
   * hybridcache's throughput over OHC's in each pair that has both and a non-zero OHC figure, in pair
   * order; a pair's two runs started from the same data set copy.
   */
  List<Double> throughputRatios() {
    Map<Integer, double[]> byPair = new LinkedHashMap<>();
    for (Result r : results) {
      double[] p = byPair.computeIfAbsent(r.pair(), k -> new double[] {Double.NaN, Double.NaN});
      if (r.provider().equals("ohc")) {
        p[0] = r.throughputOps();
      } else if (r.provider().equals("hybrid")) {
        p[1] = r.throughputOps();
      }
    }
    List<Double> ratios = new ArrayList<>();
    for (double[] p : byPair.values()) {
      if (p[0] > 0 && !Double.isNaN(p[1])) {
        ratios.add(p[1] / p[0]);
      }
    }
    return ratios;
  }

  /** The headline: median (and range) of the pairs' throughput ratios. */
  Spread throughputRatio() {
    return Spread.of(throughputRatios());
  }
}
