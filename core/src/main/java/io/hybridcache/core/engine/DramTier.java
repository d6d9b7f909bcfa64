package io.hybridcache.core.engine;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.RemovalCause;
import java.util.List;
import java.util.concurrent.ConcurrentMap;
import java.util.function.BiFunction;

/**
 * The DRAM tier: Caffeine (W-TinyLFU) bounded by bytes, each entry weighing key + value +
 * {@link DramEntry#OVERHEAD_BYTES}.
 *
 * <p>Thread-safe (Caffeine). Concurrency: eviction runs on the calling thread (a same-thread executor),
 * and the eviction listener runs inside the atomic removal of the entry, so it is ordered with any
 * {@code compute} on the same key: the engine relies on this to keep a key's DRAM and flash versions
 * in order. The listener receives every entry evicted for size (dirty ones go to flash, clean ones are
 * still there) or expiry.
 *
 * <p>With key groups ({@link GroupBytes}), every change of the map goes through {@link #compute}, {@link
 * #computeIfPresent}, {@link #remove} or {@link #clear}, which {@link DramGroups} counts (and, for a group over its
 * DRAM cap, follows with evictions of the group's oldest entries), or through Caffeine's eviction listener (size
 * and expiry, an expired entry a compute finds included: Caffeine reports it there before the function sees
 * null), counted there. Nothing else may change {@link #map()}.
 */
final class DramTier {
  private final Cache<ByteKey, DramEntry> cache;
  private final DramGroups groups; // null: no key groups, nothing counted

  /** Told of an entry DRAM evicted, inside the atomic removal of its key. */
  @FunctionalInterface
  interface Evictions {
    void evicted(ByteKey key, DramEntry entry, boolean expired);
  }

  public DramTier(long maxBytes, Evictions evictions) {
    this(maxBytes, evictions, null);
  }

  DramTier(long maxBytes, Evictions evictions, GroupBytes groups) {
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
          if (v != null && groups != null) {
            DramGroups.evicted(groups, k, v);
          }
          if (v != null && (cause == RemovalCause.SIZE || cause == RemovalCause.EXPIRED)) {
            evictions.evicted(k, v, cause == RemovalCause.EXPIRED);
          }
        })
        .build();
    this.groups = groups == null ? null : new DramGroups(cache, groups, evictions);
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

  /** {@code compute} on the map; with key groups counted, then a group over its DRAM cap evicts its oldest. */
  DramEntry compute(ByteKey key, BiFunction<ByteKey, DramEntry, DramEntry> fn) {
    return groups == null ? cache.asMap().compute(key, fn) : groups.change(key, fn, cache.asMap()::compute);
  }

  /** As {@link #compute}, only for a key DRAM holds. */
  DramEntry computeIfPresent(ByteKey key, BiFunction<ByteKey, DramEntry, DramEntry> fn) {
    return groups == null ? cache.asMap().computeIfPresent(key, fn)
        : groups.change(key, fn, cache.asMap()::computeIfPresent);
  }

  /** Removes {@code key}'s entry if it is {@code value} (counted); true if removed. */
  boolean remove(ByteKey key, DramEntry value) {
    return groups == null ? cache.asMap().remove(key, value) : groups.remove(key, value);
  }

  /** Tests: see {@link DramGroups#beforeCapEviction}. */
  void beforeCapEviction(java.util.function.Consumer<ByteKey> hook) {
    groups.beforeCapEviction(hook);
  }

  /** The live map, for reads only (changes go through the methods above): atomic with eviction of a key. */
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
    if (groups == null) {
      cache.invalidateAll();
    } else {
      groups.clear();
    }
  }
}
