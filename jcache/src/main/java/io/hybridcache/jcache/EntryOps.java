package io.hybridcache.jcache;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import javax.cache.Cache;
import javax.cache.event.EventType;

/**
 * The entry primitives of one cache (find live, create, update, remove, touch) with their expiry and events,
 * the key lock every write runs them under ({@link #locked}), and the lock-free read of a hit
 * ({@link #expired}, {@link #decoded}, {@link #touchFree}). Thread-safe.
 *
 * <p>Concurrency. Writes of a key hold its stripe of {@link KeyLocks} from their read to their write; their
 * events go to the listeners after the unlock, in the order the writes took the lock ({@link DispatchOrder}).
 * A hit takes no lock: it reads one stored version (the store returns an immutable {@link Stored}: the
 * engine's bytes are copied whole, a reference store's holder is never changed), checks its expiry and
 * decodes it. Why a lock-free hit is never older than the last completed put or remove: the engine's put and
 * remove are atomic per key and complete before the write returns (and before its lock is released), so a
 * read that starts after a write completed sees that write or a later one; a read racing a write sees the
 * version before or after it, and either is a value the key held during the read. A hit never writes: an
 * expired or undecodable entry found without the lock is re-read and removed under the lock (only the version
 * still there, never a newer one), and access expiry is kept in DRAM ({@link AccessDeadlines}).
 *
 * <p>A stored value that does not decode ({@link Undecodable}) is a miss. An operation that needs the value reads
 * it with {@link #read}, which removes the entry under the key's lock; an entry being replaced or removed anyway
 * gives its events and results no old value ({@link #old}). Either way it is counted and logged
 * ({@link Undecodables}); it never reaches the caller as an exception.
 *
 * <p>Population: {@link #population} estimates the live entries as this cache wrote them ({@link Population}), for
 * the removal count of a {@code removeAll()} that drops the cache without a scan.
 */
final class EntryOps<K, V> {
  /** One operation on one key, run with the key's lock held. */
  @FunctionalInterface
  interface KeyOp<K, V, T> {
    T apply(Store.Slot<V> slot, long now, Events<K, V> events);
  }

  /** One entry processor run, with the key's lock held and its frame ({@link ProcessorLocks}). */
  @FunctionalInterface
  interface ProcessorOp<K, V, T> {
    T apply(Store.Slot<V> slot, long now, Events<K, V> events, ProcessorLocks.Frame frame);
  }

  /** Events made under held locks (a batch), to deliver after the unlock ({@link #deliver}). */
  record Delivery(int stripe, long ticket, Events<?, ?> events) {}

  private final Cache<K, V> source;
  private final Store<K, V> store;
  private final Expiry expiry;
  private final Listeners<K, V> listeners;
  private final Undecodables undecodables;
  private final KeyLocks locks = new KeyLocks();
  private final DispatchOrder order = new DispatchOrder();
  private final AccessDeadlines access = new AccessDeadlines();
  private final Population population = new Population();
  private final boolean accessMayExtend;
  /** The store tells each eviction's expiry time ({@link Store#evictionExpiries}): {@link #evicted} is counted. */
  private final boolean evictionExpiries;

  EntryOps(Cache<K, V> source, Store<K, V> store, Expiry expiry, Listeners<K, V> listeners,
      Undecodables undecodables) {
    this.source = source;
    this.store = store;
    this.expiry = expiry;
    this.listeners = listeners;
    this.undecodables = undecodables;
    this.accessMayExtend = expiry.mayExtendOnAccess();
    this.evictionExpiries = store.evictionExpiries(population::removed);
  }

  // ---- lock-free reads

  /** Whether an access may move an entry's expiry (the policy's, fixed for the cache's life). */
  boolean accessMayExtend() {
    return accessMayExtend;
  }

  /** Whether stored version {@code s} is expired at {@code now} (its access deadline counts). No lock needed. */
  boolean expired(Store.Slot<V> slot, Stored<V> s, long now) {
    return deadline(slot, s) <= now;
  }

