package io.hybridcache.bench.cassandra;

import java.util.ArrayList;
import java.util.List;

/**
 * When a warm-up has lasted long enough. The row cache hit ratio is measured over consecutive
 * windows (hits and requests counted by the node over each window alone, not since start), and the
 * warm-up stops at the first of:
 * <ul>
 *   <li>{@link Stop#PLATEAU}: over the last {@code plateauWindows} windows the ratio rose by less
 *       than {@code minGain} in all (0.01 = one point), so one noisy window neither ends a warm-up
 *       that is still rising nor keeps one going that has stopped;
 *   <li>{@link Stop#FLASH_FULL}: the flash tier is full (its reclaim has begun: what it holds now
 *       is what the cache keeps) and the last window gained less than {@code minGain} over the one
 *       before; only for a provider with a flash tier, which reports it;
 *   <li>{@link Stop#MAX_TIME}: {@code maxSeconds} have passed, a safety cap: a warm-up that ends
 *       here was still rising, and the report says so.
 * </ul>
 * Not thread-safe: one warm-up, one thread.
 */
final class WarmupRule {
  /** Why a warm-up ended. */
  enum Stop { PLATEAU, FLASH_FULL, MAX_TIME }

  private final double minGain;
  private final int plateauWindows;
  private final double maxSeconds;
  private final List<Double> ratios = new ArrayList<>();

  /**
   * @param minGain the least rise that counts as still warming, in [0, 1)
   * @param plateauWindows how many windows the plateau is measured over, at least 1
   * @param maxSeconds the safety cap, above 0
   */
  WarmupRule(double minGain, int plateauWindows, double maxSeconds) {
    if (!(minGain >= 0 && minGain < 1)) {
      throw new IllegalArgumentException("minGain must be in [0, 1), was " + minGain);
    }
    if (plateauWindows < 1) {
      throw new IllegalArgumentException("plateauWindows must be at least 1, was " + plateauWindows);
    }
    if (!(maxSeconds > 0)) {
      throw new IllegalArgumentException("maxSeconds must be above 0, was " + maxSeconds);
    }
    this.minGain = minGain;
    this.plateauWindows = plateauWindows;
    this.maxSeconds = maxSeconds;
  }

  /** The hit ratio of one window from the node's cumulative {hits, requests} at its start and end. */
  static double windowRatio(long[] before, long[] after) {
    long requests = after[1] - before[1];
    return requests <= 0 ? 0 : (double) (after[0] - before[0]) / requests;
  }

  /**
   * Records the ratio of the window that just ended, {@code elapsedSeconds} after the warm-up began;
   * {@code flashFull} is whether the flash tier is full now (null: no flash tier, or not known).
   * Returns why to stop now, or null to run another window.
   */
  Stop afterWindow(double ratio, double elapsedSeconds, Boolean flashFull) {
    ratios.add(ratio);
    int n = ratios.size();
    if (n > plateauWindows && ratio - ratios.get(n - 1 - plateauWindows) < minGain) {
      return Stop.PLATEAU;
    }
    if (Boolean.TRUE.equals(flashFull) && n >= 2 && ratio - ratios.get(n - 2) < minGain) {
      return Stop.FLASH_FULL;
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

  /** The last window's gain over the one before (NaN with fewer than two windows). */
  double lastGain() {
    int n = ratios.size();
    return n < 2 ? Double.NaN : ratios.get(n - 1) - ratios.get(n - 2);
  }
}
