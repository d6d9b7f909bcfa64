package io.hybridcache.bench.compare.stores;

import io.hybridcache.bench.Sizes;
import io.hybridcache.bench.compare.KvStore;
import io.hybridcache.bench.compare.StoreSettings;
import org.ehcache.Cache;
import org.ehcache.PersistentCacheManager;
import org.ehcache.config.builders.CacheConfigurationBuilder;
import org.ehcache.config.builders.CacheManagerBuilder;
import org.ehcache.config.builders.ResourcePoolsBuilder;
import org.ehcache.config.units.EntryUnit;
import org.ehcache.config.units.MemoryUnit;
import org.ehcache.impl.serialization.ByteArraySerializer;
import org.ehcache.impl.serialization.StringSerializer;

/**
 * Ehcache 3 with three tiers: heap, off-heap and a persistent disk tier. Thread-safe (Ehcache's
 * cache is; {@link #close} must not race the other calls, as for every {@link KvStore}).
 *
 * <p>Budget: the DRAM budget is heap + off-heap together. An eighth of it is the heap tier, sized
 * in entries (Ehcache sizes a heap tier in bytes only by walking object graphs, which is slow) at
 * {@value #HEAP_ENTRY_OVERHEAD} B over the average value per entry; the rest is the off-heap tier,
 * in bytes. The disk tier is the disk room ({@code diskBytes}) in a file under the store's
 * directory, persistent across a clean close. Outside the budget: the disk tier's hash index,
 * which Ehcache keeps in off-heap memory of its own.
 *
 * <p>The disk tier is the authoritative tier (every entry is there; the faster tiers hold copies)
 * but it is a cache too: beyond {@code diskBytes} (or when one of its 16 segments fills) Ehcache
 * evicts, so give it room above the data set. Keys and values go through Ehcache's own {@link
 * StringSerializer} and {@link ByteArraySerializer}; the heap tier keeps values by reference.
 *
 * <p>{@link #delete} asks whether the key is there before removing it (Ehcache's remove does not
 * say); the caller serialises writes of one key, so the answer is exact.
 */
public final class EhcacheStore implements KvStore {
  /** Heap bytes per entry over the value: key string, array header, the heap tier's map node. */
  static final int HEAP_ENTRY_OVERHEAD = 128;
  private static final String ALIAS = "compare";

  private final PersistentCacheManager manager;
  private final Cache<String, byte[]> cache;
  private final long heapEntries;
  private final long offheapBytes;
  private final long diskBytes;

  public EhcacheStore(StoreSettings s) {
    long heapBytes = s.dramBytes() / 8;
    heapEntries = Math.max(1, heapBytes / (s.averageValueBytes() + HEAP_ENTRY_OVERHEAD));
    offheapBytes = s.dramBytes() - heapBytes;
    diskBytes = s.diskBytes();
    manager = CacheManagerBuilder.newCacheManagerBuilder()
        .with(CacheManagerBuilder.persistence(s.directory().toFile()))
        .withCache(ALIAS, CacheConfigurationBuilder.newCacheConfigurationBuilder(String.class, byte[].class,
                ResourcePoolsBuilder.newResourcePoolsBuilder()
                    .heap(heapEntries, EntryUnit.ENTRIES)
                    .offheap(offheapBytes, MemoryUnit.B)
                    .disk(diskBytes, MemoryUnit.B, true))
            .withKeySerializer(new StringSerializer())
            .withValueSerializer(new ByteArraySerializer()))
        .build(true);
    cache = manager.getCache(ALIAS, String.class, byte[].class);
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
    if (!cache.containsKey(key)) {
      return false;
    }
    cache.remove(key);
    return true;
  }

  @Override
  public String describe() {
    return "ehcache: heap " + heapEntries + " entries + off-heap " + Sizes.format(offheapBytes)
        + " (the DRAM budget), persistent disk tier " + Sizes.format(diskBytes);
  }

  /** Closes the cache manager, which writes the disk tier's index so that a reopen finds the data. */
  @Override
  public void close() {
    manager.close();
  }
}
