package io.hybridcache.core.engine;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * One-dimensional k-means with k-means++ seeding (Arthur and Vassilvitskii, SODA'07), as FileStream's
 * remapper uses it on one feature. Deterministic for a given random source. Stateless; thread-safe.
 */
final class KMeans {
  private KMeans() {}

  /**
   * Clusters {@code x} into at most {@code k} clusters (fewer if there are fewer distinct values);
   * returns the centers sorted ascending.
   */
  static double[] cluster(double[] x, int k, SplittableRandom random) {
    double[] distinct = Arrays.stream(x).distinct().sorted().toArray();
    k = Math.min(k, distinct.length);
    if (k <= 0) {
      return new double[0];
    }
    double[] centers = new double[k];
    centers[0] = x[random.nextInt(x.length)];
    double[] d2 = new double[x.length];
    for (int c = 1; c < k; c++) {
      double total = 0;
      for (int i = 0; i < x.length; i++) {
        double best = Double.POSITIVE_INFINITY;
        for (int j = 0; j < c; j++) {
          best = Math.min(best, (x[i] - centers[j]) * (x[i] - centers[j]));
        }
        d2[i] = best;
        total += best;
      }
      double r = random.nextDouble() * total;
      int pick = x.length - 1;
      for (int i = 0; i < x.length; i++) {
        r -= d2[i];
        if (r < 0 && d2[i] > 0) {
          pick = i;
          break;
        }
      }
      centers[c] = x[pick];
    }
    int[] assign = new int[x.length];
    for (int iter = 0; iter < 100; iter++) {
      boolean moved = false;
      for (int i = 0; i < x.length; i++) {
        int a = nearest(centers, x[i]);
        moved |= a != assign[i] || iter == 0;
        assign[i] = a;
      }
      double[] sum = new double[k];
      int[] count = new int[k];
      for (int i = 0; i < x.length; i++) {
        sum[assign[i]] += x[i];
        count[assign[i]]++;
      }
      for (int c = 0; c < k; c++) {
        if (count[c] > 0) {
          centers[c] = sum[c] / count[c];
        }
      }
      if (!moved) {
        break;
      }
    }
    double[] used = Arrays.stream(centers).distinct().sorted().toArray();
    return used;
  }

  /** Index of the center closest to {@code v} (the lower one on a tie). */
  static int nearest(double[] centers, double v) {
    int best = 0;
    for (int c = 1; c < centers.length; c++) {
      if (Math.abs(v - centers[c]) < Math.abs(v - centers[best])) {
        best = c;
      }
    }
    return best;
  }
}
