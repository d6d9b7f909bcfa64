package io.hybridcache.jcache;

/**
 * What this provider counts per cache ({@link HybridCacheStatisticsMXBean}'s own figures), as totals since the cache
 * was created: never reset, so they only grow, as a monitoring system's counter must (Micrometer's function
 * counters, a Prometheus counter). The MXBean's {@code clear()} (the JCache statistics' reset, e.g. from JConsole)
 * resets its figures, not these: each MXBean figure is its total less the total at the last clear. Counted whether
 * statistics are enabled or not. {@code cache.unwrap(HybridCacheCounts.class)}; the Spring Boot starter's per-cache
 * meters read them. Thread-safe.
 */
public interface HybridCacheCounts {
  /** Total of {@link HybridCacheStatisticsMXBean#getUndecodableValues()}. */
  long undecodableValues();

  /** Total of {@link HybridCacheStatisticsMXBean#getOversizedEntries()}. */
  long oversizedEntries();

  /** Total of {@link HybridCacheStatisticsMXBean#getDramHits()}. */
  long dramHits();

  /** Total of {@link HybridCacheStatisticsMXBean#getFlashHits()}. */
  long flashHits();

  /** Total of {@link HybridCacheStatisticsMXBean#getEvictedEntries()}. */
  long evictedEntries();

  /** Total of {@link HybridCacheStatisticsMXBean#getRejectedEntries()}. */
  long rejectedEntries();

  /** Total of {@link HybridCacheStatisticsMXBean#getBackgroundFailures()}. */
  long backgroundFailures();
}
