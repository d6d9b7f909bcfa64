package io.hybridcache.jcache;

import javax.cache.Cache;

/** An immutable {@link Cache.Entry}: what iterators hand out and writers receive. */
final class SimpleEntry<K, V> implements Cache.Entry<K, V> {
  private final K key;
  private final V value;

  SimpleEntry(K key, V value) {
    this.key = key;
    this.value = value;
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
  public <T> T unwrap(Class<T> clazz) {
    return unwrap(this, clazz);
  }

  /** {@code self} as {@code clazz} (its own class or an interface it has), else IllegalArgumentException. */
  static <T> T unwrap(Object self, Class<T> clazz) {
    if (clazz.isInstance(self)) {
      return clazz.cast(self);
    }
    throw new IllegalArgumentException("a " + self.getClass().getSimpleName() + " does not unwrap to " + clazz);
  }

  @Override
  public String toString() {
    return key + "=" + value;
  }
}
