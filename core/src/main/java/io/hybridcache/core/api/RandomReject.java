package io.hybridcache.core.api;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/** Admits each eviction with a fixed probability. Thread-safe: thread-local random, LongAdder counter. */
public final class RandomReject implements AdmissionPolicy {
  private final double acceptProbability;
  private final LongAdder rejected = new LongAdder();

  /** @param acceptProbability in [0, 1]; 0.7 admits about 70% of evictions */
  public RandomReject(double acceptProbability) {
    if (!(acceptProbability >= 0 && acceptProbability <= 1)) {
      throw new IllegalArgumentException("admission.acceptProbability must be in [0, 1]: " + acceptProbability);
    }
    this.acceptProbability = acceptProbability;
  }

  @Override
  public boolean accept(long keyHash, int bytes) {
    if (ThreadLocalRandom.current().nextDouble() < acceptProbability) {
      return true;
    }
    rejected.increment();
    return false;
  }

  @Override
  public long rejected() {
    return rejected.sum();
  }

  @Override
  public String name() {
    return "random(" + acceptProbability + ")";
  }
}
