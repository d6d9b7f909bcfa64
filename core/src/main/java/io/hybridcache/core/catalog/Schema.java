package io.hybridcache.core.catalog;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One catalogue definition, thread-safe and immutable in what it describes: a schema id (unsigned
 * 32-bit, 1..2^32-1) and the sorted set of column names it stands for, in a namespace. The catalogue
 * keeps its bookkeeping fields (durable, reclaimed, last use) here as volatiles.
 */
public final class Schema {
  private final long id;
  private final String namespace;
  private final String[] names; // sorted, unique; never mutated
  private final List<String> columns;
  private final Map<String, Integer> positions;

  // ---- catalogue bookkeeping (see SchemaCatalog, "Concurrency") ----
  /** Set once the definition's record is synced: only then is the id handed out. */
  volatile boolean durable;
  /** Why the commit that should have made it durable failed, or null. */
  volatile RuntimeException failure;
  /** Set by reclaim before it decides; see SchemaCatalog#reclaim. */
  volatile boolean reclaimed;
  /** The catalogue's reclaim epoch when {@code idFor} last returned this schema. */
  volatile long lastUsedEpoch;

  Schema(long id, String namespace, String[] sortedNames) {
    this.id = id;
    this.namespace = namespace;
    this.names = sortedNames;
    this.columns = Collections.unmodifiableList(Arrays.asList(sortedNames));
    Map<String, Integer> p = new HashMap<>(sortedNames.length * 2);
    for (int i = 0; i < sortedNames.length; i++) {
      p.put(sortedNames[i], i);
    }
    this.positions = p;
  }

  /** The schema id, unsigned 32-bit, as a long. */
  public long id() {
    return id;
  }

  public String namespace() {
    return namespace;
  }

  /** Column names in sort order: the order values are encoded in. */
  public List<String> columns() {
    return columns;
  }

  public int size() {
    return names.length;
  }

  /** Position of {@code column} in {@link #columns}, or -1. */
  public int indexOf(String column) {
    Integer p = positions.get(column);
    return p == null ? -1 : p;
  }

  String[] nameArray() {
    return names;
  }

  /** Bytes this definition's record occupies in the catalogue log (entry header, key, value, alignment). */
  public int storedBytes() {
    return CatalogLog.recordBytes(CatalogRecord.defineValue(namespace, names).length);
  }

  @Override
  public String toString() {
    return "Schema{" + id + " " + namespace + " " + columns + "}";
  }

  /** Namespace + sorted names: the catalogue's reverse-index key. Immutable. */
  record Key(String namespace, String[] names, int hash) {
    static Key of(String namespace, String[] sortedNames) {
      return new Key(namespace, sortedNames, 31 * namespace.hashCode() + Arrays.hashCode(sortedNames));
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && hash == k.hash && namespace.equals(k.namespace) && Arrays.equals(names, k.names);
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public String toString() {
      return namespace + Arrays.toString(names);
    }
  }
}
