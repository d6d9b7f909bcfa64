package io.hybridcache.bench.cassandra;

import java.util.ArrayList;
import java.util.List;

/**
 * When a warm-up has lasted long enough: the row cache hit ratio is measured over consecutive
 * windows (hits and requests counted by the node over each window alone, not since start), and the
 * warm-up stops once a window's ratio gains less than {@code minGain} (0.01 = one point) over the
 * window before it — the cache, flash tier included, holds what the request distribution keeps
 * asking for — or once {@code maxSeconds} have passed, whichever comes first. At least two windows
 * are needed to see a gain. Not thread-safe: one warm-up, one thread.
 */
final class WarmupRule {
  /** Why a warm-up ended. */
  enum Stop { PLATEAU, MAX_TIME }

  private final double minGain;
  private final double maxSeconds;
  private final List<Double> ratios = new ArrayList<>();

  WarmupRule(double minGain, double maxSeconds) {
    if (!(minGain >= 0 && minGain < 1) || !(maxSeconds > 0)) {
      throw new IllegalArgumentException("minGain in [0, 1) and maxSeconds > 0, were " + minGain + ", " + maxSeconds);
    }
    this.minGain = minGain;
    this.maxSeconds = maxSeconds;
  }

  /** The hit ratio of one window from the node's cumulative {hits, requests} at its start and end. */
  static double windowRatio(long[] before, long[] after) {
    long requests = after[1] - before[1];
    return requests <= 0 ? 0 : (double) (after[0] - before[0]) / requests;
  }

  /**
   * Records the ratio of the window that just ended, {@code elapsedSeconds} after the warm-up began;
   * returns why to stop now, or null to run another window.
   */
  Stop afterWindow(double ratio, double elapsedSeconds) {
    ratios.add(ratio);
    int n = ratios.size();
    if (n >= 2 && ratios.get(n - 1) - ratios.get(n - 2) < minGain) {
      return Stop.PLATEAU;
    }
    return elapsedSeconds >= maxSeconds ? Stop.MAX_TIME : null;
  }

  /** The windows' hit ratios so far, in order. */
  List<Double> ratios() {
    return List.copyOf(ratios);
  }

  /** The last window's hit ratio (NaN before the first window). */
  double lastRatio() {
    return ratios.isEmpty() ? Double.NaN : ratios.get(ratios.size() - 1);
  }
}
