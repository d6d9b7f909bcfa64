package io.hybridcache.jcache;

import javax.cache.configuration.CompleteConfiguration;

/**
 * Counts a cache's operations into its {@link Statistics} while its configuration has statistics on, and
 * does nothing otherwise: the one place that checks the switch. The provider's own counts of hits by tier and of
 * evictions and refusals are counted whatever the switch says. Times are measured from a start in
 * {@code System.nanoTime()}. Thread-safe.
 */
final class Recorder {
  private final Statistics stats;
  private final CompleteConfiguration<?, ?> config;

  Recorder(CompleteConfiguration<?, ?> config, Statistics stats) {
    this.config = config;
    this.stats = stats;
  }

  boolean on() {
    return config.isStatisticsEnabled();
  }

  Statistics statistics() {
    return stats;
  }

  /** The start of a timed operation: {@code System.nanoTime()} while statistics are on, else 0 (no clock read). */
  long start() {
    return on() ? System.nanoTime() : 0;
  }

  /** Nanoseconds since {@code start}; 0 for a start taken while statistics were off. */
  private static long since(long start) {
    return start == 0 ? 0 : System.nanoTime() - start;
  }

  /** A get that found an entry (hit) or not (miss). */
  void lookup(boolean hit) {
    if (on()) {
      if (hit) {
        stats.hits(1);
      } else {
        stats.misses(1);
      }
    }
  }

  /** The time of a get since {@code start}. */
  void getSince(long start) {
    if (on()) {
      stats.getTime(since(start));
    }
  }

  /** The time of a put since {@code start} (its count is made by {@link #puts(long)}). */
  void putSince(long start) {
    if (on()) {
      stats.putTime(since(start));
    }
  }

  void puts(long n) {
    if (on() && n > 0) {
      stats.puts(n);
    }
  }

  /** {@code n} entries stored since {@code start} (nothing if none). */
  void puts(long n, long start) {
    if (on() && n > 0) {
      stats.puts(n, since(start));
    }
  }

  /** {@code n} entries removed since {@code start} (nothing if none). */
  void removals(long n, long start) {
    if (on() && n > 0) {
      stats.removals(n, since(start));
    }
  }

  /** A conditional operation (remove or replace with a value, getAndRemove...): a get, hit or miss. */
  void conditional(boolean hit, long start) {
    getSince(start);
    lookup(hit);
  }

  /**
   * An entry the engine evicted ({@code refused}: one flash did not take at its DRAM eviction): counted always
   * ({@link Statistics#getEvictedEntries()}, {@link Statistics#getRejectedEntries()}), and in the JCache
   * evictions while statistics are on.
   */
  void eviction(boolean refused) {
    stats.evicted(refused);
    if (on()) {
      stats.evictions(1);
    }
  }

  /** A hit of a get or getAll, of stored version {@code s}: counted always, by the tier that served it. */
  void served(Stored<?> s) {
    stats.served(s.fromFlash());
  }
}
