package io.hybridcache.core.api;

import java.io.Closeable;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;

/**
 * A DRAM tier chained over a segmented flash tier for byte-array keys and values.
 *
 * <p>Thread-safe: every method may be called from any number of threads. Lookups never block one
 * another; writes to flash happen on one writer thread fed by a bounded queue, so no caller ever
 * waits for the device on a write.
 *
 * <p>{@link #open} finds the engine through {@link CacheProvider}; the engine's design note is in
 * {@code io.hybridcache.core.engine.Engine}.
 */
public interface HybridCache extends Closeable {

  /** Opens (creating or warm-restarting) the cache described by {@code config}. */
  static HybridCache open(CacheConfig config) {
    return CacheProviders.provider().open(config);
  }

  /**
   * Deletes a closed cache's directory: only what a cache made there (its segment and small-object files,
   * index, checkpoints, markers; the lock file last, while held), then the directory itself if that leaves
   * it empty (anything else in it stays, and so does the directory); nothing if it does not exist. For a
   * directory meant to live no longer than one process.
   *
   * @throws java.io.IOException deleting nothing, if a cache has it open (its lock) or it holds an entry a
   *     cache does not make
   */
  static void deleteFiles(java.nio.file.Path directory) throws java.io.IOException {
    CacheProviders.provider().deleteFiles(directory);
  }

  /** The value for {@code key}, or null on a miss. A flash hit is promoted to DRAM. */
  byte[] get(byte[] key);

  /**
   * {@code decoder}'s result for the value of {@code key}, or null on a miss: as {@code get} (the same
   * tiers, counters and promotion) without copying the value. The buffer is a read-only view of the
   * cache's own bytes, valid only during the call: decode from it, do not keep it. For callers that turn
   * the bytes into an object at once: a DRAM hit then costs no copy. Caution: the view has no accessible
   * array ({@code hasArray()} is false), and some code takes such a heap buffer for a direct one and reads
   * raw memory: Cassandra 5.0's {@code FastByteOperations} crashes the JVM on it (seen in this project's
   * tests), so the Cassandra provider uses {@link #readArray} instead.
   */
  default <T> T read(byte[] key, java.util.function.Function<java.nio.ByteBuffer, T> decoder) {
    byte[] v = get(key);
    return v == null ? null : decoder.apply(java.nio.ByteBuffer.wrap(v).asReadOnlyBuffer());
  }

  /**
   * {@code decoder}'s result for the value of {@code key}, or null on a miss: as {@code get} (the same
   * tiers, counters and promotion) without copying the value, like {@link #read(byte[],
   * java.util.function.Function) read}, but the decoder gets a plain heap array, for decoders that need
   * one (Cassandra's serializers). The array may be the cache's own (a DRAM hit, a flash hit just
   * promoted): {@code decoder} must only read it, during the call; it must not change it, keep it or
   * hand it on (a decoder that copies what it keeps, such as a deserializer, is fine). The decoder runs
   * after the lookup, outside the cache's locks; it may call the cache.
   */
  default <T> T readArray(byte[] key, java.util.function.Function<byte[], T> decoder) {
    byte[] v = get(key);
    return v == null ? null : decoder.apply(v);
  }

  /**
   * As {@link #readArray}, the decoder also told which tier served the hit ({@link Tier}): the same lookup, no
   * copy, no other call. The default (an implementation with one tier) reports every hit as {@link Tier#DRAM}.
   */
  default <T> T readTiered(byte[] key, TieredDecoder<T> decoder) {
    return readArray(key, v -> decoder.decode(v, Tier.DRAM));
  }

  /**
   * The decoded values of {@code keys}, in their order: element i is {@code readTiered(keys.get(i), decoder)},
   * null on a miss; one batch read as {@link #getAll} (the same order of flash reads, the same counts), without
   * copying the values: {@code decoder} gets the arrays as {@link #readArray}'s decoder does, after the
   * lookups. The default decodes {@link #getAll}'s copies, every hit reported as {@link Tier#DRAM}.
   */
  default <T> List<T> readAll(List<byte[]> keys, TieredDecoder<T> decoder) {
    List<byte[]> values = getAll(keys);
    List<T> decoded = new java.util.ArrayList<>(values.size());
    for (byte[] v : values) {
      decoded.add(v == null ? null : decoder.decode(v, Tier.DRAM));
    }
    return decoded;
  }

