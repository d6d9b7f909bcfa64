package io.hybridcache.core.api;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Admits evictions while a token bucket of flash bytes per second has room: a cap on the write rate
 * that protects flash endurance. Thread-safe: the bucket is one CAS-updated long.
 *
 * <p>Design: tokens refill continuously at {@code bytesPerSecond} up to one second of burst; an entry
 * is admitted when it can take its size from the bucket.
 */
public final class WriteRateBudget implements AdmissionPolicy {
  private final long bytesPerSecond;
  private final LongSupplier nanoClock;
  private final AtomicLong state; // tokens in the bucket, as of lastRefill
  private volatile long lastRefillNanos;
  private final LongAdder rejected = new LongAdder();

  public WriteRateBudget(long bytesPerSecond) {
    this(bytesPerSecond, System::nanoTime);
  }

  /** With an explicit clock (tests). */
  public WriteRateBudget(long bytesPerSecond, LongSupplier nanoClock) {
    if (bytesPerSecond <= 0) {
      throw new IllegalArgumentException("admission.bytesPerSecond must be > 0: " + bytesPerSecond);
    }
    this.bytesPerSecond = bytesPerSecond;
    this.nanoClock = nanoClock;
    this.lastRefillNanos = nanoClock.getAsLong();
    this.state = new AtomicLong(bytesPerSecond);
  }

  @Override
  public boolean accept(long keyHash, int bytes) {
    refill();
    while (true) {
      long tokens = state.get();
      if (tokens < bytes) {
        rejected.increment();
        return false;
      }
      if (state.compareAndSet(tokens, tokens - bytes)) {
        return true;
      }
    }
  }

  private void refill() {
    long now = nanoClock.getAsLong();
    long last = lastRefillNanos;
    long elapsed = now - last;
    if (elapsed < 1_000_000L) {
      return; // refill at most once per millisecond
    }
    synchronized (this) {
      if (lastRefillNanos != last) {
        return;
      }
      lastRefillNanos = now;
    }
    long add = (long) (elapsed / 1e9 * bytesPerSecond);
    state.getAndUpdate(t -> Math.min(bytesPerSecond, t + add));
  }

  @Override
  public long rejected() {
    return rejected.sum();
  }

  @Override
  public String name() {
    return "write-rate(" + bytesPerSecond + " B/s)";
  }
}
