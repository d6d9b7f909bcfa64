package io.hybridcache.core.engine;

import net.openhft.hashing.LongHashFunction;

/**
 * The 64-bit key hash the index is keyed by (XXH3 from zero-allocation-hashing). Never 0: 0 is the
 * empty marker of {@link HeapIndex}, so it is remapped to 1. Thread-safe: stateless.
 */
final class KeyHash {
  private static final LongHashFunction XX3 = LongHashFunction.xx3();

  private KeyHash() {}

  /** The hash of {@code length} key bytes at {@code offset} of {@code buf} (same value as for a copy). */
  public static long of(java.nio.ByteBuffer buf, int offset, int length) {
    long h = XX3.hashBytes(buf, offset, length);
    return h == 0 ? 1 : h;
  }

  public static long of(byte[] key) {
    long h = XX3.hashBytes(key);
    return h == 0 ? 1 : h;
  }
}