  /**
   * The values of {@code keys}, in their order: element i is {@code get(keys.get(i))}, null on a miss.
   * Implementations may answer DRAM hits first and order the flash reads (the engine reads them in flash
   * address order). Counts one get per key.
   */
  default List<byte[]> getAll(List<byte[]> keys) {
    List<byte[]> values = new java.util.ArrayList<>(keys.size());
    for (byte[] k : keys) {
      values.add(get(k));
    }
    return values;
  }

  /**
   * The value for {@code key}; on a miss, {@code loader}'s value for it, stored (unless null) and
   * returned. One load per key at a time: callers that miss the same key while it loads wait for that
   * load and get its value, or the exception it threw. A put or remove of the key during the load wins:
   * the loaded value is then returned to the waiting callers but not stored. The loader must not ask for
   * its own key ({@link IllegalStateException}).
   */
  default byte[] get(byte[] key, java.util.function.Function<byte[], byte[]> loader) {
    byte[] v = get(key);
    if (v == null) {
      v = loader.apply(key.clone());
      if (v != null) {
        put(key, v);
      }
    }
    return v;
  }

  /** Stores {@code value} for {@code key} in DRAM; it reaches flash when DRAM evicts it. */
  void put(byte[] key, byte[] value);

  /** As {@link #put(byte[], byte[])}, expiring after {@code ttl}. */
  void put(byte[] key, byte[] value, Duration ttl);

  /**
   * As {@link #put(byte[], byte[])} (no expiry: {@code expireAtMillis} is {@link Long#MAX_VALUE}) or
   * {@link #put(byte[], byte[], Duration)} (expiring at {@code expireAtMillis}, epoch milliseconds), handing both
   * arrays over: the cache may keep {@code key} and {@code value} themselves instead of copying them, so the caller
   * must never change either after the call. For callers that build fresh arrays for each put (a codec's output,
   * a namespaced key): the put then makes no copy. An expiry time already past stores an entry no read finds. The
   * default copies, as {@code put} does.
   *
   * @throws IllegalArgumentException if {@code expireAtMillis} is not positive
   */
  default void putOwned(byte[] key, byte[] value, long expireAtMillis) {
    if (expireAtMillis <= 0) {
      throw new IllegalArgumentException("expireAtMillis must be positive (Long.MAX_VALUE: none): " + expireAtMillis);
    }
    if (expireAtMillis == Long.MAX_VALUE) {
      put(key, value);
    } else {
      put(key, value, Duration.ofMillis(Math.max(1, expireAtMillis - System.currentTimeMillis())));
    }
  }

  /**
   * As {@link #put(byte[], byte[])}; on flash the entry goes to the segments of {@code lifetimeClass}
   * (its own active segment and device stream), e.g. one class per table or collection:
   * {@code LifetimeClass.named(16, "users")}. {@link LifetimeClass#FRESH} is what {@code put(key, value)}
   * uses. A class id must keep its name for the life of the cache directory. Implementations without
   * lifetime classes store the entry as {@code put(key, value)}.
   *
   * @throws IllegalArgumentException for SURVIVOR, CATALOG (reserved for the cache) or an id that
   *     already names another class
   */
  default void put(byte[] key, byte[] value, LifetimeClass lifetimeClass) {
    put(key, value);
  }

  /** As {@link #put(byte[], byte[], LifetimeClass)}, expiring after {@code ttl}. */
  default void put(byte[] key, byte[] value, Duration ttl, LifetimeClass lifetimeClass) {
    put(key, value, ttl);
  }

  /** Removes {@code key} from both tiers before returning; true if a tier held it. */
  boolean remove(byte[] key);

  /** True if a tier holds {@code key} (a flash entry later found corrupt reads as a miss). */
  boolean containsKey(byte[] key);

  /**
   * The first {@code n} bytes of the value of {@code key} (all of it if shorter), or null if no tier holds it:
   * {@link #containsKey} that also returns what the value starts with, for callers that keep a header of their
   * own at the front of values (an expiry time) and ask whether a key is there without needing the value. Like
   * {@code containsKey} it counts no get and promotes nothing. A flash entry is read only as far as its header,
   * key and those bytes: one device page for a value of any size, so its checksum (over the whole entry) is not
   * verified; a damaged value is found by the next full read, and a header that does not check out is looked up
   * as a full read would. The default reads the whole value.
   *
   * @throws IllegalArgumentException if {@code n} is negative
   */
  default byte[] readHead(byte[] key, int n) {
    if (n < 0) {
      throw new IllegalArgumentException("n must not be negative: " + n);
    }
    return readArray(key, v -> java.util.Arrays.copyOf(v, Math.min(n, v.length)));
  }

