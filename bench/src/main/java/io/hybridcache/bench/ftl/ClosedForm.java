package io.hybridcache.bench.ftl;

/**
 * The closed form of write amplification for a log-structured FTL with FIFO ("LRW") victim selection
 * under uniform random single-page writes (Hu et al., SYSTOR'09; Desnoyers, SYSTOR'12):
 * {@code WA = a / (a + W(-a e^-a))}, {@code a} = physical pages / user pages, W the principal branch of
 * the Lambert W function. Stateless and thread-safe.
 */
public final class ClosedForm {
  private ClosedForm() {}

  /** Write amplification at {@code utilization} = user pages / physical pages, in (0, 1). */
  public static double fifoWriteAmplification(double utilization) {
    if (!(utilization > 0 && utilization < 1)) {
      throw new IllegalArgumentException("utilization must be in (0, 1): " + utilization);
    }
    double a = 1 / utilization;
    return a / (a + lambertW0(-a * Math.exp(-a)));
  }

  /**
   * The principal branch W0(x) for x in [-1/e, inf): the w >= -1 with w e^w = x. Halley's iteration
   * from a series start near the branch point, a log start for large x.
   */
  public static double lambertW0(double x) {
    double e = Math.E;
    if (x < -1 / e - 1e-15) {
      throw new IllegalArgumentException("W0 is defined for x >= -1/e: " + x);
    }
    if (x <= -1 / e) {
      return -1;
    }
    double w;
    if (x < -0.25) {
      double p = Math.sqrt(2 * (e * x + 1));
      w = -1 + p - p * p / 3 + 11 * p * p * p / 72;
    } else if (x < 3) {
      w = 0.5 * Math.log1p(x) + 0.2 * x / (1 + x); // rough; Halley fixes it
    } else {
      double l = Math.log(x);
      w = l - Math.log(l);
    }
    for (int i = 0; i < 64; i++) {
      double ew = Math.exp(w);
      double f = w * ew - x;
      double next = w - f / (ew * (w + 1) - (w + 2) * f / (2 * w + 2));
      if (Math.abs(next - w) <= 1e-15 * (1 + Math.abs(next))) {
        return next;
      }
      w = next;
    }
    return w;
  }
}
