package io.hybridcache.core.engine;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Rate-limits the WARN that a wait for flash room (or for a flash engine's device) timed out: at most one
 * per {@value #SECONDS} s per engine, so a hung device is said once, not once per refused eviction. The
 * log engine ({@link FlashTier}) and the small engine ({@link SmallTier}) each have one.
 *
 * <p>Thread-safe: one atomic timestamp.
 */
final class StallReports {
  static final int SECONDS = 10;
  private static final long NANOS = TimeUnit.SECONDS.toNanos(SECONDS);

  private final AtomicLong reportedNanos = new AtomicLong(System.nanoTime() - NANOS);

  /** True if the caller is to report now (none reported in the last {@value #SECONDS} s); {@code now} from nanoTime. */
  boolean due(long now) {
    long last = reportedNanos.get();
    return now - last >= NANOS && reportedNanos.compareAndSet(last, now);
  }
}
