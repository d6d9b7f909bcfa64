package io.hybridcache.core.engine;

import java.io.Closeable;

/**
 * The memory-resident hash index of the flash tier: 64-bit key hash to packed {@link IndexEntry}.
 *
 * <p>Implementations are thread-safe; {@link #get} never blocks another {@code get}. Conditional
 * updates ({@link #replace}, {@link #remove(long, long)}) are atomic compare-and-set on the whole packed
 * value, which is how a concurrent update always wins over a reinsertion by reclaim. Key hashes are never
 * 0 (callers remap 0), and the value {@link IndexEntry#NONE} (0) means absent and is never stored.
 */
interface Index extends Closeable {

  /** The packed entry for {@code hash}, or {@link IndexEntry#NONE}. */
  long get(long hash);

  /** Maps {@code hash} to {@code entry}; returns the previous entry or NONE. */
  long put(long hash, long entry);

  /** Sets {@code hash} to {@code update} only if it currently maps to {@code expected}. */
  boolean replace(long hash, long expected, long update);

  /** Removes {@code hash} only if it currently maps to {@code expected}. */
  boolean remove(long hash, long expected);

  /** Removes {@code hash}; returns the previous entry or NONE. */
  long remove(long hash);

  /** Number of mappings (may be approximate while writers run). */
  long size();

  /** DRAM (heap and off-heap) this index holds, in bytes; the figure behind "DRAM bytes per flash entry". */
  long memoryBytes();

  /** Visits every mapping; concurrent updates may or may not be seen. */
  void forEach(EntryVisitor visitor);

  /** Removes every mapping. */
  void clear();

  /** Makes the current contents durable where the implementation persists (no-op otherwise). */
  void flush();

  /** Visitor for {@link #forEach}. */
  @FunctionalInterface
  interface EntryVisitor {
    void visit(long hash, long entry);
  }
}
