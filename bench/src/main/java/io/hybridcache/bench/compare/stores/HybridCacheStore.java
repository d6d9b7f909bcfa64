package io.hybridcache.bench.compare.stores;

import io.hybridcache.bench.Sizes;
import io.hybridcache.bench.compare.KvStore;
import io.hybridcache.bench.compare.StoreSettings;
import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.IndexType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * This library in the comparison: the DRAM budget is the Caffeine tier, the disk room is the flash
 * tier (direct I/O, 16 MiB segments, or 1/16 of a small flash tier), the index is the persisted
 * Chronicle Map sized for the expected entries (not the library's default compact index: its DRAM is
 * off-heap, on top of the budget, and shows in resident memory), and evictions wait for flash room
 * ({@link #CASCADE_WAIT}). Thread-safe (the cache is).
 */
public final class HybridCacheStore implements KvStore {
  /**
   * Evictions wait up to this long for flash room: the library's default, named here because the peers
   * keep every record they acknowledge and ours must too (no wait refuses evictions under a burst such as
   * the load, and shows as a lower hit ratio).
   */
  static final Duration CASCADE_WAIT = CacheConfig.DEFAULT_CASCADE_WAIT;
  private final HybridCache cache;

  public HybridCacheStore(StoreSettings s) {
    CacheConfig config = CacheConfig.builder(s.directory())
        .name("compare")
        .dramBytes(s.dramBytes())
        .flashBytes(s.diskBytes())
        .segmentBytes(segmentBytes(s.diskBytes()))
        .directIo(true)
        .indexType(IndexType.CHRONICLE)
        .expectedEntries(s.expectedEntries())
        .cascadeWait(CASCADE_WAIT)
        .build();
    cache = HybridCache.open(config);
  }

  /** 16 MiB segments, smaller (down to 64 KiB) when the flash room is under 256 MiB: at least 16 segments. */
  static int segmentBytes(long flashBytes) {
    long s = Math.min(16L << 20, flashBytes / 16) & ~4095L;
    return (int) Math.max(64 << 10, s);
  }

  private static byte[] bytes(String key) {
    return key.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public byte[] get(String key) {
    return cache.get(bytes(key));
  }

  @Override
  public void put(String key, byte[] value) {
    cache.put(bytes(key), value);
  }

  @Override
  public boolean delete(String key) {
    return cache.remove(bytes(key));
  }

  @Override
  public String describe() {
    CacheConfig c = cache.config();
    return "hybridcache: DRAM tier " + Sizes.format(c.dramBytes()) + ", flash " + Sizes.format(c.flashBytes())
        + " in " + Sizes.format(c.segmentBytes()) + " segments, direct I/O " + c.directIo() + ", index "
        + c.indexType().name().toLowerCase() + ", cascade wait " + c.cascadeWait().toMillis() + " ms";
  }

  @Override
  public String counters() {
    CacheStats s = cache.stats();
    return String.format(java.util.Locale.ROOT,
        "gets %,d: DRAM hits %,d, flash hits %,d, misses %,d; %,d device reads; %,d flash entries; evictions refused %,d, waited %,d",
        s.gets(), s.dramHits(), s.flashHits(), s.misses(), s.deviceReads(), s.flashEntries(), s.queueRejected(), s.cascadeWaits());
  }

  @Override
  public void close() {
    cache.close();
  }
}
