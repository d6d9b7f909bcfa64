package io.hybridcache.jcache;

import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Store-by-reference: the caller's objects in a heap map, never copied, never on flash (the spec allows
 * sharing references only within one JVM's heap). Thread-safe.
 */
final class ReferenceStore<K, V> implements Store<K, V> {
  private final ConcurrentHashMap<K, Stored<V>> map = new ConcurrentHashMap<>();

  @Override
  public Slot<V> slot(K key) {
    return new Slot<>() {
      @Override
      public int hash() {
        return key.hashCode();
      }

      @Override
      public Stored<V> get() {
        return map.get(key);
      }

      @Override
      public void put(V value, long expireAt) {
        map.put(key, Stored.of(value, expireAt));
      }

      @Override
      public void setExpiry(Stored<V> current, long expireAt) {
        map.put(key, Stored.of(current.value(), expireAt));
      }

      @Override
      public void remove() {
        map.remove(key);
      }
    };
  }

  @Override
  public void clear() {
    map.clear();
  }

  @Override
  public Iterator<K> keys() {
    return map.keySet().iterator();
  }
}
