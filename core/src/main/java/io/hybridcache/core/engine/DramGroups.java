package io.hybridcache.core.engine;

import com.github.benmanes.caffeine.cache.Cache;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The DRAM tier's changes with key groups ({@link GroupBytes}): each group's bytes counted inside the key's atomic
 * change, and a group over its DRAM cap made to pay with its own oldest entries.
 *
 * <p>Thread-safe. Concurrency: a change's function counts what it installs and takes out, inside the key's atomic
 * change (Caffeine's {@code compute}); Caffeine's eviction listener counts what it evicts ({@link #evicted}, inside
 * the atomic removal). A group with a DRAM cap also has its versions queued in write order ({@link DramOrder}).
 * After a change that left the key's group over its cap, the calling thread (outside the key's change, as
 * Caffeine's own evictions run) evicts the group's oldest entries until it is within: each inside its own key's
 * atomic removal, only if DRAM still holds the queued version (so a newer put of the key is never evicted through
 * an older slot), told to the tier's {@link DramTier.Evictions} as a size eviction (dirty ones go to flash as any
 * DRAM eviction). So a capped group keeps its newest entries, pays with its own, and a put never writes its own
 * entry to flash inside its change; the group passes its cap by at most one entry per thread changing it at once.
 */
final class DramGroups {
  private final Cache<ByteKey, DramEntry> cache;
  private final GroupBytes groups;
  private final DramTier.Evictions evictions;
  /** Told of an entry a cap's eviction took out, inside its removal (the tier forgets its deadline). */
  private final Consumer<DramEntry> left;
  private final Predicate<DramOrder.Slot> holds = this::holds;
  /** Tests: called with a slot's key after it is taken for a cap's eviction, before the eviction. */
  private volatile Consumer<ByteKey> beforeCapEviction = k -> { };

  /** A change of the map's entry for a key: its {@code compute} or {@code computeIfPresent}. */
  interface MapChange {
    DramEntry change(ByteKey key, BiFunction<? super ByteKey, ? super DramEntry, ? extends DramEntry> fn);
  }

  DramGroups(Cache<ByteKey, DramEntry> cache, GroupBytes groups, DramTier.Evictions evictions,
      Consumer<DramEntry> left) {
    this.cache = cache;
    this.groups = groups;
    this.evictions = evictions;
    this.left = left;
  }

  /** Caffeine evicted {@code v} (size or expiry): counted; call inside the atomic removal. */
  static void evicted(GroupBytes groups, ByteKey k, DramEntry v) {
    counted(groups, groups.groupOf(k.bytes()), k, v, null, null);
  }

  /** {@code change} of {@code key}'s entry by {@code fn}, counted; then evicts while the group is over its cap. */
  DramEntry change(ByteKey key, BiFunction<ByteKey, DramEntry, DramEntry> fn, MapChange change) {
    long g = groups.groupOf(key.bytes());
    DramEntry now = change.change(key, (k, old) -> counted(groups, g, k, old, fn.apply(k, old), holds));
    evictOver(g);
    return now;
  }

  /** Removes every entry, each counted inside its key's atomic change. */
  void clear() {
    for (ByteKey k : cache.asMap().keySet()) {
      cache.asMap().computeIfPresent(k, (kk, v) -> counted(groups, groups.groupOf(kk.bytes()), kk, v, null, holds));
    }
  }

  private static long weigh(ByteKey k, DramEntry v) {
    return v == null ? 0 : DramTier.weigh(k.bytes().length, v.value().length);
  }

  /**
   * Counts {@code n} replacing {@code old} (either may be null) in group {@code g}, and queues a new version in the
   * group's write order ({@code live}: whether a slot's version is still in DRAM, for its sweeps; unused when
   * {@code n} is null); returns {@code n}. Inside the key's atomic change.
   */
  private static DramEntry counted(GroupBytes groups, long g, ByteKey k, DramEntry old, DramEntry n,
      Predicate<DramOrder.Slot> live) {
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
        order.added(k, n.sequence(), live);
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
      left.accept(cur);
      evictions.evicted(k, cur, cur.expiredNow());
      return null;
    });
    return evicted[0];
  }

  /** Tests: see {@link #beforeCapEviction}. */
  void beforeCapEviction(Consumer<ByteKey> hook) {
    beforeCapEviction = hook;
  }
}
