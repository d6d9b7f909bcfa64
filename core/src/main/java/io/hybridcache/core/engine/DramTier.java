package io.hybridcache.core.engine;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.RemovalCause;
import java.util.List;
import java.util.concurrent.ConcurrentMap;

/**
 * The DRAM tier: Caffeine (W-TinyLFU) bounded by bytes, each entry weighing key + value +
 * {@link DramEntry#OVERHEAD_BYTES}.
 *
 * <p>Thread-safe (Caffeine). Concurrency: eviction runs on the calling thread (a same-thread executor),
 * and the eviction listener runs inside the atomic removal of the entry, so it is ordered with any
 * {@code compute} on the same key: the engine relies on this to keep a key's DRAM and flash versions
 * in order. The listener receives every entry evicted for size (dirty ones go to flash, clean ones are
 * still there) or expiry.
 */
final class DramTier {
  private final Cache<ByteKey, DramEntry> cache;

  /** Told of an entry DRAM evicted, inside the atomic removal of its key. */
  @FunctionalInterface
  interface Evictions {
    void evicted(ByteKey key, DramEntry entry, boolean expired);
  }

  public DramTier(long maxBytes, Evictions evictions) {
    this.cache = Caffeine.newBuilder()
        .maximumWeight(maxBytes)
        .weigher((ByteKey k, DramEntry v) -> weigh(k.bytes().length, v.value().length))
        .expireAfter(new Expiry<ByteKey, DramEntry>() {
          @Override
          public long expireAfterCreate(ByteKey key, DramEntry value, long currentTime) {
            return remainingNanos(value);
          }

          @Override
          public long expireAfterUpdate(ByteKey key, DramEntry value, long currentTime, long currentDuration) {
            return remainingNanos(value);
          }

          @Override
          public long expireAfterRead(ByteKey key, DramEntry value, long currentTime, long currentDuration) {
            return currentDuration;
          }
        })
        .executor(Runnable::run)
        .evictionListener((ByteKey k, DramEntry v, RemovalCause cause) -> {
          if (v != null && (cause == RemovalCause.SIZE || cause == RemovalCause.EXPIRED)) {
            evictions.evicted(k, v, cause == RemovalCause.EXPIRED);
          }
        })
        .build();
  }

  private static long remainingNanos(DramEntry v) {
    if (v.expiryMillis() == 0) {
      return Long.MAX_VALUE;
    }
    long millis = Math.max(0, v.expiryMillis() - System.currentTimeMillis());
    return millis > Long.MAX_VALUE / 1_000_000L ? Long.MAX_VALUE : millis * 1_000_000L; // saturate, never wrap
  }

  public DramEntry get(ByteKey key) {
    return cache.getIfPresent(key);
  }

  /** The live map: {@code compute} on it is atomic with eviction of the same key. */
  public ConcurrentMap<ByteKey, DramEntry> map() {
    return cache.asMap();
  }

  public long entries() {
    return cache.estimatedSize();
  }

  /** What an entry of these lengths weighs in the DRAM budget. */
  public static int weigh(int keyLength, int valueLength) {
    return (int) Math.min(Integer.MAX_VALUE, (long) keyLength + valueLength + DramEntry.OVERHEAD_BYTES);
  }

  public long weightedBytes() {
    return cache.policy().eviction().map(e -> e.weightedSize().orElse(0L)).orElse(0L);
  }

  /** Up to {@code n} keys, hottest first by Caffeine's frequency sketch. */
  public List<ByteKey> hottest(int n) {
    return cache.policy().eviction().map(e -> List.copyOf(e.hottest(n).keySet())).orElse(List.of());
  }

  /** The byte budget. */
  public long maximumBytes() {
    return cache.policy().eviction().map(e -> e.getMaximum()).orElse(0L);
  }

  /** Changes the byte budget; shrinking evicts on this thread. */
  public void setMaximumBytes(long bytes) {
    cache.policy().eviction().ifPresent(e -> e.setMaximum(bytes));
  }

  /** Runs pending maintenance (evictions) now. */
  public void cleanUp() {
    cache.cleanUp();
  }

  public void clear() {
    cache.invalidateAll();
  }
}