  /** The expiry time of {@code s}: its DRAM access deadline if one extends it, else the stored one. */
  long deadline(Store.Slot<V> slot, Stored<V> s) {
    return access.isEmpty() ? s.expireAt() : access.deadline(slot.id(), s); // no key object on the common path
  }

  /** The value of {@code s}, or null if it does not decode (nothing removed or counted: see {@link #read}). */
  V decoded(Stored<V> s) {
    try {
      return s.value();
    } catch (Undecodable e) {
      return null;
    }
  }

  /**
   * Applies the access expiry to hit {@code s} without the key's lock: a DRAM deadline, or (moved too far,
   * {@link AccessDeadlines}) a rewrite of that version under the lock, skipped if the key changed meanwhile.
   */
  void touchFree(K key, Store.Slot<V> slot, Stored<V> s, long now) {
    long current = deadline(slot, s);
    long at = expiry.onAccess(now, current);
    if (at == current || access.record(slot.id(), s, at, now)) {
      return;
    }
    locked(key, slot, (sl, n, events) -> {
      Stored<V> cur = sl.get();
      if (same(cur, s)) {
        setExpiry(sl, cur, at, n);
      }
      return null;
    });
  }

  /** Whether {@code a} and {@code b} are one stored version (both absent, or the same value and expiry time). */
  static <V> boolean same(Stored<V> a, Stored<V> b) {
    if (a == null || b == null) {
      return a == b;
    }
    return a.expireAt() == b.expireAt() && a.sameValue(b);
  }

  // ---- locked primitives

  /**
   * The value of live entry {@code s}, or null if it does not decode: then the entry is removed (that
   * version: the key's lock is held), counted and logged, and the caller goes on as on a miss.
   */
  V read(Store.Slot<V> slot, Stored<V> s) {
    try {
      return s.value();
    } catch (Undecodable e) {
      removeSlot(slot, s);
      undecodables.found(e);
      return null;
    }
  }

  /**
   * The live entry of {@code key} if its value decodes, else null: for putIfAbsent and a load that does not
   * replace. One that does not decode is removed as by {@link #read}, so they store over it.
   */
  Stored<V> present(K key, Store.Slot<V> slot, long now, Events<K, V> events) {
    Stored<V> s = live(key, slot, now, events);
    return s == null || read(slot, s) != null ? s : null;
  }

  /** The value of an entry the caller replaces or removes, or null if it does not decode (counted and logged). */
  V old(Stored<V> s) {
    try {
      return s.value();
    } catch (Undecodable e) {
      undecodables.found(e);
      return null;
    }
  }

  KeyLocks locks() {
    return locks;
  }

  Store<K, V> store() {
    return store;
  }

  /**
   * The lock of {@code slot}'s key, for a write that tells no listener and reads no clock (a blind put): take it
   * with {@link ProcessorLocks#lock} and let it go with {@link ProcessorLocks#unlock}, as {@link #locked} does.
   */
  ReentrantLock lockOf(Store.Slot<V> slot) {
    return locks.of(slot.hash());
  }

  /** As {@link #locked(Object, Store.Slot, KeyOp)} with the key's slot. */
  <T> T locked(K key, KeyOp<K, V, T> op) {
    return locked(key, store.slot(key), op);
  }

  /**
   * Runs {@code op} on {@code key} under its lock (by the store's hash of it: {@link Store.Slot#hash()}), then,
   * unlocked, hands its events to the listeners in the lock's order. A thread inside an entry processor lets its
   * processor locks go before waiting for this one ({@link ProcessorLocks}).
   */
  <T> T locked(K key, Store.Slot<V> slot, KeyOp<K, V, T> op) {
    return underLock(slot, false, (sl, now, events, frame) -> op.apply(sl, now, events));
  }

