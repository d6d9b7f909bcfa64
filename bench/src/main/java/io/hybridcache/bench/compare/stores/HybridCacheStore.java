package io.hybridcache.bench.compare.stores;

import io.hybridcache.bench.Sizes;
import io.hybridcache.bench.compare.KvStore;
import io.hybridcache.bench.compare.StoreSettings;
import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.IndexType;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * This library in the comparison, as its users run it: the default configuration (the compact index,
 * no JVM flags, default segment size, buffers, cascade wait, direct I/O and small-object setting), with
 * only the sizes set: the DRAM tier is the budget less what {@link OurDramBudget} charges for the index
 * and the write buffers (the total the budget derives, which the cache then keeps), the flash tier the disk
 * room. Thread-safe (the cache is).
 */
public class HybridCacheStore implements KvStore {
  private final HybridCache cache;
  private final long indexCharge;
  private final long bufferCharge;

  public HybridCacheStore(StoreSettings s) {
    this(s, IndexType.HEAP);
  }

  HybridCacheStore(StoreSettings s, IndexType index) {
    CacheConfig sizes = config(s, index, s.dramBytes());
    indexCharge = OurDramBudget.indexCharge(sizes, index, s.expectedEntries());
    bufferCharge = OurDramBudget.bufferBytes(sizes);
    // the sizes' configuration with the smaller tier, keeping the write buffers it was charged for (the
    // smaller tier alone could derive fewer)
    cache = HybridCache.open(sizes.toBuilder()
        .dramBytes(OurDramBudget.dramTier(s.dramBytes(), indexCharge + bufferCharge))
        .writeBuffersTotal(sizes.writeBuffersTotal()).build());
  }

  /** The default configuration with the comparison's sizes (and the Chronicle index's sizing if chosen). */
  static CacheConfig config(StoreSettings s, IndexType index, long dramTier) {
    CacheConfig.Builder b = CacheConfig.builder(s.directory())
        .name("compare")
        .dramBytes(dramTier)
        .flashBytes(s.diskBytes());
    if (index != IndexType.HEAP) {
      b.indexType(index).expectedEntries(s.expectedEntries());
    }
    return b.build();
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
    return "hybridcache: DRAM tier " + Sizes.format(c.dramBytes()) + " (the budget less the index's charge "
        + Sizes.format(indexCharge) + " and the write buffers' " + Sizes.format(bufferCharge) + "), flash "
        + Sizes.format(c.flashBytes()) + " in " + Sizes.format(c.segmentBytes()) + " segments, direct I/O "
        + c.directIo() + ", index " + c.indexType().name().toLowerCase(Locale.ROOT) + ", small-object share "
        + c.smallObjectShare() + ", cascade wait " + c.cascadeWait().toMillis() + " ms";
  }

  @Override
  public String counters() {
    CacheStats s = cache.stats();
    return String.format(Locale.ROOT,
        "gets %,d: DRAM hits %,d, flash hits %,d, misses %,d; %,d device reads; %,d flash entries; index %s (charged %s);"
            + " evictions refused %,d, waited %,d",
        s.gets(), s.dramHits(), s.flashHits(), s.misses(), s.deviceReads(), s.flashEntries(),
        Sizes.format(s.indexMemoryBytes()), Sizes.format(indexCharge), s.queueRejected(), s.cascadeWaits());
  }

  /** The configuration the cache runs with. */
  public CacheConfig config() {
    return cache.config();
  }

  @Override
  public long indexBytes() {
    return cache.stats().indexMemoryBytes();
  }

  @Override
  public long indexChargeBytes() {
    return indexCharge;
  }

  @Override
  public void close() {
    cache.close();
  }
}
