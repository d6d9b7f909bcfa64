package io.hybridcache.bench.compare.stores;

import io.hybridcache.bench.compare.StoreSettings;
import io.hybridcache.core.api.IndexType;

/**
 * This library with the optional Chronicle Map index ({@link IndexType#CHRONICLE}, sized for the expected
 * entries): off heap, so not charged to the budget (it shows in resident memory and in the memory
 * cgroup), and its JVM needs Chronicle's module flags. Shown beside the default only when named.
 */
public final class HybridCacheChronicleStore extends HybridCacheStore {
  public HybridCacheChronicleStore(StoreSettings s) {
    super(s, IndexType.CHRONICLE);
  }
}
