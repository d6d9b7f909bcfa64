package io.hybridcache.jcache;

import java.util.Collection;
import java.util.Map;
import javax.cache.Cache;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheLoaderException;
import javax.cache.integration.CacheWriter;
import javax.cache.integration.CacheWriterException;

/**
 * A cache's loader and writer, with the spec's exception rules: whatever they throw reaches the caller as
 * a {@link CacheLoaderException} or {@link CacheWriterException} (wrapped unless it is one). Read-through
 * and write-through apply only when the configuration asks and a factory was given. Thread-safe if they are.
 */
final class Integration<K, V> {
  private final CacheLoader<K, V> loader;
  private final CacheWriter<K, V> writer;
  private final boolean readThrough;
  private final boolean writeThrough;

  @SuppressWarnings("unchecked")
  Integration(CompleteConfiguration<K, V> config) {
    this.loader = config.getCacheLoaderFactory() == null ? null : config.getCacheLoaderFactory().create();
    this.writer = config.getCacheWriterFactory() == null ? null
        : (CacheWriter<K, V>) config.getCacheWriterFactory().create();
    this.readThrough = config.isReadThrough() && loader != null;
    this.writeThrough = config.isWriteThrough() && writer != null;
  }

  boolean readThrough() { return readThrough; }
  boolean writeThrough() { return writeThrough; }
  boolean hasLoader() { return loader != null; }

  /** The loader's value for {@code key} (null: none). */
  V load(K key) {
    try {
      return loader.load(key);
    } catch (CacheLoaderException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new CacheLoaderException("the cache loader failed for " + key, e);
    }
  }

  Map<K, V> loadAll(Iterable<? extends K> keys) {
    try {
      return loader.loadAll(keys);
    } catch (CacheLoaderException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new CacheLoaderException("the cache loader failed", e);
    }
  }

  /** Writes through, if the cache writes through. */
  void write(K key, V value) {
    if (writeThrough) {
      try {
        writer.write(new SimpleEntry<>(key, value));
      } catch (CacheWriterException e) {
        throw e;
      } catch (RuntimeException e) {
        throw new CacheWriterException("the cache writer failed for " + key, e);
      }
    }
  }

  /**
   * Writes {@code entries} through; on return (or failure) {@code entries} holds those not written.
   * Returns the failure, wrapped, or null.
   */
  CacheWriterException writeAll(Collection<Cache.Entry<? extends K, ? extends V>> entries) {
    try {
      writer.writeAll(entries);
      return null;
    } catch (CacheWriterException e) {
      return e;
    } catch (RuntimeException e) {
      return new CacheWriterException("the cache writer failed", e);
    }
  }

  void delete(K key) {
    if (writeThrough) {
      try {
        writer.delete(key);
      } catch (CacheWriterException e) {
        throw e;
      } catch (RuntimeException e) {
        throw new CacheWriterException("the cache writer failed to delete " + key, e);
      }
    }
  }

  /** Deletes {@code keys} through; on return {@code keys} holds those not deleted. The failure, or null. */
  CacheWriterException deleteAll(Collection<K> keys) {
    try {
      writer.deleteAll(keys);
      return null;
    } catch (CacheWriterException e) {
      return e;
    } catch (RuntimeException e) {
      return new CacheWriterException("the cache writer failed", e);
    }
  }

  void close() {
    ListenerRegistration.closeQuietly(loader);
    ListenerRegistration.closeQuietly(writer);
  }
}
