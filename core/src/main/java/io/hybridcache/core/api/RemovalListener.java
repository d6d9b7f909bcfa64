package io.hybridcache.core.api;

/**
 * Told when an entry leaves the cache or moves from DRAM to flash ({@link CacheConfig.Builder#removalListener}).
 * Called on {@link CacheConfig#removalExecutor()} (the common fork-join pool by default), never on the
 * thread that caused the removal and never under the cache's locks, so it may call the cache. Calls for
 * one key are not ordered with each other. An exception it throws is logged and does not reach the cache.
 *
 * <p>Not told: {@link HybridCache#clear()} (a bulk drop), entries lost to a fault whose keys cannot be read (a
 * damaged flash segment; in the small-object engine a poisoned set or the engine emptied after a fault: counted
 * in {@link CacheStats#entriesDropped()}), and entries replaced by a newer put. Entries that leave flash for room
 * are told as {@link RemovalCause#EVICTED} by both flash engines (the small engine's log drops and set
 * evictions: {@link CacheStats#reclaimEvicted()}).
 */
@FunctionalInterface
public interface RemovalListener {

  /**
   * @param key the key (the listener's own copy)
   * @param value the value when the tier that lost it held it in memory or read it (DRAM, flash reclaim),
   *     else null
   * @param cause why
   */
  void onRemoval(byte[] key, byte[] value, RemovalCause cause);
}
