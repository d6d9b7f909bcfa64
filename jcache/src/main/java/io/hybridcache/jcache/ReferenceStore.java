package io.hybridcache.jcache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.RemovalCause;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * Store-by-reference: the caller's objects in a heap map, never copied, never on flash (the spec allows
 * sharing references only within one JVM's heap). Bounded: at most {@code maxEntries} entries
 * ({@code cache.NAME.max-entries}, default {@link CacheSettings#DEFAULT_MAX_ENTRIES}; {@code Long.MAX_VALUE}:
 * none), the least valuable evicted first (Caffeine's W-TinyLFU), each eviction counted for the cache, with the
 * evicted entry's expiry time ({@link #evictionExpiries}: the cache's removal estimate, {@link Population}). An
 * entry with an expiry time is purged {@link ValueStore#ENGINE_TTL_SLACK} past it if nobody reads it, while a
 * read before that still finds it and the cache reports it expired, as for a store-by-value entry.
 * Maintenance runs on the writing thread (no pool). Thread-safe.
 */
final class ReferenceStore<K, V> implements Store<K, V> {
  private final Cache<K, Stored<V>> map;
  /** Told each evicted entry's expiry time ({@link #evictionExpiries}); set once, before the store is used. */
  private volatile LongConsumer expiries = at -> { };

  /**
   * @param nanoTime the clock purging runs by ({@code System::nanoTime}; a test's own)
   * @param evicted told of each entry dropped for the bound
   */
  ReferenceStore(long maxEntries, LongSupplier nanoTime, Runnable evicted) {
    Caffeine<Object, Object> base = Caffeine.newBuilder().executor(Runnable::run).ticker(nanoTime::getAsLong);
    if (maxEntries != Long.MAX_VALUE) {
      base.maximumSize(maxEntries);
    }
    Caffeine<K, Stored<V>> typed = base.expireAfter(new PurgeAfterExpiry<K, V>());
    this.map = typed.<K, Stored<V>>evictionListener((k, v, cause) -> {
      if (cause == RemovalCause.SIZE) {
        expiries.accept(v.expireAt());
        evicted.run();
      }
    }).build();
  }

  @Override
  public boolean evictionExpiries(LongConsumer expiries) {
    this.expiries = expiries;
    return true;
  }

  /** Purges a stored entry {@link ValueStore#ENGINE_TTL_SLACK} past its expiry time; an eternal one never. */
  private static final class PurgeAfterExpiry<K, V> implements Expiry<K, Stored<V>> {
    @Override
    public long expireAfterCreate(K key, Stored<V> value, long currentTime) {
      if (value.expireAt() == Stored.ETERNAL) {
        return Long.MAX_VALUE;
      }
      long ms = Math.max(0, value.expireAt() - System.currentTimeMillis());
      return TimeUnit.MILLISECONDS.toNanos(Math.min(ms, Long.MAX_VALUE / 2_000_000)) + ValueStore.ENGINE_TTL_SLACK.toNanos();
    }

    @Override
    public long expireAfterUpdate(K key, Stored<V> value, long currentTime, long currentDuration) {
      return expireAfterCreate(key, value, currentTime);
    }

    @Override
    public long expireAfterRead(K key, Stored<V> value, long currentTime, long currentDuration) {
      return currentDuration;
    }
  }

  @Override
  public Slot<V> slot(K key) {
    return new Slot<>() {
      @Override
      public int hash() {
        return key.hashCode();
      }

      @Override
      public Object id() {
        return key;
      }

      @Override
      public Stored<V> get() {
        return map.getIfPresent(key);
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
        map.invalidate(key);
      }
    };
  }

  /** Runs pending maintenance now: evictions over the bound, purges of expired entries. */
  void purge() {
    map.cleanUp();
  }

  @Override
  public void clear() {
    map.invalidateAll();
  }

  @Override
  public Iterator<K> keys() {
    return map.asMap().keySet().iterator();
  }
}
