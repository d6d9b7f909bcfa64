package io.hybridcache.jcache;

import java.util.function.Function;
import javax.cache.processor.MutableEntry;

/**
 * The entry an entry processor sees: reads come from the stored entry (or a read-through load), writes
 * are recorded and applied by the cache after the processor returns, all under the key's lock. Not
 * thread-safe: confined to the invoking thread.
 */
final class ProcessorEntry<K, V> implements MutableEntry<K, V> {
  /** What the processor did, in the end. */
  enum Op { NONE, ACCESS, CREATE, LOAD, UPDATE, REMOVE }

  private final K key;
  private Stored<V> stored;
  private final Function<Stored<V>, V> reader;
  private final Function<K, V> loader;
  private V value;
  private V decoded;
  private Op op = Op.NONE;

  /**
   * @param stored the live entry, or null; @param reader its value, or null if it does not decode (then it is
   * gone: the entry is absent); @param loader a read-through load, or null
   */
  ProcessorEntry(K key, Stored<V> stored, Function<Stored<V>, V> reader, Function<K, V> loader) {
    this.key = key;
    this.stored = stored;
    this.reader = reader;
    this.loader = loader;
  }

  @Override
  public K getKey() {
    return key;
  }

  @Override
  public V getValue() {
    if (op == Op.NONE) {
      value = storedValue();
      if (value != null) {
        op = Op.ACCESS;
      } else if (loader != null) {
        value = loader.apply(key);
        if (value != null) {
          op = Op.LOAD;
        }
      }
    }
    return value;
  }

  @Override
  public boolean exists() {
    return op == Op.NONE ? storedValue() != null : value != null;
  }

  /** The stored entry's value, decoded once; null if there is none or it does not decode (then it is gone). */
  private V storedValue() {
    if (decoded == null && stored != null) {
      decoded = reader.apply(stored);
      if (decoded == null) {
        stored = null; // it did not decode: removed, a miss
      }
    }
    return decoded;
  }

  @Override
  public void remove() {
    op = op == Op.CREATE || op == Op.LOAD ? Op.NONE : Op.REMOVE;
    value = null;
  }

  @Override
  public void setValue(V v) {
    if (v == null) {
      throw new NullPointerException("an entry processor set a null value for " + key);
    }
    op = stored == null ? Op.CREATE : Op.UPDATE;
    value = v;
  }

  @Override
  public <T> T unwrap(Class<T> clazz) {
    return SimpleEntry.unwrap(this, clazz);
  }

  /** The live entry as the processor left it found: null if there was none or it did not decode. */
  Stored<V> stored() {
    return stored;
  }

  Op op() {
    return op;
  }

  V value() {
    return value;
  }
}