  /**
   * As {@link #locked}, for an entry processor: its run is marked as holding the lock ({@link ProcessorLocks}),
   * so a nested operation that must wait lets it go and {@code op} learns it ({@link ProcessorLocks.Frame#released}).
   */
  <T> T processing(K key, Store.Slot<V> slot, ProcessorOp<K, V, T> op) {
    return underLock(slot, true, op);
  }

  private <T> T underLock(Store.Slot<V> slot, boolean processor, ProcessorOp<K, V, T> op) {
    int hash = slot.hash();
    int stripe = KeyLocks.stripe(hash);
    ReentrantLock lock = locks.of(hash);
    Events<K, V> events = Events.of(source, listeners);
    boolean released = ProcessorLocks.lock(lock);
    T result;
    long ticket;
    try {
      ProcessorLocks.Frame frame = processor ? ProcessorLocks.enter(lock) : null;
      try {
        result = op.apply(slot, System.currentTimeMillis(), events, frame);
      } finally {
        if (frame != null) {
          ProcessorLocks.exit(frame);
        }
      }
      ticket = events.isEmpty() ? DispatchOrder.NONE : order.ticket(stripe);
    } finally {
      ProcessorLocks.unlock(lock, released);
    }
    order.deliver(stripe, ticket, events::dispatch);
    return result;
  }

  /**
   * As {@link #run}, taking and releasing {@code key}'s lock around it (as {@link #locked} does, processor locks
   * included): a batch's key on its own, its events added to {@code deliveries} for {@link #deliver}.
   */
  <T> T lockedInto(K key, Store.Slot<V> slot, KeyOp<K, V, T> op, List<Delivery> deliveries) {
    ReentrantLock lock = locks.of(slot.hash());
    boolean released = ProcessorLocks.lock(lock);
    try {
      return run(key, slot, op, deliveries);
    } finally {
      ProcessorLocks.unlock(lock, released);
    }
  }

  /** Locks the stripes of {@code slots} (ascending, as {@link KeyLocks#lockAll}); unlock with {@code locks()}. */
  int[] lockAll(Collection<Store.Slot<V>> slots) {
    int[] hashes = new int[slots.size()];
    int i = 0;
    for (Store.Slot<V> s : slots) {
      hashes[i++] = s.hash();
    }
    return locks.lockAll(hashes);
  }

  /**
   * As {@link #locked} for a caller that holds the lock of {@code slot}'s key already ({@link #lockAll}); its
   * events are added to {@code deliveries}, for {@link #deliver} after the unlock.
   */
  <T> T run(K key, Store.Slot<V> slot, KeyOp<K, V, T> op, List<Delivery> deliveries) {
    Events<K, V> events = Events.of(source, listeners);
    T result = op.apply(slot, System.currentTimeMillis(), events);
    if (!events.isEmpty()) {
      int stripe = KeyLocks.stripe(slot.hash());
      deliveries.add(new Delivery(stripe, order.ticket(stripe), events));
    }
    return result;
  }

  /** Delivers the events of a batch, in order, with no lock held; the first listener failure is thrown at the end. */
  void deliver(List<Delivery> deliveries) {
    RuntimeException failure = deliverKeepingFirst(deliveries, null);
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * Delivers {@code deliveries} (in order, no lock held) and empties the list; returns {@code first}, or if it is
   * null the first listener failure (never throws one: every ticket taken is delivered).
   */
  RuntimeException deliverKeepingFirst(List<Delivery> deliveries, RuntimeException first) {
    RuntimeException failure = first;
    for (Delivery d : deliveries) {
      try {
        order.deliver(d.stripe(), d.ticket(), d.events()::dispatch);
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        }
      }
    }
    deliveries.clear();
    return failure;
  }

  /** A list for {@link #run}'s deliveries. */
  static List<Delivery> deliveries() {
    return new ArrayList<>();
  }

