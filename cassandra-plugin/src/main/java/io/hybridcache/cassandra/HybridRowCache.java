package io.hybridcache.cassandra;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.cassandra.cache.ICache;
import org.apache.cassandra.cache.IRowCacheEntry;
import org.apache.cassandra.cache.RowCacheKey;
import org.apache.cassandra.cache.RowCacheSentinel;
import org.apache.cassandra.db.partitions.CachedPartition;

/**
 * Cassandra's row cache over a {@link HybridCache}: the DRAM tier sized by {@code row_cache_size},
 * the flash tier below it.
 *
 * <p>Thread-safe. Concurrency: Cassandra's read path does get, then {@code putIfAbsent(sentinel)},
 * reads the partition, then {@code replace(key, sentinel, partition)}; its write path calls
 * {@code remove} after the memtable write. A sentinel cannot be serialized, so sentinels live in
 * {@code sentinels}, a map beside the hybrid cache, and every operation that changes a key runs inside
 * {@code sentinels.compute} for that key: that is the per-key lock that makes {@code putIfAbsent} and
 * {@code replace} atomic compare-and-sets over both maps. A write's {@code remove} drops the sentinel
 * under the same lock, so a read that started before the write can no longer install the partition it
 * read (its {@code replace} finds no sentinel and fails): after a write is acknowledged no tier serves
 * the partition as it was before it. {@code get} takes no lock: it returns the sentinel if there is
 * one, else whatever the hybrid cache holds, which {@code remove} has already invalidated in both
 * tiers before returning ({@link io.hybridcache.core.engine.Engine}'s ordering guarantee).
 *
 * <p>Lock order: {@code sentinels}' per-key lock, then the hybrid cache's own (Caffeine's per-key
 * compute, the flash index); nothing calls back into this class from inside them.
 *
 * <p>Capacity: {@link #capacity()} is a field read (Cassandra asks on every read and write);
 * {@link #setCapacity} resizes the DRAM tier; capacity 0 empties both tiers, because Cassandra stops
 * invalidating the row cache on writes while its capacity is 0.
 */
public final class HybridRowCache implements ICache<RowCacheKey, IRowCacheEntry>, AutoCloseable {
  private final HybridCache cache;
  private final RowCacheCodec codec;
  private final ConcurrentHashMap<RowCacheKey, RowCacheSentinel> sentinels = new ConcurrentHashMap<>();
  private final LongAdder undecodable = new LongAdder();
  private volatile long capacity;

  HybridRowCache(HybridCache cache, RowCacheCodec codec, long capacity) {
    this.cache = cache;
    this.codec = codec;
    this.capacity = capacity;
  }

  /** The hybrid cache underneath (its stats and JMX bean carry the per-tier figures). */
  public HybridCache hybridCache() {
    return cache;
  }

  /** Values found but not servable (other messaging version, dropped table) and dropped as misses. */
  public long undecodable() {
    return undecodable.sum();
  }

  @Override
  public IRowCacheEntry get(RowCacheKey key) {
    RowCacheSentinel s = sentinels.get(key);
    if (s != null) {
      return s;
    }
    byte[] k = codec.key(key);
    byte[] v = cache.get(k);
    if (v == null) {
      return null;
    }
    CachedPartition p = codec.value(key, v);
    if (p == null) {
      undecodable.increment();
      sentinels.compute(key, (kk, cur) -> {
        if (cur == null) {
          cache.remove(k); // so the next read may cache the partition again
        }
        return cur;
      });
    }
    return p;
  }

  @Override
  public void put(RowCacheKey key, IRowCacheEntry value) {
    byte[] k = codec.key(key);
    byte[] v = encode(value);
    sentinels.compute(key, (kk, cur) -> {
      if (value instanceof RowCacheSentinel s) {
        cache.remove(k);
        return s;
      }
      cache.put(k, v);
      return null;
    });
  }

