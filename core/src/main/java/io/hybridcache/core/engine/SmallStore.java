package io.hybridcache.core.engine;

/**
 * The small-object engine's operations, as the set region alone ({@link SmallSets}) and the log in front
 * of it ({@link SmallLog}) both offer them. Implementations are thread-safe; a miss is always allowed, a
 * value older than the last completed put or remove of its key never.
 */
interface SmallStore {
  /** The newest value of {@code key}, or null. */
  byte[] get(byte[] key);

  /** Stores a version of {@code key}; false if it could not be stored (the key then misses). */
  boolean put(byte[] key, byte[] value, long sequence, long expiryMillis);

  /** Makes every version of {@code key} unreachable; true if one was found. */
  boolean remove(byte[] key);
}
