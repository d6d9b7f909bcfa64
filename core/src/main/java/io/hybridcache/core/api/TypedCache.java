package io.hybridcache.core.api;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

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

  /** The values of the {@code keys} the cache holds (misses are left out); see {@link HybridCache#getAll}. */
  public Map<K, V> getAll(Collection<? extends K> keys) {
    List<K> ks = new ArrayList<>(keys);
    List<byte[]> encoded = new ArrayList<>(ks.size());
    for (K k : ks) {
      encoded.add(this.keys.encode(k));
    }
    List<byte[]> found = cache.getAll(encoded);
    Map<K, V> result = new LinkedHashMap<>();
    for (int i = 0; i < ks.size(); i++) {
      byte[] v = found.get(i);
      if (v != null) {
        result.put(ks.get(i), values.decode(v));
      }
    }
    return result;
  }

  /** The value for {@code key}, loading it on a miss; see {@link HybridCache#get(byte[], java.util.function.Function)}. */
  public V get(K key, Function<? super K, ? extends V> loader) {
    Objects.requireNonNull(loader, "loader");
    byte[] v = cache.get(keys.encode(key), k -> {
      V loaded = loader.apply(key);
      return loaded == null ? null : values.encode(loaded);
    });
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
