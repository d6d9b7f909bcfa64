package io.hybridcache.jcache;

import javax.cache.management.CacheStatisticsMXBean;

/**
 * A cache's JCache statistics ({@code javax.cache:type=CacheStatistics,...}, registered while statistics are
 * enabled) and what only this provider counts, per cache and whatever the statistics switch says: undecodable
 * values, oversized entries, hits by tier, evictions and rejections, background failures. Also
 * {@code cache.unwrap(HybridCacheStatisticsMXBean.class)}. The bytes a cache holds in each tier are counted for a
 * cache with a cap ({@link #getDramBytesHeld}, {@link #getFlashBytesHeld}; -1 without one); its entries, and the
 * bytes of a cache without a cap, are not counted per cache (the engine keeps them per engine). {@link #clear()}
 * resets the figures this MXBean shows; the provider's own counts go on as totals that only grow
 * ({@link HybridCacheCounts}, {@code cache.unwrap(HybridCacheCounts.class)}), which monitoring counters read.
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
   * without one. At most its {@code dram-bytes} plus one entry per thread putting into it at that moment (its
   * oldest entries are evicted right after such a put).
   */
  long getDramBytesHeld();

  /**
   * The flash bytes this cache's entries take (superseded ones included, until reclaim frees their segment; each
   * entry in the index's size classes, a little above its header + key + value), counted by the engine for a cache
   * with a cap; -1 for a cache without one. At most its {@code flash-bytes} plus one entry per thread writing at
   * that moment.
   */
  long getFlashBytesHeld();

  /**
   * Hits of {@code get} and {@code getAll} the DRAM tier served (a store-by-reference cache: every such hit, from
   * the heap). With {@link #getFlashHits()}, the hits by tier of this cache; the other operations that find an entry
   * (the {@code getAndPut} kind, {@code invoke}, the iterator) are in {@code CacheHits} only. Counted whether
   * statistics are enabled or not; {@link #clear()} resets it.
   */
  long getDramHits();

  /**
   * Hits of {@code get} and {@code getAll} a flash tier served (the read promoted the entry to DRAM, so the next hit
   * of it is usually a DRAM hit). Counted whether statistics are enabled or not; {@link #clear()} resets it.
   */
  long getFlashHits();

  /**
   * This cache's entries the engine evicted from both tiers for room: DRAM evictions flash did not take, entries
   * flash reclaim dropped (a store-by-reference cache: entries dropped for its {@code max-entries}). Told by key, no
   * device read; an estimate as {@code CacheEvictions} is (an entry whose flash copy reclaim drops while DRAM holds a
   * clean copy of it may be counted twice). Counted whether statistics are enabled or not; {@link #clear()} resets
   * it.
   */
  long getEvictedEntries();

  /**
   * This cache's entries the engine refused to keep: DRAM evictions flash did not take (too large for flash,
   * refused by admission, the flash tier busy past its cascade wait, degraded, its index full, over the cache's
   * {@code flash-bytes} cap; each also an eviction) and writes not stored at all (over both tiers, or a key over the engine's limit: also in
   * {@link #getOversizedEntries()}). Counted whether statistics are enabled or not; {@link #clear()} resets it.
   */
  long getRejectedEntries();

  /**
   * Throwables on the provider's background threads that no caller hears of, each logged at WARN: an asynchronous
   * listener that threw (an Error too; its later events still run), an asynchronous listener's events its manager's
   * pool refused (shut down by a close racing a write: dropped, never thrown to the writer), a {@code loadAll} that
   * failed with no completion listener, and a completion listener that threw. Counted whether statistics are enabled
   * or not; {@link #clear()} resets it.
   */
  long getBackgroundFailures();
}
