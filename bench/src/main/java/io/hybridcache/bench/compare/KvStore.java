package io.hybridcache.bench.compare;

/**
 * The few operations the comparison needs from a key-value store: one implementation per store
 * (ours and each peer library) in {@code io.hybridcache.bench.compare.stores}, each with a public
 * constructor taking {@link StoreSettings} (see {@link StoreType}).
 *
 * <p>Keys are YCSB keys (strings); values are opaque records ({@link
 * io.hybridcache.bench.ycsb.RecordCodec}). A cache may forget an entry (a later {@link #get}
 * returns null: a miss); a store never does.
 *
 * <p>Thread safety: implementations must be safe for concurrent calls from many threads. The
 * caller ({@link KvStoreDB}) serialises writes of one key, so a store needs no read-modify-write
 * atomicity of its own.
 */
public interface KvStore extends AutoCloseable {
  /** The value of {@code key}, or null if absent (never stored, deleted, or evicted by a cache). */
  byte[] get(String key);

  /** Stores {@code value} under {@code key}, replacing any older value. */
  void put(String key, byte[] value);

  /** Removes {@code key}; true if it was present (a store that cannot tell returns true). */
  boolean delete(String key);

  /** A one-line description of the effective configuration, printed by the harness. */
  String describe();

  /**
   * The store's own counters since it opened, one line, or null if it keeps none worth printing;
   * the harness prints it after each phase.
   */
  default String counters() {
    return null;
  }

  /**
   * DRAM the store holds for its own index beyond its data cache, as it measures it, or -1 if it does
   * not say; the harness records it beside what the budget charged for it.
   */
  default long indexBytes() {
    return -1;
  }

  /** What the DRAM budget was charged for the store's index (taken from its data cache), or -1 if nothing. */
  default long indexChargeBytes() {
    return -1;
  }

  /** Flushes and releases everything; the store's files stay for inspection. */
  @Override
  void close() throws Exception;
}
