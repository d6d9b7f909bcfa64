package io.hybridcache.bench.compare.stores;

import io.hybridcache.bench.Sizes;
import io.hybridcache.bench.compare.KvStore;
import io.hybridcache.bench.compare.StoreSettings;
import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.IndexType;
import java.net.URI;
import java.util.Properties;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.spi.CachingProvider;

/**
 * This library through the standard doorway: a {@code javax.cache.Cache<String, byte[]>} of its JSR-107
 * provider (store-by-value, eternal, no statistics), on a manager whose properties give the same directory,
 * DRAM and flash budgets and segment size as {@link HybridCacheStore}. What differs from that store: the
 * JCache layer (the key's namespace prefix, the stored expiry header, a copy per get) and the engine's
 * default (heap) index (the provider has no index setting). Thread-safe (the cache is).
 */
public final class HybridJCacheStore implements KvStore {
  static final String PROVIDER = "io.hybridcache.jcache.HybridCachingProvider";
  private final CacheManager manager;
  private final Cache<String, byte[]> cache;
  private final long indexCharge;

  public HybridJCacheStore(StoreSettings s) {
    CachingProvider provider = Caching.getCachingProvider(PROVIDER);
    Properties p = new Properties();
    p.setProperty("directory", s.directory().toString());
    // the provider's defaults and OurDramBudget's rule (the compact index and the direct buffers charged to the budget)
    CacheConfig sizes = HybridCacheStore.config(s, IndexType.HEAP, s.dramBytes());
    indexCharge = OurDramBudget.heapIndexCharge(s.expectedEntries());
    p.setProperty("dram-bytes", Long.toString(OurDramBudget.dramTier(s.dramBytes(),
        indexCharge + OurDramBudget.bufferBytes(sizes))));
    p.setProperty("flash-bytes", Long.toString(s.diskBytes()));
    manager = provider.getCacheManager(URI.create("compare-" + s.directory().toAbsolutePath()),
        provider.getDefaultClassLoader(), p);
    try {
      cache = manager.createCache("compare",
          new MutableConfiguration<String, byte[]>().setTypes(String.class, byte[].class));
    } catch (RuntimeException e) {
      manager.close();
      throw e;
    }
  }

  @Override
  public byte[] get(String key) {
    return cache.get(key);
  }

  @Override
  public void put(String key, byte[] value) {
    cache.put(key, value);
  }

  @Override
  public boolean delete(String key) {
    return cache.remove(key);
  }

  @Override
  public String describe() {
    CacheConfig c = manager.unwrap(HybridCache.class).config();
    return "hybridcache through JCache: DRAM tier " + Sizes.format(c.dramBytes()) + ", flash "
        + Sizes.format(c.flashBytes()) + " in " + Sizes.format(c.segmentBytes()) + " segments, direct I/O "
        + c.directIo() + ", index " + c.indexType().name().toLowerCase();
  }

  @Override
  public String counters() {
    CacheStats s = manager.unwrap(HybridCache.class).stats();
    return String.format(java.util.Locale.ROOT, "gets %,d: DRAM hits %,d, flash hits %,d, misses %,d; %,d flash entries",
        s.gets(), s.dramHits(), s.flashHits(), s.misses(), s.flashEntries());
  }

  @Override
  public long indexBytes() {
    return manager.unwrap(HybridCache.class).stats().indexMemoryBytes();
  }

  @Override
  public long indexChargeBytes() {
    return indexCharge;
  }

  @Override
  public void close() {
    manager.close();
  }
}
