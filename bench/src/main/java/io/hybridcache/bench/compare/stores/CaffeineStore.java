package io.hybridcache.bench.compare.stores;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.hybridcache.bench.Sizes;
import io.hybridcache.bench.compare.KvStore;
import io.hybridcache.bench.compare.StoreSettings;
import io.hybridcache.core.api.CacheConfig;

/**
 * Caffeine alone (DRAM only): bounded by the DRAM budget in bytes, each entry weighing what our
 * DRAM tier charges (key + value + {@link CacheConfig#DRAM_ENTRY_OVERHEAD_BYTES}), so the two hold the same
 * number of rows. Its hit ratio is the ceiling of any DRAM-only cache at this budget.
 * Thread-safe (Caffeine is).
 */
public final class CaffeineStore implements KvStore {
  private final Cache<String, byte[]> cache;
  private final long budget;

  public CaffeineStore(StoreSettings s) {
    budget = s.dramBytes();
    cache = Caffeine.newBuilder()
        .maximumWeight(budget)
        .weigher((String k, byte[] v) -> k.length() + v.length + CacheConfig.DRAM_ENTRY_OVERHEAD_BYTES)
        .build();
  }

  @Override
  public byte[] get(String key) {
    return cache.getIfPresent(key);
  }

  @Override
  public void put(String key, byte[] value) {
    cache.put(key, value);
  }

  @Override
  public boolean delete(String key) {
    return cache.asMap().remove(key) != null;
  }

  @Override
  public String describe() {
    return "caffeine: maximumWeight " + Sizes.format(budget) + " (key + value + " + CacheConfig.DRAM_ENTRY_OVERHEAD_BYTES + " B per entry)";
  }

  @Override
  public void close() {
    cache.invalidateAll();
  }
}
