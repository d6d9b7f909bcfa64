package io.hybridcache.core.engine;

/**
 * The small-object engine's operations, as the set region alone ({@link SmallSets}) and the log in front
 * of it ({@link SmallLog}) both offer them. Implementations are thread-safe; a miss is always allowed, a
 * value older than the last completed put or remove of its key never.
 */
interface SmallStore {
  /**
   * The newest version of {@code key} (its value, sequence and expiry; the value array is the caller's), or
   * null: absent, expired or unreadable.
   */
  SmallSetPage.Entry lookup(byte[] key);

  /** The newest value of {@code key}, or null. */
  default byte[] get(byte[] key) {
    SmallSetPage.Entry e = lookup(key);
    return e == null ? null : e.value();
  }

  /** Stores a version of {@code key}; false if it could not be stored (the key then misses). */
  boolean put(byte[] key, byte[] value, long sequence, long expiryMillis);

  /** Makes every version of {@code key} unreachable; true if one was found. */
  boolean remove(byte[] key);
}
