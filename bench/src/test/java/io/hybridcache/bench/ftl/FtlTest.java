package io.hybridcache.bench.ftl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Validates the simulator before the placement experiment trusts it: uniform random single-page
 * writes with FIFO victims must reproduce the closed form; greedy must not do worse.
 */
class FtlTest {
  /** Measured FIFO write amplification must be within this fraction of the closed form. */
  static final double TOLERANCE = 0.03;

  @Test
  void lambertW() {
    assertEquals(0, ClosedForm.lambertW0(0), 1e-15);
    assertEquals(-1, ClosedForm.lambertW0(-1 / Math.E), 1e-7);
    assertEquals(0.5671432904097838, ClosedForm.lambertW0(1), 1e-14); // the omega constant
    for (double x : new double[] {-0.36, -0.3, -0.1, 0.5, 2, 10, 1e6}) {
      double w = ClosedForm.lambertW0(x);
      assertEquals(x, w * Math.exp(w), 1e-12 * Math.max(1, Math.abs(x)), "x=" + x);
    }
    assertEquals(2.69, ClosedForm.fifoWriteAmplification(0.8), 0.01);
    assertEquals(5.18, ClosedForm.fifoWriteAmplification(0.9), 0.01);
  }

  @Test
  void fifoMatchesTheClosedFormAndGreedyIsNoWorse() {
    for (double u : new double[] {0.8, 0.9}) {
      double expected = ClosedForm.fifoWriteAmplification(u);
      double fifo = UniformRandom.writeAmplification(Ftl.Victim.FIFO, u);
      double greedy = UniformRandom.writeAmplification(Ftl.Victim.GREEDY, u);
      double cb = UniformRandom.writeAmplification(Ftl.Victim.COST_BENEFIT, u);
      System.out.printf("utilization %.2f: closed form %.3f, FIFO %.3f (%+.1f%%), greedy %.3f, cost-benefit %.3f%n",
          u, expected, fifo, 100 * (fifo / expected - 1), greedy, cb);
      assertEquals(expected, fifo, TOLERANCE * expected, "FIFO at " + u);
      assertTrue(greedy <= fifo, "greedy " + greedy + " > FIFO " + fifo);
      assertTrue(cb <= fifo * 1.01, "cost-benefit " + cb + " > FIFO " + fifo);
    }
  }

  @Test
  void streamsKeepBlocksApartAndTrimsFreePages() {
    // two streams: hot pages rewritten all the time, cold ones written once; in one stream the
    // cold pages sit in blocks the hot ones keep invalidating, in two they do not
    int ppb = 32;
    Ftl one = new Ftl(ppb, 64, 1600, Ftl.Victim.GREEDY);
    Ftl two = new Ftl(ppb, 64, 1600, Ftl.Victim.GREEDY);
    SplittableRandom rnd = new SplittableRandom(7);
    for (int round = 0; round < 200; round++) {
      for (int i = 0; i < 40; i++) {
        int cold = rnd.nextInt(1400);
        one.write(cold, 0);
        two.write(cold, 0);
        int hot = 1400 + rnd.nextInt(200);
        one.write(hot, 0);
        two.write(hot, 1);
      }
    }
    assertTrue(two.writeAmplification() < one.writeAmplification(),
        two.writeAmplification() + " vs " + one.writeAmplification());

    Ftl t = new Ftl(ppb, 8, 100, Ftl.Victim.GREEDY);
    t.write(5, 0);
    t.trim(5);
    t.trim(6);
    assertEquals(0, t.validPages());
    assertEquals(1, t.trimmedPages());
    assertThrows(IllegalArgumentException.class, () -> t.write(100, 0));
    assertThrows(IllegalArgumentException.class, () -> new Ftl(ppb, 8, 8 * ppb, Ftl.Victim.FIFO));
  }
}
