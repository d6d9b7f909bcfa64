package io.hybridcache.jcache;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.Factory;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEventFilter;
import javax.cache.event.CacheEntryExpiredListener;
import javax.cache.event.CacheEntryListener;
import javax.cache.event.CacheEntryListenerException;
import javax.cache.event.CacheEntryRemovedListener;
import javax.cache.event.CacheEntryUpdatedListener;
import javax.cache.event.EventType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One registered listener: its filter, whether it wants old values, and for an asynchronous one the
 * serial queue its events go through in order (whose failures are counted: {@link SerialExecutor}). Thread-safe.
 */
final class ListenerRegistration<K, V> {
  private static final Logger LOG = LoggerFactory.getLogger(ListenerRegistration.class);

  private final CacheEntryListenerConfiguration<K, V> configuration;
  private final CacheEntryListener<? super K, ? super V> listener;
  private final CacheEntryEventFilter<? super K, ? super V> filter;
  private final SerialExecutor async;

  /**
   * {@code failed} is called once per asynchronous delivery that threw or that the pool refused ({@link
   * SerialExecutor}): no caller hears of those.
   */
  ListenerRegistration(CacheEntryListenerConfiguration<K, V> configuration, Executor pool, Runnable failed) {
    this.configuration = configuration;
    this.listener = configuration.getCacheEntryListenerFactory().create();
    Factory<CacheEntryEventFilter<? super K, ? super V>> f = configuration.getCacheEntryEventFilterFactory();
    this.filter = f == null ? null : f.create();
    this.async = configuration.isSynchronous() ? null : new SerialExecutor(pool, failed);
  }

  CacheEntryListenerConfiguration<K, V> configuration() {
    return configuration;
  }

  boolean wants(EventType type) {
    switch (type) {
      case CREATED: return listener instanceof CacheEntryCreatedListener;
      case UPDATED: return listener instanceof CacheEntryUpdatedListener;
      case REMOVED: return listener instanceof CacheEntryRemovedListener;
      case EXPIRED: return listener instanceof CacheEntryExpiredListener;
      default: return false;
    }
  }

  /** Hands {@code events} (in order) to the listener: now for a synchronous one, queued for another. */
  void deliver(List<EntryEvent<K, V>> events) {
    List<EntryEvent<K, V>> mine = new ArrayList<>(events.size());
    for (EntryEvent<K, V> e : events) {
      if (wants(e.getEventType()) && (filter == null || filter.evaluate(e))) {
        mine.add(configuration.isOldValueRequired() ? e : e.withoutOldValue());
      }
    }
    if (mine.isEmpty()) {
      return;
    }
    if (async == null) {
      call(mine);
    } else {
      async.execute(() -> call(mine)); // a failure, an Error too, is logged and counted; later events still run
    }
  }

  /** Calls the listener once per run of events of one type. */
  @SuppressWarnings("unchecked")
  private void call(List<EntryEvent<K, V>> events) {
    int from = 0;
    while (from < events.size()) {
      EventType type = events.get(from).getEventType();
      int to = from;
      while (to < events.size() && events.get(to).getEventType() == type) {
        to++;
      }
      List<EntryEvent<K, V>> run = events.subList(from, to);
      try {
        switch (type) {
          case CREATED: ((CacheEntryCreatedListener<K, V>) listener).onCreated(new ArrayList<>(run)); break;
          case UPDATED: ((CacheEntryUpdatedListener<K, V>) listener).onUpdated(new ArrayList<>(run)); break;
          case REMOVED: ((CacheEntryRemovedListener<K, V>) listener).onRemoved(new ArrayList<>(run)); break;
          case EXPIRED: ((CacheEntryExpiredListener<K, V>) listener).onExpired(new ArrayList<>(run)); break;
          default: break;
        }
      } catch (CacheEntryListenerException e) {
        throw e;
      } catch (RuntimeException e) {
        throw new CacheEntryListenerException("a cache entry listener failed", e);
      }
      from = to;
    }
  }

  /** Closes it on deregistration: queued events get {@link #DEREGISTER_WAIT_MILLIS}. */
  void close() {
    close(System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(DEREGISTER_WAIT_MILLIS));
  }

  /**
   * Waits for queued events until {@code deadline} (nanoTime: shared by every listener of a closing manager),
   * then closes the listener and filter if they are Closeable.
   */
  void close(long deadline) {
    if (async != null) {
      try {
        async.awaitIdle(Math.max(0, java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    closeQuietly(listener);
    closeQuietly(filter);
  }

  /** How long a deregistered listener's queued events are waited for. */
  static final long DEREGISTER_WAIT_MILLIS = 5_000;

  static void closeQuietly(Object o) {
    if (o instanceof Closeable) {
      try {
        ((Closeable) o).close();
      } catch (IOException | RuntimeException e) {
        LOG.warn("closing {} failed", o.getClass().getName(), e);
      }
    }
  }
}
