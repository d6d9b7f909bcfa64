package io.hybridcache.jcache;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryListenerException;
import javax.cache.event.EventType;

/** The listeners of one cache. Thread-safe (copy-on-write list). */
final class Listeners<K, V> {
  private final CopyOnWriteArrayList<ListenerRegistration<K, V>> registrations = new CopyOnWriteArrayList<>();
  private final Executor pool;
  private final Runnable failed;

  /** Asynchronous listeners run on {@code pool}; {@code failed} counts their failures ({@link SerialExecutor}). */
  Listeners(Executor pool, Runnable failed) {
    this.pool = pool;
    this.failed = failed;
  }

  /** Registers {@code config}; false if an equal one is registered already. */
  synchronized boolean register(CacheEntryListenerConfiguration<K, V> config) {
    for (ListenerRegistration<K, V> r : registrations) {
      if (r.configuration().equals(config)) {
        return false;
      }
    }
    registrations.add(new ListenerRegistration<>(config, pool, failed));
    return true;
  }

  synchronized boolean deregister(CacheEntryListenerConfiguration<K, V> config) {
    for (ListenerRegistration<K, V> r : registrations) {
      if (r.configuration().equals(config)) {
        registrations.remove(r);
        r.close();
        return true;
      }
    }
    return false;
  }

  boolean any(EventType type) {
    for (ListenerRegistration<K, V> r : registrations) {
      if (r.wants(type)) {
        return true;
      }
    }
    return false;
  }

  boolean isEmpty() {
    return registrations.isEmpty();
  }

  /**
   * Delivers {@code events} to every listener: synchronous ones before this returns (the first failure
   * is thrown, as a {@code CacheEntryListenerException}, after all were called), asynchronous ones queued.
   */
  void dispatch(List<EntryEvent<K, V>> events) {
    if (events.isEmpty()) {
      return;
    }
    RuntimeException failure = null;
    for (ListenerRegistration<K, V> r : registrations) {
      try {
        r.deliver(events);
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e instanceof CacheEntryListenerException ? e
              : new CacheEntryListenerException("a cache entry listener's filter failed", e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** Closes every listener; their queued events get until {@code drainDeadline} (nanoTime) together. */
  void close(long drainDeadline) {
    for (ListenerRegistration<K, V> r : registrations) {
      r.close(drainDeadline);
    }
    registrations.clear();
  }
}
