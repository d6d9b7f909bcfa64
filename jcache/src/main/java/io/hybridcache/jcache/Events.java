package io.hybridcache.jcache;

import java.util.ArrayList;
import java.util.List;
import javax.cache.Cache;
import javax.cache.event.EventType;

/** The events one operation made, in order, handed to the listeners at its end. Confined to that thread. */
final class Events<K, V> {
  private final Cache<K, V> source;
  private final Listeners<K, V> listeners;
  private List<EntryEvent<K, V>> events;

  Events(Cache<K, V> source, Listeners<K, V> listeners) {
    this.source = source;
    this.listeners = listeners;
  }

  /** True if some listener takes {@code type}: only then is an event (and its values) made. */
  boolean wants(EventType type) {
    return listeners.any(type);
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
