package io.hybridcache.core.api;

/**
 * Told of each entry that leaves the cache for room, from both tiers (the cases {@link RemovalCause#EVICTED}
 * covers), by key only: no value, no device read, no task per entry. For counting evictions per key group (a
 * JCache cache's namespace prefix) at no I/O cost; a {@link RemovalListener} is the hook that gets values.
 *
 * <p>Called on the thread that evicts: a caller whose DRAM write made room (inside the DRAM tier's atomic removal
 * of the key), or the flash reclaim thread. It must be quick, must not block and must not call the cache. An
 * exception it throws is logged and ignored.
 *
 * <p>What it gets: the whole key when the evicting tier holds it (DRAM, a reclaim that scans its victim, the
 * small-object engine); when reclaim learns the victim's entries from its summary, the first
 * {@link CacheConfig#evictionKeyBytes()} bytes of the key kept there (zero-padded past a shorter key's end), or,
 * if that is 0 or the segment was written without them, the key read from the device (one read per entry).
 * An estimate for counting: an entry whose flash copy reclaim drops while DRAM holds a clean copy of it is told
 * at the reclaim when told by prefix (DRAM cannot be asked by a prefix), and again when DRAM evicts the copy.
 */
@FunctionalInterface
public interface EvictionHook {
  /** @param key the evicted key, or its first {@link CacheConfig#evictionKeyBytes()} bytes; valid during the call only */
  void evicted(byte[] key);

  /**
   * As {@link #evicted}, for an entry DRAM evicted that flash did not take: too large for it, refused by admission,
   * the flash tier busy past {@link CacheConfig#cascadeWait()}, degraded or its index full (the cases
   * {@link CacheStats} counts as rejected at an eviction). Called instead of {@code evicted}, never beside it; the
   * default calls {@code evicted}. A put the engine refuses (too large for both tiers) is no eviction: not told.
   *
   * @param key the whole key; valid during the call only
   */
  default void refused(byte[] key) {
    evicted(key);
  }
}
