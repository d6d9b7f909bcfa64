package io.hybridcache.bench.compare.stores;

import io.hybridcache.bench.Sizes;
import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.IndexType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * The one budget rule for every variant of ours in the comparison: everything this library keeps in
 * DRAM fits in the store's DRAM budget. Its DRAM tier's weigher already counts each entry with {@link
 * CacheConfig#DRAM_ENTRY_OVERHEAD_BYTES}; what it keeps beside the tier is charged up front and the tier
 * gets the rest:
 * <ul>
 *   <li>the flash index: the compact index at its documented bound, {@value #HEAP_INDEX_BYTES_PER_ENTRY} B
 *       per expected entry (README: "at most 16 bytes of DRAM per flash entry"); the Chronicle Map index
 *       at what it measures in an empty cache (it is preallocated for the expected entries, off heap);
 *   <li>the write buffers ({@link CacheConfig#writeBuffersTotal()} x (buffer + 4 KiB) of direct memory):
 *       they hold entries on their way to flash and serve reads of them, as RocksDB's memtables, which
 *       are charged to its block cache. The read path's landing buffers cache nothing and, like every
 *       store's transient I/O buffers, are not charged.
 * </ul>
 * The store reports what the index measures during the run beside the charge, and the report warns when
 * the measured index passed its charge. Stateless; thread-safe.
 */
public final class OurDramBudget {
  /** The compact index's bound per flash entry. */
  public static final long HEAP_INDEX_BYTES_PER_ENTRY = 16;
  /** The smallest DRAM tier the charges may leave (the library's minimum). */
  public static final long MIN_DRAM_TIER = CacheConfig.MIB;
  private static final long BUFFER_ALIGNMENT_BYTES = 4096;

  private OurDramBudget() {}

  /** What the write buffers of {@code config} hold at most. */
  public static long bufferBytes(CacheConfig config) {
    return config.writeBuffersTotal() * (config.writeBufferBytes() + BUFFER_ALIGNMENT_BYTES);
  }

  /** The compact index's charge for {@code expectedEntries}. */
  public static long heapIndexCharge(long expectedEntries) {
    return HEAP_INDEX_BYTES_PER_ENTRY * expectedEntries;
  }

  /**
   * What the budget is charged beside the DRAM tier for a cache of {@code sizes} (a configuration whose
   * DRAM tier is not yet set) with {@code index}: the index's charge plus the write buffers.
   */
  static long charge(CacheConfig sizes, IndexType index, long expectedEntries) {
    long indexCharge = index == IndexType.HEAP ? heapIndexCharge(expectedEntries) : emptyIndexBytes(sizes);
    return indexCharge + bufferBytes(sizes);
  }

  /** The index charge alone, as {@link #charge} computes it. */
  static long indexCharge(CacheConfig sizes, IndexType index, long expectedEntries) {
    return charge(sizes, index, expectedEntries) - bufferBytes(sizes);
  }

  /** The DRAM tier the budget leaves once {@code charge} is taken; fails, naming the figures, under 1 MiB. */
  public static long dramTier(long budget, long charge) {
    long tier = budget - charge;
    if (tier < MIN_DRAM_TIER) {
      throw new IllegalArgumentException("the DRAM budget " + Sizes.format(budget) + " less what ours keeps beside its DRAM"
          + " tier (index and write buffers, " + Sizes.format(charge) + ") leaves " + Sizes.format(Math.max(0, tier))
          + ", under the DRAM tier's minimum " + Sizes.format(MIN_DRAM_TIER) + ": give more --dram or fewer records");
    }
    return tier;
  }

  /** The index DRAM of an empty cache of {@code config} (opened, measured, closed, its files deleted). */
  private static long emptyIndexBytes(CacheConfig config) {
    Path dir = config.directory();
    try (HybridCache probe = HybridCache.open(config)) {
      return probe.stats().indexMemoryBytes();
    } finally {
      try {
        HybridCache.deleteFiles(dir);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot delete the index probe's files in " + dir, e);
      }
    }
  }
}
