package io.hybridcache.core.api;

/**
 * Decides which dirty DRAM evictions are written to flash: flash endurance is a budget (CacheLib navy
 * AdmissionPolicy). Implementations are thread-safe: {@link #accept} is called from the evicting
 * caller's thread, concurrently.
 */
public interface AdmissionPolicy {

  /** True to write the entry with key hash {@code keyHash} and {@code bytes} on flash to flash. */
  boolean accept(long keyHash, int bytes);

  /** Entries refused so far. */
  long rejected();

  /** Short name for stats and logs. */
  String name();
}
