package io.hybridcache.jcache;

import io.hybridcache.core.api.HybridCache;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantLock;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.Configuration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.EventType;
import javax.cache.integration.CacheWriterException;
import javax.cache.integration.CompletionListener;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.EntryProcessorException;
import javax.cache.processor.EntryProcessorResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JCache {@link Cache} over a {@link Store}: the spec's semantics (expiry, read-through, write-through,
 * entry processors, listeners, statistics) on top of a namespace of the manager's hybridcache engine.
 *
 * <p>Concurrency: a hit takes no lock (a lock-free read of one immutable stored version, its expiry checked
 * and its value decoded with no lock held: {@link EntryOps}); every write of a key holds that key's stripe of
 * {@link KeyLocks} from its read to its write, so entry processors and the compare-and-set operations are
 * atomic per key; synchronous listeners are called after the unlock, a key's events in the order of its
 * writes ({@link DispatchOrder}). Read-through loads run with no lock held, one per key at a time
 * ({@link Loads}). An entry processor runs under its key's lock, which a nested operation that must wait lets
 * go ({@link ProcessorLocks}): nested invokes across caches cannot deadlock. Multi-key operations lock their
 * keys one key at a time, or with a writer all their stripes in ascending order. Events are made only when a
 * listener is registered; a put reads no clock but the wall clock's milliseconds unless statistics are on.
 *
 * <p>Design note: expiry times live in the stored value ({@link ValueStore}); an entry found expired is
 * removed and reported (EXPIRED) by the operation that finds it, as the spec allows. A stored value that
 * does not decode is a miss for every operation that reads it (removed, counted, logged: {@link EntryOps#read}),
 * never a hit in the statistics and never an exception; the iterator skips it.
 */
final class HybridJCache<K, V> implements Cache<K, V> {
  private static final Logger LOG = LoggerFactory.getLogger(HybridJCache.class);
  private final HybridCacheManager manager;
  private final String name;
  private final MutableConfiguration<K, V> config;
  private final EntryOps<K, V> ops;
  private final Loads loads = new Loads();
  private final HybridCache engine;
  private final Expiry expiry;
  private final Integration<K, V> integration;
  private final Listeners<K, V> listeners;
  private final Executor pool;
  private final Recorder counts;
  private final ConfigurationBean configBean;
  private final MBeans mbeans;
  private volatile boolean closed;
  /**
   * True while a put needs nothing from the entry it replaces (eternal expiry, no listener for created,
   * updated or expired entries): it then writes without reading.
   */
  private volatile boolean blindPut;

  HybridJCache(HybridCacheManager manager, String name, MutableConfiguration<K, V> config, Store<K, V> store,
      HybridCache engine, Executor pool, Statistics statistics) {
    this.manager = manager;
    this.name = name;
    this.config = config;
    this.engine = engine;
    this.pool = pool;
    this.expiry = new Expiry(config.getExpiryPolicyFactory().create());
    this.integration = new Integration<>(config);
    this.listeners = new Listeners<>(pool, statistics::backgroundFailure);
    this.counts = new Recorder(config, statistics);
    this.ops = new EntryOps<>(this, store, expiry, listeners, new Undecodables(name, counts.statistics()));
    for (CacheEntryListenerConfiguration<K, V> l : config.getCacheEntryListenerConfigurations()) {
      listeners.register(l);
    }
    this.configBean = new ConfigurationBean(config);
    this.mbeans = new MBeans(this, manager.mbeanNames());
    updateBlindPut();
    if (config.isManagementEnabled()) {
      mbeans.register(MBeans.Kind.CacheConfiguration, configBean);
    }
    if (config.isStatisticsEnabled()) {
      mbeans.register(MBeans.Kind.CacheStatistics, counts.statistics());
    }
  }

  // ---- reads

  @Override
  public V get(K key) {
    requireOpen();
    Objects.requireNonNull(key, "key");
    long start = counts.start();
    Store.Slot<V> slot = ops.store().slot(key);
    V v = hit(key, slot);
    counts.lookup(v != null);
    if (v == null && integration.readThrough()) {
      v = load(key, slot);
    }
    counts.getSince(start);
    return v;
  }

  /**
   * The live value of {@code key}, with its access expiry, or null. A hit takes no lock; an entry found expired
   * or undecodable is removed (and reported) under the key's lock, the version still there only.
   */
  private V hit(K key, Store.Slot<V> slot) {
    return hit(key, slot, slot.get());
  }

  /** As {@link #hit(Object, Store.Slot)}, for {@code s}, the stored version just read from {@code slot}. */
  private V hit(K key, Store.Slot<V> slot, Stored<V> s) {
    if (s == null) {
      return null;
    }
    // the clock only for an entry that can expire or a policy an access may move (an eternal entry of a cache
    // without one cannot be expired at any time, and has no access deadline): the common hit reads no clock
    boolean timed = s.expireAt() != Stored.ETERNAL || ops.accessMayExtend();
    long now = timed ? System.currentTimeMillis() : 0L;
    if (!ops.expired(slot, s, now)) {
      V v = ops.decoded(s);
      if (v != null) {
        if (timed) {
          ops.touchFree(key, slot, s, now);
        }
        counts.served(s);
        return v;
      }
    }
    return ops.locked(key, slot, (sl, n, events) -> {
      Stored<V> cur = ops.live(key, sl, n, events);
      V v = cur == null ? null : ops.read(sl, cur);
      if (v != null) {
        ops.touch(sl, cur, n);
        counts.served(cur);
      }
      return v;
    });
  }

  /**
   * A read-through load of missing {@code key}: the loader runs with no lock held, once for concurrent misses of
   * the key ({@link Loads}); its value is stored under the key's lock unless a write came first (then that
   * value is returned: never one older than the last completed write). A loader that reads its own key fails
   * ({@link Loads}: a recursive load), and this load with it, as a {@code CacheLoaderException}.
   */
  private V load(K key, Store.Slot<V> slot) {
    Object id = slot.id();
    Loads.Joined joined = loads.join(id);
    if (!joined.leader()) {
      if (joined.flight().ledBy(Thread.currentThread())) {
        throw new IllegalStateException("cache " + name + ": the cache loader of key " + key
            + " read that same key on its own thread (recursive load); it would wait for itself for ever");
      }
      return joined.flight().await();
    }
    try {
      V loaded = integration.load(key);
      V result = ops.locked(key, slot, (sl, now, events) -> {
        try {
          return storeLoaded(key, loaded, sl, now, events);
        } finally {
          loads.leave(id, joined.flight()); // with the store, under the lock: see Loads
        }
      });
      joined.flight().complete(result);
      return result;
    } catch (RuntimeException | Error e) {
      loads.leave(id, joined.flight());
      joined.flight().fail(e);
      throw e;
    }
  }

  /**
   * Stores {@code loaded} (null: nothing) under the key's lock unless the key holds a live value that decodes: a put
   * (or another load) stored first, newer than this load, and that value is returned; else {@code loaded}.
   */
  private V storeLoaded(K key, V loaded, Store.Slot<V> slot, long now, Events<K, V> events) {
    Stored<V> s = ops.live(key, slot, now, events);
    V current = s == null ? null : ops.read(slot, s); // one that does not decode is removed: loaded over
    if (current != null) {
      return current;
    }
    if (loaded != null) {
      ops.create(key, slot, loaded, now, events);
    }
    return loaded;
  }

  /**
   * The entries found, read with one batch read of the store ({@link Store#getAll}: one engine call, flash reads in
   * address order), each then checked as a {@link #get} checks its hit (expiry, access expiry, a value that does
   * not decode: a miss, removed); with read-through, the missing keys are loaded together
   * ({@code CacheLoader.loadAll}), each loaded value stored as {@link #load} stores it: a key a write stored during
   * the load returns that write's value, never the older loaded one.
   */
  @Override
  public Map<K, V> getAll(Set<? extends K> keys) {
    requireOpen();
    requireKeys(keys);
    long start = counts.start();
    Map<K, V> result = new HashMap<>();
    List<K> missing = new ArrayList<>();
    List<K> ks = new ArrayList<>(keys);
    List<Store.Slot<V>> slots = new ArrayList<>(ks.size());
    for (K k : ks) {
      slots.add(ops.store().slot(k));
    }
    List<Stored<V>> found = ops.store().getAll(slots);
    for (int i = 0; i < ks.size(); i++) {
      K k = ks.get(i);
      V v = hit(k, slots.get(i), found.get(i));
      counts.lookup(v != null);
      if (v != null) {
        result.put(k, v);
      } else {
        missing.add(k);
      }
    }
    if (integration.readThrough() && !missing.isEmpty()) {
      for (Map.Entry<K, V> e : integration.loadAll(missing).entrySet()) {
        if (e.getKey() != null && e.getValue() != null && keys.contains(e.getKey())) {
          result.put(e.getKey(), putLoaded(e.getKey(), e.getValue(), false));
        }
      }
    }
    counts.getSince(start);
    return result;
  }

  /**
   * Whether the key has a live entry, from its header alone ({@link Store.Slot#head()}: one device page for a
   * flash value of any size, nothing decoded, no lock). An expired entry is absent; with an EXPIRED listener it is
   * removed and told under the key's lock, as a get does ({@link EntryOps#live}: the version still there only, its
   * value read to tell it); without one it is left to a read. A value that would not decode is there until an
   * operation that reads it finds it.
   */
  @Override
  public boolean containsKey(K key) {
    requireOpen();
    Objects.requireNonNull(key, "key");
    Store.Slot<V> slot = ops.store().slot(key);
    Stored<V> s = slot.head();
    if (s == null || !ops.expired(slot, s, System.currentTimeMillis())) {
      return s != null;
    }
    if (!listeners.any(EventType.EXPIRED)) {
      return false;
    }
    return ops.locked(key, slot, (sl, now, events) -> ops.live(key, sl, now, events) != null);
  }

  /**
   * Whether {@code key} has a live entry whose value decodes (one that does not is removed, counted and absent):
   * for {@link #loadAll} without replace, which then loads over it.
   */
  private boolean holdsDecodable(K key) {
    Store.Slot<V> slot = ops.store().slot(key);
    Stored<V> s = slot.get(); // no lock: an expired entry is absent, and left to a read
    long now = System.currentTimeMillis();
    if (s == null || ops.expired(slot, s, now)) {
      return false;
    }
    if (ops.decoded(s) != null) {
      return true;
    }
    return ops.locked(key, slot, (sl, n, events) -> { // one that does not decode is absent, and removed
      Stored<V> cur = sl.get();
      return cur != null && !ops.expired(sl, cur, n) && ops.read(sl, cur) != null;
    });
  }

  @Override
  public void loadAll(Set<? extends K> keys, boolean replaceExistingValues, CompletionListener done) {
    requireOpen();
    requireKeys(keys);
    if (!integration.hasLoader()) {
      if (done != null) {
        done.onCompletion();
      }
      return;
    }
    pool.execute(() -> {
      Throwable failure = null;
      try {
        loadNow(keys, replaceExistingValues);
      } catch (Throwable e) { // an Error of the loader too: the caller hears of it, the pool thread lives on
        failure = e;
      }
      tell(done, failure);
    });
  }

  /** {@link #loadAll}'s work, on the pool: loads the keys asked for and stores what the loader returns. */
  private void loadNow(Set<? extends K> keys, boolean replace) {
    List<K> toLoad = new ArrayList<>();
    for (K k : keys) {
      if (replace || !holdsDecodable(k)) {
        toLoad.add(k);
      }
    }
    for (Map.Entry<K, V> e : integration.loadAll(toLoad).entrySet()) {
      if (e.getKey() != null && e.getValue() != null) {
        putLoaded(e.getKey(), e.getValue(), replace);
      }
    }
  }

  /**
   * Tells {@code done} (null: none) how a {@link #loadAll} ended ({@code failure} null: it completed). A failure
   * with no listener to tell, and a listener that throws, are logged and counted
   * ({@link HybridCacheStatisticsMXBean#getBackgroundFailures()}): nobody else hears of them.
   */
  private void tell(CompletionListener done, Throwable failure) {
    if (done == null) {
      if (failure != null) {
        backgroundFailure("a loadAll failed with no completion listener to tell", failure);
      }
      return;
    }
    try {
      if (failure == null) {
        done.onCompletion();
      } else {
        done.onException(failure instanceof Exception ex ? ex : new CacheException(failure));
      }
    } catch (Throwable e) { // an Error too: the pool thread lives on
      backgroundFailure("the completion listener of a loadAll failed", e);
    }
  }

  private void backgroundFailure(String what, Throwable e) {
    LOG.warn("cache {}: {}", name, what, e);
    counts.statistics().backgroundFailure();
  }

  /**
   * A loaded entry: stored without write-through and without counting a put, over a live one only if
   * {@code replace}. Returns the key's value after it: {@code value}, or the live one it did not replace.
   */
  private V putLoaded(K key, V value, boolean replace) {
    return ops.locked(key, (slot, now, events) -> {
      Stored<V> s = replace ? ops.live(key, slot, now, events) : null;
      if (s == null) {
        return storeLoaded(key, value, slot, now, events);
      }
      ops.update(key, slot, s, value, now, events);
      return value;
    });
  }

  // ---- writes

  @Override
  public void put(K key, V value) {
    requireOpen();
    checkTypes(key, value);
    long start = counts.start();
    if (blindPut) {
      Store.Slot<V> slot = ops.store().slot(key);
      ReentrantLock lock = ops.lockOf(slot);
      boolean released = ProcessorLocks.lock(lock); // no clock, no events: nothing here reads or tells them
      try {
        slot.prepare(value); // a value that cannot be stored fails before the writer is called
        integration.write(key, value);
        ops.putBlind(slot, value, counts.on()); // nothing to learn from the old entry: no read (no flash read)
      } finally {
        ProcessorLocks.unlock(lock, released);
      }
      counts.puts(1, start);
      return;
    }
    ops.locked(key, (slot, now, events) -> putLocked(key, value, slot, now, events));
    counts.putSince(start);
  }

  /** A put under the key's lock, written through; the previous live entry or null. */
  private Stored<V> putLocked(K key, V value, Store.Slot<V> slot, long now, Events<K, V> events) {
    return putOver(key, value, ops.live(key, slot, now, events), slot, now, events);
  }

  /** A put over live entry {@code s} (or null), under the key's lock, written through; returns {@code s}. */
  private Stored<V> putOver(K key, V value, Stored<V> s, Store.Slot<V> slot, long now, Events<K, V> events) {
    slot.prepare(value);
    integration.write(key, value);
    boolean stored = true;
    if (s == null) {
      stored = ops.create(key, slot, value, now, events);
    } else {
      ops.update(key, slot, s, value, now, events);
    }
    counts.puts(stored ? 1 : 0);
    return s;
  }

  @Override
  public V getAndPut(K key, V value) {
    requireOpen();
    checkTypes(key, value);
    long start = counts.start();
    Holder<V> old = ops.locked(key, (slot, now, events) -> {
      Stored<V> s = ops.live(key, slot, now, events);
      V v = s == null ? null : ops.read(slot, s); // the old entry's own bytes or reference; undecodable: removed
      putOver(key, value, v == null ? null : s, slot, now, events);
      return new Holder<>(v);
    });
    counts.lookup(old.value != null);
    counts.getSince(start);
    counts.putSince(start);
    return old.value;
  }

  @Override
  public void putAll(Map<? extends K, ? extends V> map) {
    requireOpen();
    for (Map.Entry<? extends K, ? extends V> e : map.entrySet()) {
      checkTypes(e.getKey(), e.getValue());
    }
    Map<K, V> toPut = new LinkedHashMap<>(map);
    Map<K, Store.Slot<V>> slots = new LinkedHashMap<>();
    for (Map.Entry<K, V> e : toPut.entrySet()) {
      Store.Slot<V> slot = ops.store().slot(e.getKey());
      slot.prepare(e.getValue()); // every value encodes before the writer sees any
      slots.put(e.getKey(), slot);
    }
    applyBatch(slots, keys -> {
      List<Cache.Entry<? extends K, ? extends V>> entries = new ArrayList<>();
      for (K k : keys) {
        entries.add(new SimpleEntry<>(k, toPut.get(k)));
      }
      CacheWriterException failure = integration.writeAll(entries);
      for (Cache.Entry<? extends K, ? extends V> notWritten : entries) {
        keys.remove(notWritten.getKey());
      }
      return failure;
    }, (k, slot, now, events) -> {
      Stored<V> s = ops.live(k, slot, now, events);
      if (s == null) {
        return ops.create(k, slot, toPut.get(k), now, events) ? 1 : 0;
      }
      ops.update(k, slot, s, toPut.get(k), now, events);
      return 1;
    }, counts::puts);
  }

  @Override
  public boolean putIfAbsent(K key, V value) {
    requireOpen();
    checkTypes(key, value);
    long start = counts.start();
    boolean stored = ops.locked(key, (slot, now, events) -> {
      // decoded, not its header alone: one that no longer decodes (a class changed by a deploy) is absent and
      // stored over, or a cache-aside putIfAbsent would never replace it
      if (ops.present(key, slot, now, events) != null) {
        return false;
      }
      slot.prepare(value);
      integration.write(key, value);
      return ops.create(key, slot, value, now, events);
    });
    counts.puts(stored ? 1 : 0, start);
    counts.lookup(!stored);
    return stored;
  }

  @Override
  public boolean remove(K key) {
    requireOpen();
    Objects.requireNonNull(key, "key");
    long start = counts.start();
    boolean removed = ops.locked(key, (slot, now, events) -> {
      integration.delete(key);
      Stored<V> s = ops.live(key, slot, now, events);
      if (s != null) {
        ops.remove(key, slot, s, events);
      }
      return s != null;
    });
    if (removed) {
      counts.removals(1, start);
    }
    return removed;
  }

  @Override
  public boolean remove(K key, V oldValue) {
    requireOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(oldValue, "oldValue");
    long start = counts.start();
    Outcome outcome = ops.locked(key, (slot, now, events) -> {
      Stored<V> s = ops.live(key, slot, now, events);
      V v = s == null ? null : ops.read(slot, s);
      if (v == null) {
        return Outcome.MISS;
      }
      if (!oldValue.equals(v)) {
        ops.touch(slot, s, now);
        return Outcome.HIT;
      }
      integration.delete(key);
      ops.remove(key, slot, s, events);
      return Outcome.DONE;
    });
    if (outcome == Outcome.DONE) {
      counts.removals(1, start);
    }
    counts.conditional(outcome != Outcome.MISS, start);
    return outcome == Outcome.DONE;
  }

  @Override
  public V getAndRemove(K key) {
    requireOpen();
    Objects.requireNonNull(key, "key");
    long start = counts.start();
    V old = ops.locked(key, (slot, now, events) -> {
      integration.delete(key);
      Stored<V> s = ops.live(key, slot, now, events);
      V v = s == null ? null : ops.read(slot, s);
      if (v != null) {
        ops.remove(key, slot, s, events);
      }
      return v;
    });
    if (old != null) {
      counts.removals(1, start);
    }
    counts.conditional(old != null, start);
    return old;
  }

  @Override
  public boolean replace(K key, V oldValue, V newValue) {
    requireOpen();
    Objects.requireNonNull(oldValue, "oldValue");
    checkTypes(key, newValue);
    long start = counts.start();
    Outcome outcome = ops.locked(key, (slot, now, events) -> {
      Stored<V> s = ops.live(key, slot, now, events);
      V v = s == null ? null : ops.read(slot, s);
      if (v == null) {
        return Outcome.MISS;
      }
      if (!oldValue.equals(v)) {
        ops.touch(slot, s, now);
        return Outcome.HIT;
      }
      slot.prepare(newValue);
      integration.write(key, newValue);
      ops.update(key, slot, s, newValue, now, events);
      return Outcome.DONE;
    });
    if (outcome == Outcome.DONE) {
      counts.puts(1, start);
    }
    counts.conditional(outcome != Outcome.MISS, start);
    return outcome == Outcome.DONE;
  }

  @Override
  public boolean replace(K key, V value) {
    return replaceStored(key, value) != null;
  }

  @Override
  public V getAndReplace(K key, V value) {
    Holder<V> old = replaceStored(key, value);
    return old == null ? null : old.value;
  }

  /** Replaces a live entry; its old value, or null if there was none. */
  private Holder<V> replaceStored(K key, V value) {
    requireOpen();
    checkTypes(key, value);
    long start = counts.start();
    Holder<V> old = ops.locked(key, (slot, now, events) -> {
      Stored<V> s = ops.live(key, slot, now, events);
      V v = s == null ? null : ops.read(slot, s);
      if (v == null) {
        return null;
      }
      slot.prepare(value);
      integration.write(key, value);
      ops.update(key, slot, s, value, now, events);
      return new Holder<>(v);
    });
    if (old != null) {
      counts.puts(1, start);
    }
    counts.conditional(old != null, start);
    return old;
  }

  @Override
  public void removeAll(Set<? extends K> keys) {
    requireOpen();
    requireKeys(keys);
    removeKeys(new LinkedHashSet<>(keys));
  }

  private void removeKeys(Set<K> keys) {
    Map<K, Store.Slot<V>> slots = new LinkedHashMap<>();
    for (K k : keys) {
      slots.put(k, ops.store().slot(k));
    }
    applyBatch(slots, toRemove -> {
      Collection<K> notDeleted = new LinkedHashSet<>(toRemove);
      CacheWriterException failure = integration.deleteAll(notDeleted);
      toRemove.removeAll(notDeleted);
      return failure;
    }, (k, slot, now, events) -> {
      Stored<V> s = ops.live(k, slot, now, events);
      if (s == null) {
        return 0;
      }
      ops.remove(k, slot, s, events);
      return 1;
    }, counts::removals);
  }

  /** What a batch writes through: drops from {@code keys} those it did not write, returns the failure or null. */
  @FunctionalInterface
  private interface BatchWrite<K> {
    CacheWriterException write(Set<K> keys);
  }

  /** One key's part of a batch, under the batch's locks; returns what it counts (0 or 1). */
  @FunctionalInterface
  private interface BatchOp<K, V> {
    int apply(K key, Store.Slot<V> slot, long now, Events<K, V> events);
  }

  /** Where a batch's count goes, with its start time (statistics). */
  @FunctionalInterface
  private interface BatchCount {
    void record(long n, long start);
  }

  /**
   * A putAll or removeAll: applies {@code op} to each key of {@code slots} and counts. Without a writer each key is
   * locked on its own (one stripe at a time: a batch never blocks the writers of its other keys' stripes) and its
   * events go to the listeners right after its unlock, before the next key's lock is taken: a batch never waits for
   * a lock while holding a delivery turn that a writer of another stripe waits for (that wait, with a nested write
   * from an entry processor holding the other lock, was a deadlock). With a writer, the stripes of all the keys are
   * locked (ascending) across the writer's batch and the cache's changes, so that no put of one of the keys lands
   * between the two (the writer's store and the cache then agree), and the events go after the last unlock; only
   * the entries the writer took change the cache (the spec). Every turn taken is delivered, also when a key's
   * change throws (else writers of its stripe would wait for ever); the first listener failure and the writer's
   * failure are thrown at the end.
   */
  private void applyBatch(Map<K, Store.Slot<V>> slots, BatchWrite<K> writeThrough, BatchOp<K, V> op,
      BatchCount count) {
    long start = counts.start();
    List<EntryOps.Delivery> deliveries = EntryOps.deliveries();
    CacheWriterException failure = null;
    RuntimeException listenerFailure = null;
    int n = 0;
    try {
      if (!integration.writeThrough()) {
        for (Map.Entry<K, Store.Slot<V>> e : slots.entrySet()) {
          K k = e.getKey();
          try {
            n += ops.lockedInto(k, e.getValue(), (slot, now, events) -> op.apply(k, slot, now, events), deliveries);
          } finally {
            listenerFailure = ops.deliverKeepingFirst(deliveries, listenerFailure);
          }
        }
      } else {
        int[] stripes = ops.lockAll(slots.values());
        try {
          Set<K> toApply = new LinkedHashSet<>(slots.keySet());
          if (!toApply.isEmpty()) {
            failure = writeThrough.write(toApply);
          }
          for (K k : toApply) {
            n += ops.run(k, slots.get(k), (slot, now, events) -> op.apply(k, slot, now, events), deliveries);
          }
        } finally {
          ops.locks().unlockAll(stripes);
        }
      }
    } finally {
      count.record(n, start);
      listenerFailure = ops.deliverKeepingFirst(deliveries, listenerFailure);
    }
    if (failure != null) {
      throw failure;
    }
    if (listenerFailure != null) {
      throw listenerFailure;
    }
  }

  /**
   * Removes every entry, telling writer, listeners and statistics. With no writer and no listener for removed
   * or expired entries it is {@link #clear()} (a new namespace epoch, no scan, no device read), and the
   * statistics count as removals the cache's estimated live entries ({@link Population}: when it is exact and how
   * it errs otherwise is stated there and in jcache.md; expired entries are not counted).
   * Otherwise it scans this cache's keys ({@link Store#keys()}) and removes them in batches of
   * {@link #REMOVE_ALL_BATCH} (one key at a time without a writer), each batch under its own keys' locks only.
   */
  @Override
  public void removeAll() {
    requireOpen();
    if (!integration.writeThrough() && !listeners.any(EventType.REMOVED) && !listeners.any(EventType.EXPIRED)) {
      long start = counts.start();
      long population = ops.population(System.currentTimeMillis());
      dropAll();
      counts.removals(population, start);
      return;
    }
    int batch = integration.writeThrough() ? REMOVE_ALL_BATCH : 1;
    Iterator<K> keys = ops.store().keys();
    Set<K> some = new LinkedHashSet<>();
    try {
      while (keys.hasNext()) {
        some.add(keys.next());
        if (some.size() == batch || !keys.hasNext()) {
          removeKeys(some);
          some = new LinkedHashSet<>();
        }
      }
    } catch (Store.KeysUnavailable e) { // this cache is emptied anyway; no other cache's entries are touched
      dropAll();
      throw new CacheException("removeAll of cache " + name + " could not list its keys; it was emptied at once "
          + "(a new namespace epoch), without telling the writer or the listeners of the entries not listed", e);
    }
  }

  /** Keys per writer batch of a {@link #removeAll()} that writes through. */
  static final int REMOVE_ALL_BATCH = 256;

  /** Drops every entry without telling anyone: a new namespace epoch (persisted), no scan of the flash tier. */
  @Override
  public void clear() {
    requireOpen();
    dropAll();
  }

  private void dropAll() {
    ops.store().clear();
    ops.cleared();
  }

  // ---- entry processors

  @Override
  public <T> T invoke(K key, EntryProcessor<K, V, T> processor, Object... arguments) {
    requireOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(processor, "processor");
    long start = counts.start();
    return ops.processing(key, ops.store().slot(key), (slot, lockedAt, events, frame) -> {
      long now = lockedAt;
      while (true) {
        Stored<V> s = ops.live(key, slot, now, events);
        ProcessorEntry<K, V> entry = new ProcessorEntry<>(key, s, ops::decoded,
            integration.readThrough() ? integration::load : null);
        frame.released = false;
        T result;
        try {
          result = processor.process(entry, arguments);
        } catch (EntryProcessorException e) {
          counts.conditional(entry.stored() != null, start);
          throw e;
        } catch (Throwable e) { // a CacheException too (a read-through's CacheLoaderException, the processor's own)
          counts.conditional(entry.stored() != null, start);
          throw new EntryProcessorException(e);
        }
        if (frame.released) { // a nested call let the lock go and waited: time passed, the entry may have changed
          now = System.currentTimeMillis();
          if (!EntryOps.same(s, slot.get()) || s != null && ops.expired(slot, s, now)) {
            continue; // changed or expired meanwhile: run on what is there now, at this time
          }
        }
        counts.conditional(entry.stored() != null, start); // an entry that did not decode is a miss
        if (s != null && entry.stored() == null) {
          ops.dropUndecodable(slot, s); // the version the processor found undecodable, still there
        }
        apply(key, slot, entry.stored(), entry, now, events);
        return result;
      }
    });
  }

  /** Applies what an entry processor did, under the key's lock. */
  private void apply(K key, Store.Slot<V> slot, Stored<V> s, ProcessorEntry<K, V> entry, long now, Events<K, V> events) {
    long start = counts.start();
    switch (entry.op()) {
      case ACCESS:
        ops.touch(slot, s, now);
        break;
      case CREATE:
        slot.prepare(entry.value());
        integration.write(key, entry.value());
        if (ops.create(key, slot, entry.value(), now, events)) {
          counts.puts(1, start);
        }
        break;
      case LOAD:
        ops.create(key, slot, entry.value(), now, events);
        break;
      case UPDATE:
        slot.prepare(entry.value());
        integration.write(key, entry.value());
        ops.update(key, slot, s, entry.value(), now, events);
        counts.puts(1, start);
        break;
      case REMOVE:
        integration.delete(key);
        if (s != null) {
          ops.remove(key, slot, s, events);
          counts.removals(1, start);
        }
        break;
      default:
        break;
    }
  }

  @Override
  public <T> Map<K, EntryProcessorResult<T>> invokeAll(Set<? extends K> keys, EntryProcessor<K, V, T> processor,
      Object... arguments) {
    requireOpen();
    requireKeys(keys);
    Objects.requireNonNull(processor, "processor");
    Map<K, EntryProcessorResult<T>> results = new HashMap<>();
    for (K k : keys) {
      try {
        T t = invoke(k, processor, arguments);
        if (t != null) {
          results.put(k, new ProcessorResult<>(t, null));
        }
      } catch (RuntimeException e) {
        results.put(k, new ProcessorResult<>(null, e));
      }
    }
    return results;
  }

  // ---- iteration

  @Override
  public Iterator<Entry<K, V>> iterator() {
    requireOpen();
    Iterator<K> keys = ops.store().keys();
    return new Iterator<>() {
      private Iterated<K, V> next;
      private Iterated<K, V> last;

      @Override
      public boolean hasNext() {
        try {
          while (next == null && keys.hasNext()) {
            next = read(keys.next());
          }
        } catch (Store.KeysUnavailable e) { // partial: the keys not listed yet are skipped (no cache loses its index)
          LOG.warn("cache {}: its iteration ended early, its keys could not all be listed", name, e);
          return false;
        }
        return next != null;
      }

      @Override
      public Entry<K, V> next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        last = next;
        next = null;
        return last.entry();
      }

      @Override
      public void remove() {
        if (last == null) {
          throw new IllegalStateException("next() first");
        }
        removeIterated(last);
        last = null;
      }
    };
  }

  /** An entry the iterator returned and the stored version it read. */
  private record Iterated<K, V>(Entry<K, V> entry, Stored<V> stored) {}

  /** An iterated entry (a hit, with access expiry), or null if it is gone. */
  private Iterated<K, V> read(K key) {
    long start = counts.start();
    return ops.locked(key, (slot, now, events) -> {
      Stored<V> s = ops.live(key, slot, now, events);
      V v = s == null ? null : ops.read(slot, s);
      if (v == null) {
        return null; // gone, or did not decode (removed): skipped
      }
      Iterated<K, V> e = new Iterated<>(new SimpleEntry<>(key, v), s);
      ops.touch(slot, s, now);
      counts.conditional(true, start);
      return e;
    });
  }

  /**
   * The iterator's remove: removes the entry it returned only if the key still holds that stored value (a
   * value put since is left alone), written through and reported as a remove.
   */
  private void removeIterated(Iterated<K, V> it) {
    K key = it.entry().getKey();
    long start = counts.start();
    boolean removed = ops.locked(key, (slot, now, events) -> {
      Stored<V> s = ops.live(key, slot, now, events);
      if (s == null || !s.sameValue(it.stored())) {
        return false;
      }
      integration.delete(key);
      ops.remove(key, slot, s, events);
      return true;
    });
    if (removed) {
      counts.removals(1, start);
    }
  }

  // ---- results of locked operations (statistics: Recorder, counted as the spec's table)

  /** What a conditional operation found: no entry, an entry it left alone, or one it changed. */
  private enum Outcome { MISS, HIT, DONE }

  /** A value or null, for results that may be null inside a locked operation. */
  private static final class Holder<V> {
    final V value;

    Holder(V value) {
      this.value = value;
    }
  }

  // ---- listeners, configuration, management, life cycle

  @Override
  public void registerCacheEntryListener(CacheEntryListenerConfiguration<K, V> listenerConfig) {
    requireOpen();
    Objects.requireNonNull(listenerConfig, "cacheEntryListenerConfiguration");
    config.addCacheEntryListenerConfiguration(listenerConfig); // refuses a duplicate
    listeners.register(listenerConfig);
    updateBlindPut();
  }

  @Override
  public void deregisterCacheEntryListener(CacheEntryListenerConfiguration<K, V> listenerConfig) {
    requireOpen();
    Objects.requireNonNull(listenerConfig, "cacheEntryListenerConfiguration");
    config.removeCacheEntryListenerConfiguration(listenerConfig);
    listeners.deregister(listenerConfig);
    updateBlindPut();
  }

  /**
   * What a put needs, after the listeners changed: whether it must read the entry it replaces ({@link #blindPut}),
   * and whether the store must keep an expired entry findable for a while ({@link Store#keepExpired}: only for an
   * EXPIRED listener, which hears of it when an operation finds it, or access deadlines in DRAM that extend it).
   * An EXPIRED listener registered later hears of the entries written from then on; those written before it
   * expire in the engine at their time, unreported.
   */
  private void updateBlindPut() {
    boolean expiredListener = listeners.any(EventType.EXPIRED);
    ops.store().keepExpired(expiredListener || expiry.mayExtendOnAccess());
    blindPut = expiry.eternal() && !listeners.any(EventType.CREATED) && !listeners.any(EventType.UPDATED)
        && !expiredListener;
  }

  /** The lock stripe of {@code key} (tests: forced interleavings of two keys on one stripe). */
  int stripeOf(K key) {
    return KeyLocks.stripe(ops.store().slot(key).hash());
  }

  /** The stored expiry time of {@code key}'s entry, or 0 if none (tests: the engine's TTL against it). */
  long storedExpiry(K key) {
    Stored<V> s = ops.store().slot(key).get();
    return s == null ? 0 : s.expireAt();
  }

  /**
   * The engine evicted one of this cache's entries from both tiers (a store-by-reference cache: dropped one for its
   * bound); {@code refused}: a DRAM eviction flash did not take.
   */
  void evicted(boolean refused) {
    ops.evicted();
    counts.eviction(refused);
  }

  @Override
  public <C extends Configuration<K, V>> C getConfiguration(Class<C> clazz) {
    FrozenConfiguration<K, V> copy = new FrozenConfiguration<>(config);
    if (clazz.isInstance(copy)) {
      return clazz.cast(copy); // an immutable copy: the spec's "the returned value must be immutable"
    }
    throw new IllegalArgumentException("the configuration of cache " + name + " is not a " + clazz.getName());
  }

  void setStatisticsEnabled(boolean on) {
    config.setStatisticsEnabled(on);
    if (on) {
      mbeans.register(MBeans.Kind.CacheStatistics, counts.statistics());
    } else {
      mbeans.unregister(MBeans.Kind.CacheStatistics);
    }
  }

  void setManagementEnabled(boolean on) {
    config.setManagementEnabled(on);
    if (on) {
      mbeans.register(MBeans.Kind.CacheConfiguration, configBean);
    } else {
      mbeans.unregister(MBeans.Kind.CacheConfiguration);
    }
  }

  /** The cache's types, for the manager's {@code getCache} check (no copy). */
  Class<K> keyType() {
    return config.getKeyType();
  }

  Class<V> valueType() {
    return config.getValueType();
  }

  Statistics statistics() {
    return counts.statistics();
  }

  @Override
  public String getName() {
    return name;
  }

  @Override
  public CacheManager getCacheManager() {
    return manager;
  }

  @Override
  public void close() {
    close(System.nanoTime() + manager.drainNanos());
  }

  /** Closes this cache; its asynchronous listeners' queued events get until {@code drainDeadline} (nanoTime). */
  void close(long drainDeadline) {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    manager.release(this);
    mbeans.unregister(MBeans.Kind.CacheStatistics);
    mbeans.unregister(MBeans.Kind.CacheConfiguration);
    integration.close();
    ListenerRegistration.closeQuietly(expiry.policy());
    listeners.close(drainDeadline);
  }

  @Override
  public boolean isClosed() {
    return closed;
  }

  /**
   * This cache ({@code HybridJCache}), its configuration ({@code HybridCacheConfiguration} or any
   * {@code Configuration} type it is), its statistics ({@link HybridCacheStatisticsMXBean}: the JCache counts
   * while statistics are enabled; the provider's own, undecodable and oversized entries, hits by tier, evictions and
   * rejections, always; their totals, which its {@code clear()} does not reset, as {@link HybridCacheCounts}), or for
   * a store-by-value cache the
   * manager's shared engine ({@link HybridCache}: its keys carry the cache's namespace prefix).
   */
  @Override
  public <T> T unwrap(Class<T> clazz) {
    if (clazz.isInstance(this)) {
      return clazz.cast(this);
    }
    if (clazz == HybridCacheStatisticsMXBean.class || clazz == HybridCacheCounts.class) {
      return clazz.cast(counts.statistics());
    }
    FrozenConfiguration<K, V> copy = new FrozenConfiguration<>(config);
    if (clazz.isInstance(copy)) {
      return clazz.cast(copy);
    }
    if (engine != null && clazz.isInstance(engine)) {
      return clazz.cast(engine);
    }
    throw new IllegalArgumentException("cache " + name + " does not unwrap to " + clazz.getName());
  }

  private static void requireKeys(Set<?> keys) {
    Objects.requireNonNull(keys, "keys");
    for (Object k : keys) {
      Objects.requireNonNull(k, "a null key in a key set");
    }
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException("cache " + name + " is closed");
    }
  }

  private void checkTypes(K key, V value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    Class<?> kt = config.getKeyType();
    Class<?> vt = config.getValueType();
    if (kt != Object.class && !kt.isInstance(key)) {
      throw new ClassCastException("key " + key + " is not a " + kt.getName());
    }
    if (vt != Object.class && !vt.isInstance(value) && !NullValues.is(value)) { // Spring's null: any cache takes it
      throw new ClassCastException("value " + value + " is not a " + vt.getName());
    }
  }

  @Override
  public String toString() {
    return "HybridJCache{" + name + " of " + manager.getURI() + "}";
  }
}