  /** The live entry of {@code key}, or null; an expired one is removed and reported. */
  Stored<V> live(K key, Store.Slot<V> slot, long now, Events<K, V> events) {
    Stored<V> s = slot.get();
    if (s == null || !expired(slot, s, now)) {
      return s;
    }
    removeSlot(slot, s);
    if (events.wants(EventType.EXPIRED)) {
      V old = old(s);
      events.add(EventType.EXPIRED, key, old, old);
    }
    return null;
  }

  /** Stores a new entry with the creation expiry; false (nothing stored) if it would expire at once. */
  boolean create(K key, Store.Slot<V> slot, V value, long now, Events<K, V> events) {
    long at = expiry.onCreation(now);
    if (at <= now) {
      return false;
    }
    slot.put(value, at);
    access.forget(slot.id());
    population.added(at, now);
    if (events.wants(EventType.CREATED)) {
      events.add(EventType.CREATED, key, value, null);
    }
    return true;
  }

  /**
   * A put that did not read what it replaces (eternal, no listener): counted as a new entry (an estimate) if
   * {@code counted}, i.e. while statistics are on (the estimate is only read for {@code CacheRemovals}).
   */
  void putBlind(Store.Slot<V> slot, V value, boolean counted) {
    slot.put(value, Stored.ETERNAL);
    if (counted) {
      population.addedEternal();
    }
  }

  void update(K key, Store.Slot<V> slot, Stored<V> old, V value, long now, Events<K, V> events) {
    long at = expiry.onUpdate(now, deadline(slot, old));
    slot.put(value, at);
    access.forget(slot.id());
    if (at != old.expireAt()) {
      population.removed(old.expireAt());
      population.added(at, now);
    }
    if (events.wants(EventType.UPDATED)) {
      events.add(EventType.UPDATED, key, value, old(old));
    }
  }

  void remove(K key, Store.Slot<V> slot, Stored<V> old, Events<K, V> events) {
    removeSlot(slot, old);
    if (events.wants(EventType.REMOVED)) {
      V v = old(old);
      events.add(EventType.REMOVED, key, v, v);
    }
  }

  /** Removes stored version {@code s} of {@code slot} (its lock held) and what DRAM keeps for it. */
  private void removeSlot(Store.Slot<V> slot, Stored<V> s) {
    slot.remove();
    access.forget(slot.id());
    population.removed(s.expireAt());
  }

  /** Rewrites version {@code s} with expiry time {@code at} at {@code now} (its lock held). */
  private void setExpiry(Store.Slot<V> slot, Stored<V> s, long at, long now) {
    slot.setExpiry(s, at);
    access.forget(slot.id());
    population.removed(s.expireAt());
    population.added(at, now);
  }

  /** Removes stored version {@code s} that did not decode ({@link #decoded} found it so), counted and logged. */
  void dropUndecodable(Store.Slot<V> slot, Stored<V> s) {
    try {
      s.value();
    } catch (Undecodable e) {
      removeSlot(slot, s);
      undecodables.found(e);
    }
  }

  /** Applies the access expiry under the key's lock: a DRAM deadline, or a rewrite if that cannot hold it. */
  void touch(Store.Slot<V> slot, Stored<V> s, long now) {
    long current = deadline(slot, s);
    long at = expiry.onAccess(now, current);
    if (at != current && !access.record(slot.id(), s, at, now)) {
      setExpiry(slot, s, at, now);
    }
  }

  /** The cache was emptied at once (a new epoch): no deadline or population of the old entries is kept. */
  void cleared() {
    access.clear();
    population.clear();
  }

  /**
   * The engine evicted one of the cache's entries: its expiry unknown, unless the store told it already
   * ({@link Store#evictionExpiries}: then nothing more to count).
   */
  void evicted() {
    if (!evictionExpiries) {
      population.evicted();
    }
  }

  /** The estimated number of live entries at {@code now} ({@link Population}). */
  long population(long now) {
    return population.live(now, access.extendedAt(now));
  }

  /** The access deadlines (tests). */
  AccessDeadlines access() {
    return access;
  }
}
