package io.hybridcache.jcache;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * Where a JCache cache keeps its entries: a namespace of the shared engine (store-by-value,
 * {@link ValueStore}) or a heap map (store-by-reference, {@link ReferenceStore}). Thread-safe; the
 * cache serializes the writes of one key with its key locks, and reads without a lock: {@link Slot#get()}
 * returns one whole stored version (an immutable {@link Stored}), never part of one.
 */
interface Store<K, V> {

  /** The entry of {@code key}, bound once per operation (a value store encodes the key once). */
  Slot<V> slot(K key);

  /**
   * Whether a stored entry must stay findable for a while past its expiry time (a value store: the engine's TTL
   * then has {@link ValueStore#ENGINE_TTL_SLACK} added), so that the operation that finds it reports it EXPIRED,
   * or an access deadline kept in DRAM may extend it ({@link AccessDeadlines}); else it goes at its expiry time.
   * Applies to the entries written from then on. Nothing to do for a reference store.
   */
  default void keepExpired(boolean on) {}

  /**
   * The stored entries of {@code slots} (this store's), in their order, null where there is none (expired ones
   * too: the caller checks), as {@link Slot#get()} of each; a value store reads them with one engine batch call.
   */
  default List<Stored<V>> getAll(List<Slot<V>> slots) {
    List<Stored<V>> found = new ArrayList<>(slots.size());
    for (Slot<V> s : slots) {
      found.add(s.get());
    }
    return found;
  }

  /**
   * Has {@code expiries} told the stored expiry time of each entry this store evicts for its bound, before the
   * cache is told of the eviction; false if the store cannot tell it (a value store: the engine's eviction hook
   * gives keys only, no value, no device read). Called once, before the store is used.
   */
  default boolean evictionExpiries(LongConsumer expiries) {
    return false;
  }

  /** Drops every entry at once (a value store moves to a new namespace epoch: no scan). */
  void clear();

  /**
   * The keys, weakly consistent (a value store scans its engine's keys); {@code hasNext} throws
   * {@link KeysUnavailable} if they cannot all be listed.
   */
  Iterator<K> keys();

  /** The store's keys cannot all be listed (a value store whose flash tier cannot be scanned). */
  final class KeysUnavailable extends javax.cache.CacheException {
    private static final long serialVersionUID = 1L;

    KeysUnavailable(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** One key's entry. */
  interface Slot<V> {
    /**
     * The hash the cache locks this key by ({@link KeyLocks}): of the key as the store tells keys apart (a
     * value store: the encoded key, so two equal {@code byte[]} keys are one key).
     */
    int hash();

    /**
     * The key as the store tells keys apart, for maps of per-key state ({@link AccessDeadlines}, {@link Loads}):
     * equal for two slots of one entry (a value store's encoded key), never equal to another entry's.
     */
    Object id();

    /**
     * Encodes {@code value} for the next {@link #put} of it, so that a value that cannot be stored fails
     * before the cache's writer is called; nothing to do for a reference store.
     */
    default void prepare(V value) {}

    /** The stored entry, or null (expired ones too: the caller checks). */
    Stored<V> get();

    /**
     * As {@link #get()} for a caller that needs only the entry's expiry time (whether the key is there): a value
     * store reads its header alone ({@code HybridCache.readHead}: one device page for a value of any size), and
     * the entry it returns has no value ({@link Stored#value()} throws {@link IllegalStateException}).
     */
    default Stored<V> head() {
      return get();
    }

    void put(V value, long expireAt);

    /** Keeps the value of {@code current}, with a new expiry time. */
    void setExpiry(Stored<V> current, long expireAt);

    void remove();
  }
}