  @Override
  public boolean putIfAbsent(RowCacheKey key, IRowCacheEntry value) {
    byte[] k = codec.key(key);
    byte[] v = encode(value);
    boolean[] done = {false};
    sentinels.compute(key, (kk, cur) -> {
      if (cur != null || cache.containsKey(k)) {
        return cur;
      }
      done[0] = true;
      if (value instanceof RowCacheSentinel s) {
        return s;
      }
      cache.put(k, v);
      return null;
    });
    return done[0];
  }

  @Override
  public boolean replace(RowCacheKey key, IRowCacheEntry old, IRowCacheEntry value) {
    byte[] k = codec.key(key);
    byte[] v = encode(value);
    byte[] expected = encode(old);
    boolean[] done = {false};
    sentinels.compute(key, (kk, cur) -> {
      if (old instanceof RowCacheSentinel) {
        if (!old.equals(cur)) {
          return cur; // a write (remove), clear or another reader's sentinel came first
        }
      } else if (cur != null || !java.util.Arrays.equals(cache.get(k), expected)) {
        return cur;
      }
      done[0] = true;
      if (value instanceof RowCacheSentinel s) {
        cache.remove(k);
        return s;
      }
      cache.put(k, v);
      return null;
    });
    return done[0];
  }

  @Override
  public void remove(RowCacheKey key) {
    byte[] k = codec.key(key);
    sentinels.compute(key, (kk, cur) -> {
      cache.remove(k);
      return null;
    });
  }

  @Override
  public void clear() {
    sentinels.clear();
    cache.clear();
  }

  @Override
  public boolean containsKey(RowCacheKey key) {
    return sentinels.containsKey(key) || cache.containsKey(codec.key(key));
  }

  /**
   * Keys with a sentinel, then every key of both tiers ({@link HybridCache#keys()}: a sequential pass
   * over flash). {@code remove()} removes the last key returned from both tiers.
   */
  @Override
  public Iterator<RowCacheKey> keyIterator() {
    Iterator<RowCacheKey> pending = new ArrayList<>(sentinels.keySet()).iterator();
    Iterator<byte[]> stored = cache.keys();
    return new Iterator<>() {
      private RowCacheKey last;

      @Override
      public boolean hasNext() {
        return pending.hasNext() || stored.hasNext();
      }

      @Override
      public RowCacheKey next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        last = pending.hasNext() ? pending.next() : codec.key(stored.next());
        return last;
      }

      @Override
      public void remove() {
        if (last == null) {
          throw new IllegalStateException("next() first");
        }
        HybridRowCache.this.remove(last);
        last = null;
      }
    };
  }

  /** The DRAM tier's hottest keys (Caffeine's frequency sketch): no flash I/O. */
  @Override
  public Iterator<RowCacheKey> hotKeyIterator(int n) {
    List<RowCacheKey> keys = new ArrayList<>();
    for (byte[] k : cache.hottestKeys(n)) {
      keys.add(codec.key(k));
    }
    return keys.iterator();
  }

  @Override
  public long capacity() {
    return capacity;
  }

  @Override
  public void setCapacity(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("row cache capacity must be >= 0, was " + bytes);
    }
    capacity = bytes;
    cache.setDramCapacity(Math.max(CacheConfig.MIB, bytes));
    if (bytes == 0) {
      clear();
    }
  }

  /** Entries of both tiers plus pending sentinels (a partition promoted to DRAM counts in both tiers). */
  @Override
  public int size() {
    CacheStats s = cache.stats();
    return (int) Math.min(Integer.MAX_VALUE, s.dramEntries() + s.flashEntries() + sentinels.size());
  }

  /** Bytes held: the DRAM tier's weighted bytes plus the flash tier's live bytes. */
  @Override
  public long weightedSize() {
    CacheStats s = cache.stats();
    return s.dramWeightedBytes() + s.flashLiveBytes();
  }

  private byte[] encode(IRowCacheEntry value) {
    if (value instanceof CachedPartition p) {
      return codec.value(p);
    }
    if (value instanceof RowCacheSentinel) {
      return null;
    }
    throw new IllegalArgumentException("not a row cache entry: " + value);
  }

  @Override
  public void close() {
    cache.close();
  }
}