  /** Empties both tiers (and both flash engines). */
  void clear();

  /**
   * Every key a tier holds when the call starts: DRAM keys first, then flash keys, found by reading
   * the flash segments sequentially. Weakly consistent: keys written or removed during the iteration
   * may or may not appear. A key is returned once, except one that reclaim moves to a new segment after
   * the scan read it, or that a read promotes from flash to DRAM during the call, which may come again
   * (so callers that act on keys must be idempotent, as removal is). Never partial: if the flash tier
   * cannot be scanned (degraded, or a read error mid-scan) the whole flash index is dropped instead
   * ({@link CacheStats#flashIndexDrops()}). Costs a pass over the flash tier's bytes, so it is meant for rare bulk invalidation (a
   * Cassandra TRUNCATE or DROP), not for lookups. The iterator does not support {@code remove}: call
   * {@link #remove(byte[])} with the key. With the small-object engine on ({@link
   * CacheConfig#smallObjectShare()}), its keys follow the log engine's, read from its set pages and log
   * pages; if those cannot be read, that engine is emptied instead (counted in {@link
   * SmallObjectStats#resets()}), so its keys are invalidated, never left behind.
   */
  Iterator<byte[]> keys();

  /**
   * As {@link #keys()}, except that a log engine that cannot be scanned (degraded, or a read error mid-scan) makes
   * {@code hasNext} throw an {@link IllegalStateException} instead of dropping the whole flash index: for a caller
   * that lists one group of keys (a namespace of a shared engine) and must not invalidate the others', and has
   * its own fallback. The small-object engine, if on, still empties itself when its pages cannot be read.
   */
  default Iterator<byte[]> keysOrFail() {
    return keys();
  }

  /**
   * Up to {@code n} DRAM-tier keys, hottest first (the DRAM tier's own frequency estimate; no I/O). Caffeine
   * starts that estimate when the DRAM tier first holds half its budget; before, the order is arbitrary (every
   * key DRAM holds then fits in it anyway).
   */
  List<byte[]> hottestKeys(int n);

  /** The DRAM tier's current byte budget. */
  long dramCapacity();

  /** Resizes the DRAM tier to {@code bytes} (at least 1 MiB); shrinking evicts, dirty entries to flash. */
  void setDramCapacity(long bytes);

  /**
   * The DRAM-tier bytes (in its weight) held now by key group {@code group} of {@link CacheConfig#keyGroups()},
   * or -1 without key groups.
   */
  default long dramBytesOf(long group) {
    return -1;
  }

  /**
   * The flash bytes (live or superseded, in the index's sector-rounded sizes, until reclaim frees their
   * segment) held now by key group {@code group} of {@link CacheConfig#keyGroups()}, or -1 without key groups.
   */
  default long flashBytesOf(long group) {
    return -1;
  }

  /**
   * Writes every dirty DRAM entry to flash (keeping it in DRAM as a clean copy) and waits until
   * everything written so far is on flash and indexed, giving up after {@link CacheConfig#closeTimeout()}
   * if the device makes no progress. For a checkpoint before a planned stop, tests and benchmarks.
   * Implementations without a flash tier return at once.
   */
  default void flush() {}

  /** A snapshot of the counters. */
  CacheStats stats();

  /**
   * The flash devices' own I/O counters, summed over both flash engines: every completed device read and write,
   * whoever made it (lookups, key scans, reclaim, flushes), unlike {@link CacheStats#deviceReads()}, which counts
   * lookups only. All zero for an implementation without a flash tier. For tests and operators who need to see
   * what an operation cost the device.
   */
  default io.hybridcache.core.device.DeviceCounters.Snapshot deviceCounters() {
    return new io.hybridcache.core.device.DeviceCounters.Snapshot(0, 0, 0, 0, 0, 0);
  }

  CacheConfig config();

  /** Lifetime placement: each class's device stream, bytes per stream ({@link PlacementStats#NONE} if none). */
  default PlacementStats placement() {
    return PlacementStats.NONE;
  }

  /** A view with typed keys and values over this cache. */
  default <K, V> TypedCache<K, V> typed(Codec<K> keyCodec, Codec<V> valueCodec) {
    return new TypedCache<>(this, keyCodec, valueCodec);
  }

  /**
   * Writes dirty DRAM entries (and clean ones flash no longer holds) and write buffers to flash, persists
   * the index and segment table and writes the clean-shutdown marker, so the next open is warm. Idempotent.
   */
  @Override
  void close();
}
