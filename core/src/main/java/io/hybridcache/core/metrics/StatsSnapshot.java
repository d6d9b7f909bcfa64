package io.hybridcache.core.metrics;

import io.hybridcache.core.api.CacheStats;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The newest stats snapshot of one cache, shared by all the meters of one binder, so that a scrape
 * (some forty meter reads within microseconds) takes one snapshot instead of one per meter: a snapshot
 * walks the segment table and sums every counter. A snapshot at least {@code maxAgeNanos} old is
 * replaced at the next read; a max age of 0 takes a fresh one at every read.
 *
 * <p>Holds no reference to the cache: each read is handed it by the meter, which Micrometer holds
 * weakly, so a registry never keeps a cache alive. Thread-safe: two readers of a stale snapshot may
 * both take a new one; either is a valid snapshot and the last written is kept.
 *
 * @param <T> what the meters hold (the cache, or a stats supplier in tests)
 */
final class StatsSnapshot<T> {
  private record Taken(CacheStats stats, long atNanos) {}

  private final Function<T, CacheStats> statsOf;
  private final long maxAgeNanos;
  private final LongSupplier nanoTime;
  private volatile Taken last;

  StatsSnapshot(Function<T, CacheStats> statsOf, long maxAgeNanos, LongSupplier nanoTime) {
    if (maxAgeNanos < 0) {
      throw new IllegalArgumentException("snapshot max age must be >= 0 ns, was " + maxAgeNanos);
    }
    this.statsOf = statsOf;
    this.maxAgeNanos = maxAgeNanos;
    this.nanoTime = nanoTime;
  }

  /** The snapshot of {@code source} taken less than the max age ago, or a new one. */
  CacheStats of(T source) {
    long now = nanoTime.getAsLong();
    Taken t = last;
    if (t == null || now - t.atNanos >= maxAgeNanos) {
      t = new Taken(statsOf.apply(source), now);
      last = t;
    }
    return t.stats;
  }
}
