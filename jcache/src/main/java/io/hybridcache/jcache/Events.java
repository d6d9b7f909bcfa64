package io.hybridcache.jcache;

import java.util.ArrayList;
import java.util.List;
import javax.cache.Cache;
import javax.cache.event.EventType;

/**
 * The events one operation made, in order, handed to the listeners after its key's lock is released
 * ({@link DispatchOrder}). Confined to that thread, but for {@link #NONE}, shared and stateless.
 */
final class Events<K, V> {
  /** For an operation of a cache with no listener: wants nothing, so holds nothing (no object per call). */
  @SuppressWarnings("rawtypes")
  private static final Events NONE = new Events<>(null, null);

  private final Cache<K, V> source;
  private final Listeners<K, V> listeners;
  private List<EntryEvent<K, V>> events;

  Events(Cache<K, V> source, Listeners<K, V> listeners) {
    this.source = source;
    this.listeners = listeners;
  }

  /** The events of an operation of a cache with {@code listeners}: {@link #NONE} when there are none. */
  @SuppressWarnings("unchecked")
  static <K, V> Events<K, V> of(Cache<K, V> source, Listeners<K, V> listeners) {
    return listeners.isEmpty() ? NONE : new Events<>(source, listeners);
  }

  /** True if some listener takes {@code type}: only then is an event (and its values) made. */
  boolean wants(EventType type) {
    return listeners != null && listeners.any(type);
  }

  boolean isEmpty() {
    return events == null;
  }

  void add(EventType type, K key, V value, V oldValue) {
    if (events == null) {
      events = new ArrayList<>(2);
    }
    events.add(new EntryEvent<>(source, type, key, value, oldValue, oldValue != null));
  }

  void dispatch() {
    if (events != null) {
      listeners.dispatch(events);
      events = null;
    }
  }
}
