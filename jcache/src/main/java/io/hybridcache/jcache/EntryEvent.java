package io.hybridcache.jcache;

import javax.cache.Cache;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.EventType;

/** One change of one entry, as listeners and filters see it. Immutable. */
final class EntryEvent<K, V> extends CacheEntryEvent<K, V> {
  private static final long serialVersionUID = 1L;
  private final K key;
  private final transient V value;
  private final transient V oldValue;
  private final boolean oldValueAvailable;

  EntryEvent(Cache<K, V> source, EventType type, K key, V value, V oldValue, boolean oldValueAvailable) {
    super(source, type);
    this.key = key;
    this.value = value;
    this.oldValue = oldValue;
    this.oldValueAvailable = oldValueAvailable;
  }

  /** This event as a listener registered without old values sees it. */
  EntryEvent<K, V> withoutOldValue() {
    boolean gone = getEventType() == EventType.REMOVED || getEventType() == EventType.EXPIRED;
    @SuppressWarnings("unchecked")
    Cache<K, V> source = (Cache<K, V>) getSource();
    return new EntryEvent<>(source, getEventType(), key, gone ? null : value, null, false);
  }

  @Override
  public K getKey() {
    return key;
  }

  @Override
  public V getValue() {
    return value;
  }

  @Override
  public V getOldValue() {
    return oldValue;
  }

  @Override
  public boolean isOldValueAvailable() {
    return oldValueAvailable;
  }

  @Override
  public <T> T unwrap(Class<T> clazz) {
    return SimpleEntry.unwrap(this, clazz);
  }
}
