package io.hybridcache.core.api;

/**
 * What survives an unclean stop of a cache with the compact ({@link io.hybridcache.core.api.IndexType#HEAP})
 * index, set with {@link CacheConfig.Builder#durability}. Whatever the setting, a restart never serves a
 * version older than the last acknowledged put or remove: what cannot be trusted starts cold.
 *
 * <p>A clean {@link HybridCache#close()} is always warm. After an unclean stop:
 */
public enum Durability {
  /**
   * No checkpoints, no invalidation journal: warm only after a clean close, cold after any crash (the
   * compact index's behaviour before checkpoints; for measuring their cost).
   */
  NONE,
  /**
   * The default. Periodic index checkpoints and a memory-mapped invalidation journal: warm after a
   * process kill (kill -9, OOM kill, a JVM crash). Writes to memory-mapped files that were never synced
   * are lost with the kernel, so after an OS crash or power loss (seen as an unclean stop in another
   * boot) the cache starts cold, for either index type.
   */
  PROCESS,
  /**
   * As {@link #PROCESS}, and every invalidation (a remove, or a put replacing a key that may be on
   * flash) is forced to the device before the call returns: warm also after an OS crash or power loss.
   * Costs a synchronous page write ({@code msync}) on those calls. Compact index only.
   */
  POWER
}
