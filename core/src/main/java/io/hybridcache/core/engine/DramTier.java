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
 *
 * <p>With key groups ({@link GroupBytes}), each group's bytes are counted inside the key's atomic change: every
 * change of the map goes through {@link #compute}, {@link #computeIfPresent}, {@link #remove} or {@link #clear}
 * (whose functions count what they install and take out), or through Caffeine's eviction listener (size and
 * expiry, an expired entry a compute finds included: Caffeine reports it there before the function sees null).
 * Nothing else may change {@link #map()}. A change that would take a group over its DRAM cap is not installed:
 * the key's entry leaves DRAM and the caller's {@link Bypass} takes the new one (to flash, or nowhere).
 */
final class DramTier {
  private final Cache<ByteKey, DramEntry> cache;
  private final GroupBytes groups; // null: no key groups, nothing counted

  /** Takes an entry its group's DRAM cap kept out of DRAM; inside the key's atomic change. */
  @FunctionalInterface
  interface Bypass {
    void bypassed(ByteKey key, DramEntry entry);
  }

  /** Told of an entry DRAM evicted, inside the atomic removal of its key. */
  @FunctionalInterface
  interface Evictions {
    void evicted(ByteKey key, DramEntry entry, boolean expired);
  }

  public DramTier(long maxBytes, Evictions evictions) {
    this(maxBytes, evictions, null);
  }

  DramTier(long maxBytes, Evictions evictions, GroupBytes groups) {
    this.groups = groups;
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
            groups.dramAdd(groups.groupOf(k.bytes()), -weigh(k, v));
          }
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

  private static long weigh(ByteKey k, DramEntry v) {
    return v == null ? 0 : weigh(k.bytes().length, v.value().length);
  }

  /**
   * {@code compute} on the map, counting the change to the key's group; a change over the group's DRAM cap
   * removes the key's entry and hands the new one to {@code bypass} instead. Returns what the map holds now.
   */
  DramEntry compute(ByteKey key, java.util.function.BiFunction<ByteKey, DramEntry, DramEntry> fn, Bypass bypass) {
    if (groups == null) {
      return cache.asMap().compute(key, fn);
    }
    return cache.asMap().compute(key, (k, old) -> counted(k, old, fn.apply(k, old), bypass));
  }

  /** As {@link #compute}, only for a key DRAM holds (a change over the cap keeps the old entry). */
  DramEntry computeIfPresent(ByteKey key, java.util.function.BiFunction<ByteKey, DramEntry, DramEntry> fn) {
    if (groups == null) {
      return cache.asMap().computeIfPresent(key, fn);
    }
    return cache.asMap().computeIfPresent(key, (k, old) -> {
      DramEntry n = fn.apply(k, old);
      return n == old || groups.dramAdd(groups.groupOf(k.bytes()), weigh(k, n) - weigh(k, old)) ? n : old;
    });
  }

  /** The new entry {@code n} over {@code old} if its group admits it (counted), else null and {@code bypass} takes it. */
  private DramEntry counted(ByteKey k, DramEntry old, DramEntry n, Bypass bypass) {
    if (n == old) {
      return n;
    }
    long g = groups.groupOf(k.bytes());
    if (groups.dramAdd(g, weigh(k, n) - weigh(k, old))) {
      return n;
    }
    groups.dramAdd(g, -weigh(k, old)); // the old entry leaves with the refused one
    bypass.bypassed(k, n);
    return null;
  }

  /** Removes {@code key}'s entry if it is {@code value}, counted; true if removed. */
  boolean remove(ByteKey key, DramEntry value) {
    if (groups == null) {
      return cache.asMap().remove(key, value);
    }
    boolean[] removed = {false};
    cache.asMap().computeIfPresent(key, (k, cur) -> {
      if (cur != value) {
        return cur;
      }
      groups.dramAdd(groups.groupOf(k.bytes()), -weigh(k, cur));
      removed[0] = true;
      return null;
    });
    return removed[0];
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
      return;
    }
    for (ByteKey k : cache.asMap().keySet()) { // each removal counted inside the key's atomic change
      cache.asMap().computeIfPresent(k, (kk, v) -> {
        groups.dramAdd(groups.groupOf(kk.bytes()), -weigh(kk, v));
        return null;
      });
    }
  }
}
