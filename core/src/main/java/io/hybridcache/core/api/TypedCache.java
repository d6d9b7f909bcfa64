package io.hybridcache.core.api;

import java.time.Duration;
import java.util.Objects;

/** A typed view over a {@link HybridCache}. Thread-safe if the codecs are. */
public final class TypedCache<K, V> {
  private final HybridCache cache;
  private final Codec<K> keys;
  private final Codec<V> values;

  public TypedCache(HybridCache cache, Codec<K> keys, Codec<V> values) {
    this.cache = Objects.requireNonNull(cache, "cache");
    this.keys = Objects.requireNonNull(keys, "keyCodec");
    this.values = Objects.requireNonNull(values, "valueCodec");
  }

  public V get(K key) {
    byte[] v = cache.get(keys.encode(key));
    return v == null ? null : values.decode(v);
  }

  public void put(K key, V value) {
    cache.put(keys.encode(key), values.encode(value));
  }

  public void put(K key, V value, Duration ttl) {
    cache.put(keys.encode(key), values.encode(value), ttl);
  }

  public boolean remove(K key) {
    return cache.remove(keys.encode(key));
  }

  public boolean containsKey(K key) {
    return cache.containsKey(keys.encode(key));
  }

  public HybridCache unwrap() {
    return cache;
  }
}
