package io.hybridcache.jcache;

/**
 * A value as a store holds it, with its expiry time (epoch milliseconds; {@link #ETERNAL} for none).
 * Immutable. Store-by-value entries decode their bytes on each {@link #value()}: the caller gets its own copy.
 */
abstract class Stored<V> {
  static final long ETERNAL = Long.MAX_VALUE;

  private final long expireAt;

  Stored(long expireAt) {
    this.expireAt = expireAt;
  }

  long expireAt() {
    return expireAt;
  }

  boolean expiredAt(long now) {
    return expireAt <= now;
  }

  /** The value (store-by-value: a new copy on each call). */
  abstract V value();

  /** Whether the engine's flash tier served this version (else DRAM; a store-by-reference holder: the heap). */
  boolean fromFlash() {
    return false;
  }

  /**
   * Whether {@code other} holds the same stored value as this (not a newer one put since): the same
   * reference here, the same bytes for a store-by-value entry.
   */
  boolean sameValue(Stored<V> other) {
    return other != null && other.value() == value();
  }

  /** A reference held as is (store-by-reference). */
  static <V> Stored<V> of(V value, long expireAt) {
    return new Stored<>(expireAt) {
      @Override
      V value() {
        return value;
      }
    };
  }
}
