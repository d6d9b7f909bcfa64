package io.hybridcache.bench.cassandra;

import java.util.List;

/**
 * The arithmetic of the rolling-restart experiment, apart from the cluster so it can be tested:
 * steady throughput, operations lost below it, a round's worst read p99 and failed reads, a restarted
 * node's hit ratio before its stop and the time until it is back within a tolerance. Times are
 * seconds since the client started. Stateless.
 */
final class RollingReport {
  /** Hit-ratio points a restarted node must come back within (the 5 points). */
  static final double TOLERANCE = 0.05;
  /** Seconds of samples before a stop that make its "before" hit ratio. */
  static final double BEFORE_SECONDS = 30;

  /** One node's cumulative counters at time {@code t}: row cache hits and requests, reads its disk completed. */
  record Sample(double t, double hits, double requests, long diskReads) {
    boolean valid() {
      return !Double.isNaN(hits) && !Double.isNaN(requests);
    }
  }

  private RollingReport() {}

  /** Mean operations per second over whole seconds [from, to) of {@code ops} (NaN if empty). */
  static double steady(long[] ops, int from, int to) {
    int a = Math.max(0, from);
    int b = Math.min(ops.length, to);
    if (b <= a) {
      return Double.NaN;
    }
    long sum = 0;
    for (int i = a; i < b; i++) {
      sum += ops[i];
    }
    return (double) sum / (b - a);
  }

  /** Operations below {@code steady} over whole seconds [from, to): the sum of each second's shortfall. */
  static long lost(long[] ops, double steady, int from, int to) {
    double lost = 0;
    for (int i = Math.max(0, from); i < Math.min(ops.length, to); i++) {
      lost += Math.max(0, steady - ops[i]);
    }
    return Math.round(lost);
  }

  /**
   * The node's hit ratio over [from, to] from its samples (counter differences between the first and
   * the last valid sample inside), NaN if fewer than two or no request. A restart resets the
   * counters, so callers never span one.
   */
  static double hitRatio(List<Sample> samples, double from, double to) {
    Sample[] ends = ends(samples, from, to, Sample::valid);
    if (ends == null || ends[1].requests() <= ends[0].requests()) {
      return Double.NaN;
    }
    return (ends[1].hits() - ends[0].hits()) / (ends[1].requests() - ends[0].requests());
  }

  /**
   * Seconds from {@code up} (the node serves again) to the end of the first of two consecutive
   * sample intervals whose hit ratios are both within {@link #TOLERANCE} of {@code before}; NaN if
   * that never happens before {@code until}. The counters restart with the node, so intervals
   * begin at or after {@code up}.
   */
  static double recoverySeconds(List<Sample> samples, double up, double until, double before) {
    if (Double.isNaN(before)) {
      return Double.NaN;
    }
    Sample prev = null;
    Double candidate = null;
    for (Sample s : samples) {
      if (!s.valid() || s.t() < up || s.t() > until) {
        continue;
      }
      if (prev != null && s.requests() > prev.requests()) {
        double r = (s.hits() - prev.hits()) / (s.requests() - prev.requests());
        if (r >= before - TOLERANCE) {
          if (candidate != null) {
            return candidate - up;
          }
          candidate = s.t();
        } else {
          candidate = null;
        }
      }
      prev = s;
    }
    return Double.NaN;
  }

  /**
   * Row cache requests per second of the node over [from, to] (first and last valid sample inside), NaN
   * if fewer than two: the denominator of {@link #hitRatio}, without which a ratio over a node the
   * coordinators hardly read (a few speculative retries and read repairs) passes for its hit ratio.
   */
  static double requestsPerSecond(List<Sample> samples, double from, double to) {
    Sample[] ends = ends(samples, from, to, Sample::valid);
    return ends == null ? Double.NaN : (ends[1].requests() - ends[0].requests()) / (ends[1].t() - ends[0].t());
  }

  /**
   * Disk reads per second of the node over [from, to] from its samples (those whose disk counter was
   * read: the sampler stores -1 when it could not be); NaN if fewer than two.
   */
  static double diskReadsPerSecond(List<Sample> samples, double from, double to) {
    Sample[] ends = ends(samples, from, to, x -> x.diskReads() >= 0);
    return ends == null ? Double.NaN : (ends[1].diskReads() - ends[0].diskReads()) / (ends[1].t() - ends[0].t());
  }

  /**
   * Reads that failed in the 10 s windows that begin in [from, to) ({@link RollingClient#failedReadsPerWindow}).
   * Rounds that follow one another ([a, b), [b, c)) so count each window, and each failed read, in one of them;
   * a round that begins on a window's start owns whole windows, the last one running to the next round's start.
   */
  static long failedReads(long[] failedPerWindow, double from, double to) {
    long n = 0;
    for (int w = firstWindow(from); w < endWindow(to, failedPerWindow.length); w++) {
      n += failedPerWindow[w];
    }
    return n;
  }

  /** The highest read p99 of the 10 s windows that begin in [from, to), NaN if none had a read that returned. */
  static double worstP99(double[] p99PerWindow, double from, double to) {
    double worst = Double.NaN;
    for (int w = firstWindow(from); w < endWindow(to, p99PerWindow.length); w++) {
      double v = p99PerWindow[w];
      if (!Double.isNaN(v) && (Double.isNaN(worst) || v > worst)) {
        worst = v;
      }
    }
    return worst;
  }

  private static int firstWindow(double from) {
    return Math.max(0, (int) Math.ceil(from / RollingClient.HISTOGRAM_SECONDS));
  }

  private static int endWindow(double to, int windows) {
    return Math.min(windows, (int) Math.ceil(to / RollingClient.HISTOGRAM_SECONDS));
  }

  /** The first and the last sample in [from, to] that {@code usable} accepts; null if fewer than two. */
  private static Sample[] ends(List<Sample> samples, double from, double to,
                               java.util.function.Predicate<Sample> usable) {
    Sample first = null;
    Sample last = null;
    for (Sample s : samples) {
      if (usable.test(s) && s.t() >= from && s.t() <= to) {
        if (first == null) {
          first = s;
        }
        last = s;
      }
    }
    return first == null || last == first ? null : new Sample[] {first, last};
  }
}
