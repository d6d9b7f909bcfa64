package io.hybridcache.jcache;

import javax.cache.management.CacheStatisticsMXBean;

/**
 * A cache's JCache statistics ({@code javax.cache:type=CacheStatistics,...}, registered while statistics are
 * enabled) and what only this provider counts. Also {@code cache.unwrap(HybridCacheStatisticsMXBean.class)}.
 */
public interface HybridCacheStatisticsMXBean extends CacheStatisticsMXBean {
  /**
   * Stored values that did not decode (their class changed incompatibly or is gone after a deploy, the
   * {@code serial-filter} now refuses them, another codec wrote them): each was read as a miss and removed.
   * Counted whether statistics are enabled or not; {@link #clear()} resets it with the other counts.
   */
  long getUndecodableValues();

  /**
   * Writes of entries the engine cannot keep as asked: a key over 65,535 bytes encoded (not stored; a read of it
   * is a miss), an entry over the flash tier's largest entry ({@code write-buffer-bytes}: kept in DRAM only, lost
   * at its eviction and at a restart) or over the DRAM budget ({@code dram-bytes}: kept on flash only; over
   * both, not stored). The first per cache is logged at WARN. Counted whether statistics are enabled or not;
   * {@link #clear()} resets it.
   */
  long getOversizedEntries();

  /**
   * The DRAM-tier bytes (key + value + per-entry overhead) this cache holds now, counted by the engine for a cache
   * with a cap ({@code cache.NAME.dram-bytes} or {@code flash-bytes}, or {@code cache.default}'s); -1 for a cache
   * without one. At most its {@code dram-bytes}.
   */
  long getDramBytesHeld();

  /**
   * The flash bytes this cache's entries take (superseded ones included, until reclaim frees their segment; each
   * entry in the index's size classes, a little above its header + key + value), counted by the engine for a cache with a cap; -1 for a cache without one. At
   * most its {@code flash-bytes} plus one entry per thread writing at that moment.
   */
  long getFlashBytesHeld();
}
