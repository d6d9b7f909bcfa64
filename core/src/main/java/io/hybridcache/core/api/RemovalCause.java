package io.hybridcache.core.api;

/** Why an entry left the cache, or left DRAM for flash, as told to a {@link RemovalListener}. */
public enum RemovalCause {
  /** {@link HybridCache#remove} removed it (from both tiers). */
  EXPLICIT,
  /** Its time to live ran out while it was in DRAM. */
  EXPIRED,
  /**
   * DRAM evicted it for space and flash keeps it: a dirty entry was handed to the flash writer (a write
   * fault after this loses it untold), a clean copy's entry was still on flash.
   */
  EVICTED_FROM_DRAM,
  /**
   * It is gone from both tiers: DRAM evicted it and flash did not take it (too large, refused by
   * admission, the flash tier busy past {@code cascadeWait} or degraded), or flash dropped it for room (the
   * log engine's reclaim; the small-object engine's log reclaim or a set rewrite).
   */
  EVICTED;

  /** True when the entry is gone from the cache (every cause but {@link #EVICTED_FROM_DRAM}). */
  public boolean wasRemoved() {
    return this != EVICTED_FROM_DRAM;
  }
}
