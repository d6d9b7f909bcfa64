package io.hybridcache.bench.smalldesign;

import java.util.SplittableRandom;

/**
 * The request stream of the design study: a look-aside cache's gets and puts over a key universe, keys drawn
 * uniformly or by a Zipfian law (rank 1 = key 0, the hottest); a get that misses inserts the key (the
 * application's fill), a put always inserts (a new version). Deterministic for a seed. Not thread-safe.
 *
 * <p>Zipf sampling is Hörmann and Derflinger's rejection-inversion (ACM TOMACS 1996), as in Apache Commons
 * RNG: O(1) per draw with no table, exact for any exponent &gt; 0.
 */
final class Workload {
  enum Distribution { UNIFORM, ZIPF }

  private final SplittableRandom random;
  private final int universe;
  private final double getRatio;
  private final Zipf zipf;

  Workload(Distribution distribution, int universe, double zipfExponent, double getRatio, long seed) {
    this.random = new SplittableRandom(seed);
    this.universe = universe;
    this.getRatio = getRatio;
    this.zipf = distribution == Distribution.ZIPF ? new Zipf(universe, zipfExponent) : null;
  }

  int nextKey() {
    return zipf == null ? random.nextInt(universe) : zipf.sample(random) - 1;
  }

  boolean nextIsGet() {
    return random.nextDouble() < getRatio;
  }

  /** Rejection-inversion sampler of ranks 1..n with P(k) proportional to k^-s. */
  static final class Zipf {
    private final int n;
    private final double s;
    private final double hIntegralX1;
    private final double hIntegralN;
    private final double threshold;

    Zipf(int n, double s) {
      if (n < 1 || !(s > 0)) {
        throw new IllegalArgumentException("Zipf needs n >= 1 and exponent > 0: n=" + n + ", s=" + s);
      }
      this.n = n;
      this.s = s;
      this.hIntegralX1 = hIntegral(1.5) - 1;
      this.hIntegralN = hIntegral(n + 0.5);
      this.threshold = 2 - hIntegralInverse(hIntegral(2.5) - h(2));
    }

    int sample(SplittableRandom r) {
      while (true) {
        double u = hIntegralN + r.nextDouble() * (hIntegralX1 - hIntegralN);
        double x = hIntegralInverse(u);
        int k = (int) Math.max(1, Math.min(n, Math.round(x)));
        if (k - x <= threshold || u >= hIntegral(k + 0.5) - h(k)) {
          return k;
        }
      }
    }

    private double h(double x) {
      return Math.exp(-s * Math.log(x));
    }

    private double hIntegral(double x) {
      double logX = Math.log(x);
      return helper2((1 - s) * logX) * logX;
    }

    private double hIntegralInverse(double x) {
      double t = Math.max(-1, x * (1 - s));
      return Math.exp(helper1(t) * x);
    }

    private static double helper1(double x) {
      return Math.abs(x) > 1e-8 ? Math.log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
    }

    private static double helper2(double x) {
      return Math.abs(x) > 1e-8 ? Math.expm1(x) / x : 1 + x * 0.5 * (1 + x / 3 * (1 + 0.25 * x));
    }
  }
}
