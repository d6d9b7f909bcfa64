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
 * no JVM flags, default segment size, cascade wait, direct I/O and small-object setting), with only
 * the sizes set. The disk room is the flash tier.
 *
 * <p>Budget rule: every store gets the same DRAM budget for everything it keeps in DRAM beyond the
 * JVM's own heap overhead; ours keeps two things there, the DRAM tier (whose weigher already counts
 * {@link CacheConfig#DRAM_ENTRY_OVERHEAD_BYTES} per entry) and the flash index. The index is charged
 * up front: the larger of its documented bound, {@value #INDEX_BYTES_PER_ENTRY} B per expected entry
 * (README: "at most 16 bytes of DRAM per flash entry"), and what it measures in an empty cache of the
 * same configuration (the default index is presized for the flash room, flash / 512 entries, and holds
 * that room before the first put); the DRAM tier gets the budget less the charge. {@link #indexBytes()}
 * reports what the index measures during the run, so a run shows whether the charge was too small.
 * RocksDB's index and filter blocks are charged to its block cache the same way.
 * Thread-safe (the cache is).
 */
public class HybridCacheStore implements KvStore {
  /** The compact index's bound per flash entry (README; HeapIndex's bucket slots and pairs stay under it). */
  public static final long INDEX_BYTES_PER_ENTRY = 16;
  /** The smallest DRAM tier the charge may leave. */
  static final long MIN_DRAM_TIER = CacheConfig.MIB;
  private final HybridCache cache;
  private final long indexCharge;

  public HybridCacheStore(StoreSettings s) {
    this(s, IndexType.HEAP);
  }

  HybridCacheStore(StoreSettings s, IndexType index) {
    indexCharge = index == IndexType.HEAP
        ? Math.max(INDEX_BYTES_PER_ENTRY * s.expectedEntries(), emptyIndexBytes(config(s, index, s.dramBytes()))) : 0;
    cache = HybridCache.open(config(s, index, dramTier(s.dramBytes(), indexCharge)));
  }

  private static CacheConfig config(StoreSettings s, IndexType index, long dramTier) {
    CacheConfig.Builder b = CacheConfig.builder(s.directory())
        .name("compare")
        .dramBytes(dramTier)
        .flashBytes(s.diskBytes());
    if (index != IndexType.HEAP) {
      b.indexType(index).expectedEntries(s.expectedEntries());
    }
    return b.build();
  }

  /** The index DRAM of an empty cache of {@code config} (opened, measured, closed and its files deleted). */
  static long emptyIndexBytes(CacheConfig config) {
    try (HybridCache probe = HybridCache.open(config)) {
      return probe.stats().indexMemoryBytes();
    } finally {
      try {
        HybridCache.deleteFiles(config.directory());
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException("cannot delete the index probe's files in " + config.directory(), e);
      }
    }
  }

  /** The DRAM tier the budget leaves once the index is charged; fails if it leaves less than 1 MiB. */
  static long dramTier(long budget, long indexCharge) {
    long tier = budget - indexCharge;
    if (tier < MIN_DRAM_TIER) {
      throw new IllegalArgumentException("the DRAM budget " + Sizes.format(budget) + " less the index's charge "
          + Sizes.format(indexCharge) + " leaves " + Sizes.format(Math.max(0, tier)) + " for the DRAM tier, under "
          + Sizes.format(MIN_DRAM_TIER) + ": give more --dram or fewer records");
    }
    return tier;
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
    return "hybridcache: DRAM tier " + Sizes.format(c.dramBytes()) + (indexCharge > 0 ? " (the budget less the index's charge "
        + Sizes.format(indexCharge) + ")" : "") + ", flash " + Sizes.format(c.flashBytes()) + " in "
        + Sizes.format(c.segmentBytes()) + " segments, direct I/O " + c.directIo() + ", index "
        + c.indexType().name().toLowerCase(Locale.ROOT) + ", small-object share " + c.smallObjectShare()
        + ", cascade wait " + c.cascadeWait().toMillis() + " ms";
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
