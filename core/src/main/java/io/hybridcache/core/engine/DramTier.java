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
 * <p>With key groups ({@link GroupBytes}), each group's bytes are counted inside the key's atomic change: every
 * change of the map goes through {@link #compute}, {@link #computeIfPresent}, {@link #remove} or {@link #clear}
 * (whose functions count what they install and take out), or through Caffeine's eviction listener (size and
 * expiry, an expired entry a compute finds included: Caffeine reports it there before the function sees null).
 * Nothing else may change {@link #map()}. A group with a DRAM cap also has its versions queued in write order
 * ({@link DramOrder}); after a {@link #compute} or {@link #computeIfPresent} that left the key's group over its
 * cap, the calling thread (outside the key's change, as Caffeine's own evictions) evicts the group's oldest
 * entries until it is within: each inside its key's atomic removal, only if DRAM still holds the queued version,
 * told to {@link Evictions} as a size eviction. So a capped group keeps its newest entries, pays with its own
 * (dirty ones go to flash as any DRAM eviction), and a put never writes its own entry to flash.
 */
final class DramTier {
  private final Cache<ByteKey, DramEntry> cache;
  private final GroupBytes groups; // null: no key groups, nothing counted
  private final Evictions evictions;
  /** Tests: called with a slot's key after it is taken for a cap's eviction, before the eviction. */
  private volatile java.util.function.Consumer<ByteKey> beforeCapEviction = k -> { };

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
    this.evictions = evictions;
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
            counted(groups.groupOf(k.bytes()), k, v, null);
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

  /** A change of the map's entry for a key: its {@code compute} or {@code computeIfPresent}. */
  private interface MapChange {
    DramEntry change(ByteKey key, BiFunction<? super ByteKey, ? super DramEntry, ? extends DramEntry> fn);
  }

  /**
   * {@code compute} on the map, counting the change to the key's group; then, if that group is over its DRAM cap,
   * evicts its oldest entries. Returns what the map held after the change.
   */
  DramEntry compute(ByteKey key, BiFunction<ByteKey, DramEntry, DramEntry> fn) {
    return groups == null ? cache.asMap().compute(key, fn) : counted(key, fn, cache.asMap()::compute);
  }

  /** As {@link #compute}, only for a key DRAM holds. */
  DramEntry computeIfPresent(ByteKey key, BiFunction<ByteKey, DramEntry, DramEntry> fn) {
    return groups == null ? cache.asMap().computeIfPresent(key, fn)
        : counted(key, fn, cache.asMap()::computeIfPresent);
  }

  private DramEntry counted(ByteKey key, BiFunction<ByteKey, DramEntry, DramEntry> fn, MapChange change) {
    long g = groups.groupOf(key.bytes());
    DramEntry now = change.change(key, (k, old) -> counted(g, k, old, fn.apply(k, old)));
    evictOver(g);
    return now;
  }

  /**
   * Counts {@code n} replacing {@code old} (either may be null) in group {@code g}, and queues a new version in the
   * group's write order; returns {@code n}. Inside the key's atomic change.
   */
  private DramEntry counted(long g, ByteKey k, DramEntry old, DramEntry n) {
    if (n == old) {
      return n;
    }
    groups.dramAdd(g, weigh(k, n) - weigh(k, old));
    if (old != null && n != null && old.sequence() == n.sequence()) {
      return n; // the same version (a write-back's clean copy): it keeps its place
    }
    DramOrder order = groups.dramOrder(g, n != null);
    if (order != null) {
      if (old != null) {
        order.left();
      }
      if (n != null) {
        order.added(k, n.sequence(), this::holds);
      }
    }
    return n;
  }

  /** Whether DRAM holds the version {@code slot} queued (no read recorded, no maintenance). */
  private boolean holds(DramOrder.Slot slot) {
    DramEntry e = cache.policy().getIfPresentQuietly(slot.key());
    return e != null && e.sequence() == slot.sequence();
  }

  /**
   * Evicts group {@code g}'s oldest entries while it holds more than its DRAM cap: outside any key's change (a
   * caller holds none), each inside its own key's atomic removal, as Caffeine's size evictions are.
   */
  private void evictOver(long g) {
    while (groups.dramOver(g)) {
      DramOrder order = groups.dramOrder(g, false);
      DramOrder.Slot slot = order == null ? null : order.oldest();
      if (slot == null) {
        return; // another thread is evicting the rest
      }
      beforeCapEviction.accept(slot.key());
      if (!evict(g, slot)) {
        order.staleTaken();
      }
    }
  }

  /** Evicts the version {@code slot} queued if DRAM still holds it (told as a size eviction); false if not. */
  private boolean evict(long g, DramOrder.Slot slot) {
    boolean[] evicted = {false};
    cache.asMap().computeIfPresent(slot.key(), (k, cur) -> {
      if (cur.sequence() != slot.sequence()) {
        return cur; // a newer version: queued behind
      }
      groups.dramAdd(g, -weigh(k, cur));
      evicted[0] = true;
      evictions.evicted(k, cur, false);
      return null;
    });
    return evicted[0];
  }

  /** Tests: see {@link #beforeCapEviction}. */
  void beforeCapEviction(java.util.function.Consumer<ByteKey> hook) {
    beforeCapEviction = hook;
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
      removed[0] = true;
      return counted(groups.groupOf(k.bytes()), k, cur, null);
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
      cache.asMap().computeIfPresent(k, (kk, v) -> counted(groups.groupOf(kk.bytes()), kk, v, null));
    }
  }
}
