package io.hybridcache.bench.compare.stores;

import io.hybridcache.bench.compare.KvStore;
import java.util.Objects;
import java.util.concurrent.ConcurrentMap;

/**
 * The {@link KvStore} operations over a peer's {@link ConcurrentMap} (Chronicle Map, MapDB's
 * HTreeMap); subclasses open the map and say how to describe and close it. Thread-safe as the map
 * is.
 */
abstract class ConcurrentMapStore implements KvStore {
  private final ConcurrentMap<String, byte[]> map;

  ConcurrentMapStore(ConcurrentMap<String, byte[]> map) {
    this.map = Objects.requireNonNull(map, "map");
  }

  @Override
  public final byte[] get(String key) {
    return map.get(key);
  }

  @Override
  public final void put(String key, byte[] value) {
    map.put(key, value);
  }

  /** Removes {@code key} and tells whether it was there (the map reads back the old value for that). */
  @Override
  public final boolean delete(String key) {
    return map.remove(key) != null;
  }
}
