package io.hybridcache.jcache;

import java.util.concurrent.locks.ReentrantLock;
import javax.cache.Cache;
import javax.cache.event.EventType;

/**
 * The entry primitives of one cache (find live, create, update, remove, touch) with their expiry and
 * events, and the key lock every operation runs them under ({@link #locked}). Thread-safe: each
 * primitive is called with its key's lock held.
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
  private final KeyLocks locks = new KeyLocks();

  EntryOps(Cache<K, V> source, Store<K, V> store, Expiry expiry, Listeners<K, V> listeners) {
    this.source = source;
    this.store = store;
    this.expiry = expiry;
    this.listeners = listeners;
  }

  KeyLocks locks() {
    return locks;
  }

  Store<K, V> store() {
    return store;
  }

  /** Runs {@code op} on {@code key} under its lock, then hands its events to the listeners (still locked). */
  <T> T locked(K key, KeyOp<K, V, T> op) {
    ReentrantLock lock = locks.of(key);
    lock.lock();
    try {
      return run(key, op);
    } finally {
      lock.unlock();
    }
  }

  /** As {@link #locked} for a caller that holds the key's lock already. */
  <T> T run(K key, KeyOp<K, V, T> op) {
    Events<K, V> events = new Events<>(source, listeners);
    T result = op.apply(store.slot(key), System.currentTimeMillis(), events);
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
      V old = s.value();
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
      events.add(EventType.UPDATED, key, value, old.value());
    }
  }

  void remove(K key, Store.Slot<V> slot, Stored<V> old, Events<K, V> events) {
    slot.remove();
    if (events.wants(EventType.REMOVED)) {
      V v = old.value();
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
