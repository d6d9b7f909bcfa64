package io.hybridcache.jcache;

import java.util.concurrent.locks.ReentrantLock;
import javax.cache.Cache;
import javax.cache.event.EventType;

/**
 * The entry primitives of one cache (find live, create, update, remove, touch) with their expiry and
 * events, and the key lock every operation runs them under ({@link #locked}). Thread-safe: each
 * primitive is called with its key's lock held.
 *
 * <p>Design note: a stored value that does not decode ({@link Undecodable}) is a miss. An operation that needs
 * the value reads it with {@link #read}, which removes the entry; the key's lock is held from the read to the
 * removal, and every write of the key takes it, so only that stored version is removed, never a newer one.
 * An entry being replaced or removed anyway gives its events and results no old value ({@link #old}). Either
 * way it is counted and logged ({@link Undecodables}); it never reaches the caller as an exception.
 */
final class EntryOps<K, V> {
  /** One operation on one key, run with the key's lock held. */
  @FunctionalInterface
  interface KeyOp<K, V, T> {
    T apply(Store.Slot<V> slot, long now, Events<K, V> events);
  }

  private final Cache<K, V> source;
  private final Store<K, V> store;
  private final Expiry expiry;
  private final Listeners<K, V> listeners;
  private final Undecodables undecodables;
  private final KeyLocks locks = new KeyLocks();

  EntryOps(Cache<K, V> source, Store<K, V> store, Expiry expiry, Listeners<K, V> listeners,
      Undecodables undecodables) {
    this.source = source;
    this.store = store;
    this.expiry = expiry;
    this.listeners = listeners;
    this.undecodables = undecodables;
  }

  /**
   * The value of live entry {@code s}, or null if it does not decode: then the entry is removed (that
   * version: the key's lock is held), counted and logged, and the caller goes on as on a miss.
   */
  V read(Store.Slot<V> slot, Stored<V> s) {
    try {
      return s.value();
    } catch (Undecodable e) {
      slot.remove();
      undecodables.found(e);
      return null;
    }
  }

  /**
   * The live entry of {@code key} if its value decodes, else null: for an operation that asks only whether the
   * key is there (putIfAbsent, a load that does not replace). One that does not decode is removed as by
   * {@link #read}, so it is absent for every operation.
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
   * Runs {@code op} on {@code key} under its lock (by the store's hash of it: {@link Store.Slot#hash()}), then
   * hands its events to the listeners (still locked).
   */
  <T> T locked(K key, KeyOp<K, V, T> op) {
    Store.Slot<V> slot = store.slot(key);
    ReentrantLock lock = locks.of(slot.hash());
    lock.lock();
    try {
      return run(key, slot, op);
    } finally {
      lock.unlock();
    }
  }

  /** Locks the stripes of {@code slots} (ascending, as {@link KeyLocks#lockAll}); unlock with {@code locks()}. */
  int[] lockAll(java.util.Collection<Store.Slot<V>> slots) {
    int[] hashes = new int[slots.size()];
    int i = 0;
    for (Store.Slot<V> s : slots) {
      hashes[i++] = s.hash();
    }
    return locks.lockAll(hashes);
  }

  /** As {@link #locked} for a caller that holds the lock of {@code slot}'s key already ({@link #lockAll}). */
  <T> T run(K key, Store.Slot<V> slot, KeyOp<K, V, T> op) {
    Events<K, V> events = new Events<>(source, listeners);
    T result = op.apply(slot, System.currentTimeMillis(), events);
    events.dispatch();
    return result;
  }

  /** The live entry of {@code key}, or null; an expired one is removed and reported. */
  Stored<V> live(K key, Store.Slot<V> slot, long now, Events<K, V> events) {
    Stored<V> s = slot.get();
    if (s == null || !s.expiredAt(now)) {
      return s;
    }
    slot.remove();
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
    if (events.wants(EventType.CREATED)) {
      events.add(EventType.CREATED, key, value, null);
    }
    return true;
  }

  void update(K key, Store.Slot<V> slot, Stored<V> old, V value, long now, Events<K, V> events) {
    slot.put(value, expiry.onUpdate(now, old.expireAt()));
    if (events.wants(EventType.UPDATED)) {
      events.add(EventType.UPDATED, key, value, old(old));
    }
  }

  void remove(K key, Store.Slot<V> slot, Stored<V> old, Events<K, V> events) {
    slot.remove();
    if (events.wants(EventType.REMOVED)) {
      V v = old(old);
      events.add(EventType.REMOVED, key, v, v);
    }
  }

  /** Applies the access expiry; rewrites the entry only if the policy changes it. */
  void touch(Store.Slot<V> slot, Stored<V> s, long now) {
    long at = expiry.onAccess(now, s.expireAt());
    if (at != s.expireAt()) {
      slot.setExpiry(s, at);
    }
  }
}
