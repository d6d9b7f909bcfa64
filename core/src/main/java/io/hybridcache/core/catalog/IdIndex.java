package io.hybridcache.core.catalog;

import java.util.Arrays;
import java.util.function.Consumer;

/**
 * Schema id -> {@link Schema}, lock-free for readers: ids are dense from 1, so chunks of 4096 slots in a
 * growable array of {@link java.util.concurrent.atomic.AtomicReferenceArray}s give a lookup of two
 * array reads. Thread-safe for any number of readers with one writer at a time ({@link #put} and
 * {@link #remove} run under the catalogue's assign lock); the chunk array is republished through a
 * volatile field whenever it or one of its elements changes.
 */
final class IdIndex {
  private static final int CHUNK_BITS = 12;
  private static final int CHUNK = 1 << CHUNK_BITS;

  @SuppressWarnings("unchecked")
  private volatile java.util.concurrent.atomic.AtomicReferenceArray<Schema>[] chunks =
      new java.util.concurrent.atomic.AtomicReferenceArray[1];

  /** The schema with {@code id}, or null. */
  Schema get(long id) {
    if (id <= 0 || id > SchemaCatalog.MAX_ID) {
      return null;
    }
    var c = chunks;
    int chunk = (int) (id >>> CHUNK_BITS);
    return chunk < c.length && c[chunk] != null ? c[chunk].get((int) (id & (CHUNK - 1))) : null;
  }

  /** Publishes {@code s} under its id (one writer at a time). */
  void put(Schema s) {
    int chunk = (int) (s.id() >>> CHUNK_BITS);
    var c = chunks;
    if (chunk >= c.length) {
      c = Arrays.copyOf(c, Math.max(chunk + 1, c.length * 2));
    }
    if (c[chunk] == null) {
      c[chunk] = new java.util.concurrent.atomic.AtomicReferenceArray<>(CHUNK);
    }
    chunks = c; // publishes a new array or a new chunk before the element below
    c[chunk].set((int) (s.id() & (CHUNK - 1)), s);
  }

  /** Removes {@code s} if it is still the schema under its id. */
  void remove(Schema s) {
    var c = chunks;
    int chunk = (int) (s.id() >>> CHUNK_BITS);
    if (chunk < c.length && c[chunk] != null) {
      c[chunk].compareAndSet((int) (s.id() & (CHUNK - 1)), s, null);
    }
  }

  /** Every schema in id order. */
  void forEach(Consumer<Schema> action) {
    for (var chunk : chunks) {
      if (chunk == null) {
        continue;
      }
      for (int i = 0; i < chunk.length(); i++) {
        Schema s = chunk.get(i);
        if (s != null) {
          action.accept(s);
        }
      }
    }
  }
}
