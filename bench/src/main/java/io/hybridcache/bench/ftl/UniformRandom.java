package io.hybridcache.bench.ftl;

import java.util.SplittableRandom;

/**
 * The workload of the closed form: uniform random single-page writes over a fixed set of user pages,
 * on a device of 1024 blocks of 64 pages. Deterministic (seeded). Stateless and thread-safe.
 */
public final class UniformRandom {
  public static final int PAGES_PER_BLOCK = 64;
  public static final int BLOCKS = 1024;

  private UniformRandom() {}

  /**
   * Device write amplification at {@code utilization} = user pages / physical pages: every user page
   * written once, then 8 x the user pages of random writes to warm up, then 8 x measured.
   */
  public static double writeAmplification(Ftl.Victim victim, double utilization) {
    int user = (int) Math.round(utilization * PAGES_PER_BLOCK * BLOCKS);
    Ftl ftl = new Ftl(PAGES_PER_BLOCK, BLOCKS, user, victim);
    SplittableRandom rnd = new SplittableRandom(42);
    for (int i = 0; i < user; i++) {
      ftl.write(i, 0);
    }
    for (long i = 0; i < 8L * user; i++) {
      ftl.write(rnd.nextInt(user), 0);
    }
    ftl.resetCounters();
    for (long i = 0; i < 8L * user; i++) {
      ftl.write(rnd.nextInt(user), 0);
    }
    if (ftl.validPages() != user) {
      throw new IllegalStateException("lost pages: " + ftl.validPages() + " valid of " + user);
    }
    return ftl.writeAmplification();
  }
}
