package io.hybridcache.core.engine;

import com.github.benmanes.caffeine.cache.Cache;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The DRAM tier's changes with key groups ({@link GroupBytes}): each group's bytes counted inside the key's atomic
 * change, and a group over its DRAM cap made to pay with its own oldest entries.
 *
 * <p>Thread-safe. Concurrency: a change's function counts what it installs and takes out, inside the key's atomic
 * change (Caffeine's {@code compute}); Caffeine's eviction listener counts what it evicts ({@link #evicted}, inside
 * the atomic removal). A group with a DRAM cap also has its versions queued in write order ({@link DramOrder}):
 * a version is queued after the change that installed it returned, and the stale slots are swept after a change
 * (the order's sweep made due by a leaving, in any group, stepped by the tier's next changes, at most
 * {@link DramOrder#SWEEP_STEP} slots each), never inside a key's change.
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
  /** Write orders whose sweep is due ({@link DramOrder#left}), run after a change ({@link #sweepDue}). */
  private final ConcurrentLinkedQueue<DramOrder> due = new ConcurrentLinkedQueue<>();
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

  /**
   * Caffeine evicted {@code v} (size or expiry), or the tier's own deadline sweep: counted; call inside the atomic
   * removal. A sweep of the group's write order this made due runs after the tier's next change.
   */
  void evicted(ByteKey k, DramEntry v) {
    counted(groups.groupOf(k.bytes()), k, v, null, null);
  }

  /**
   * {@code change} of {@code key}'s entry by {@code fn}, counted; after it (outside the key's change) the version
   * it installed is queued in its group's write order, the write orders' due sweeps run, and the group's oldest
   * entries are evicted while it is over its cap.
   */
  DramEntry change(ByteKey key, BiFunction<ByteKey, DramEntry, DramEntry> fn, MapChange change) {
    long g = groups.groupOf(key.bytes());
    Installed installed = new Installed();
    DramEntry now = change.change(key, (k, old) -> counted(g, k, old, fn.apply(k, old), installed));
    if (installed.order != null) {
      installed.order.added(key, installed.sequence);
    }
    sweepDue();
    evictOver(g);
    return now;
  }

  /** Removes every entry, each counted inside its key's atomic change; then the due sweeps. */
  void clear() {
    for (ByteKey k : cache.asMap().keySet()) {
      cache.asMap().computeIfPresent(k, (kk, v) -> counted(groups.groupOf(kk.bytes()), kk, v, null, null));
    }
    sweepDue();
  }

  /**
   * Steps the sweeps the write orders asked for ({@link DramOrder#left}), each by at most
   * {@link DramOrder#SWEEP_STEP} slots; outside any key's change. Returns true if some are not done (queued again
   * for the next change).
   */
  boolean sweepDue() {
    List<DramOrder> again = null;
    for (DramOrder order; (order = due.poll()) != null; ) {
      if (order.sweep(holds)) {
        again = again == null ? new ArrayList<>(2) : again;
        again.add(order);
      }
    }
    if (again == null) {
      return false;
    }
    due.addAll(again);
    return true;
  }

  /** Steps the due sweeps until they are done ({@link DramTier#cleanUp}). */
  void sweepAll() {
    while (sweepDue()) {
      // another step
    }
  }

  /** The version a change installed in a capped group: queued in {@code order} once the change returned. */
  private static final class Installed {
    DramOrder order;
    long sequence;
  }

  private static long weigh(ByteKey k, DramEntry v) {
    return v == null ? 0 : DramTier.weigh(k.bytes().length, v.value().length);
  }

  /**
   * Counts {@code n} replacing {@code old} (either may be null) in group {@code g}; a new version of a capped group
   * is told to {@code installed} (null when {@code n} is null), a version leaving makes its slot stale. Returns
   * {@code n}. Inside the key's atomic change.
   */
  private DramEntry counted(long g, ByteKey k, DramEntry old, DramEntry n, Installed installed) {
    if (n == old) {
      return n;
    }
    groups.dramAdd(g, weigh(k, n) - weigh(k, old));
    if (old != null && n != null && old.sequence() == n.sequence()) {
      return n; // the same version (a write-back's clean copy): it keeps its place
    }
    DramOrder order = groups.dramOrder(g, n != null);
    if (order != null) {
      if (old != null && order.left()) {
        due.add(order);
      }
      if (n != null) {
        installed.order = order;
        installed.sequence = n.sequence();
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
