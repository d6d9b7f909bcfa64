package io.hybridcache.core.api;

/**
 * Byte caps per key group inside one engine: each group (a JCache cache's namespace, from its key prefix) may
 * hold at most {@link #dramCap} bytes in the DRAM tier and {@link #flashCap} bytes on the log engine's flash,
 * counted exactly per group by the engine ({@link HybridCache#dramBytesOf}, {@link HybridCache#flashBytesOf}).
 * A group over its DRAM cap has its oldest entries (in write order: a put, a load or a promotion) evicted from
 * DRAM, as the DRAM tier evicts for size, so it keeps its newest; a group over its flash cap has its evictions
 * refused, is not reinserted by reclaim, and the reclaimer empties the segment holding most of its bytes: a
 * group at its cap pays with its own entries, never another group's. A write-back (flush, close) is never refused for a cap: it may pass it
 * by the group's dirty DRAM bytes, reclaimed after. A flash cap under two segments may never reclaim (the
 * group's bytes can all sit in the two segments being written, which reclaim does not take): callers should
 * refuse one (the JCache provider does). Caps apply to the log engine only: not with {@link
 * CacheConfig#smallObjectShare()} above 0.
 *
 * <p>Called on the engine's hot paths (every put, eviction and append) and on its maintenance thread: each
 * method must be quick, must not block, must not call the cache, and must be thread-safe.
 */
public interface KeyGroups {
  /** No group: the key is not counted and never capped. */
  long NONE = -1;

  /**
   * The group of {@code key}, or {@link #NONE}; a function of the key's first bytes only (at most {@link
   * CacheConfig#MAX_EVICTION_KEY_BYTES}: an open attributes entries from the key bytes segment summaries keep, or
   * from those first bytes of an entry's key), never negative but for {@code NONE}.
   *
   * @param key the key, or its first bytes zero-padded; valid during the call only
   */
  long groupOf(byte[] key);

  /** The DRAM cap of {@code group} in the DRAM tier's weight (key + value + overhead), or {@link Long#MAX_VALUE}. */
  long dramCap(long group);

  /**
   * The flash cap of {@code group} in the index's sector-rounded entry sizes, or {@link Long#MAX_VALUE}. A cap of 0
   * is a group that takes no flash room (the JCache provider's cleared epochs): its evictions are refused without
   * a reclaim asked for it, and reclaim never reinserts its entries.
   */
  long flashCap(long group);
}
