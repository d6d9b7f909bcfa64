package io.hybridcache.bench.smalldesign;

/**
 * The synthetic keys of the small-object design study and their hashes: key {@code i} is the 24-byte ASCII
 * string {@code "k"} + {@code i} zero-padded to 23 digits, hashed once with xxHash64 (seed 0, Collet's
 * algorithm for inputs under 32 bytes), so sets, tags and filter bits come from a real hash of real key
 * bytes as in the engine. Immutable after construction; thread-safe.
 */
final class Keys {
  static final int KEY_BYTES = 24;
  private static final long P1 = 0x9E3779B185EBCA87L;
  private static final long P2 = 0xC2B2AE3D27D4EB4FL;
  private static final long P3 = 0x165667B19E3779F9L;
  private static final long P4 = 0x85EBCA77C2B2AE63L;
  private static final long P5 = 0x27D4EB2F165667C5L;

  private final long[] hashes;

  Keys(int universe) {
    hashes = new long[universe];
    for (int i = 0; i < universe; i++) {
      hashes[i] = xxHash64(keyBytes(i));
    }
  }

  int size() {
    return hashes.length;
  }

  long hash(int key) {
    return hashes[key];
  }

  static byte[] keyBytes(int key) {
    byte[] b = new byte[KEY_BYTES];
    b[0] = 'k';
    int v = key;
    for (int i = KEY_BYTES - 1; i > 0; i--) {
      b[i] = (byte) ('0' + v % 10);
      v /= 10;
    }
    return b;
  }

  /** xxHash64 of a 24-byte input (three 8-byte lanes, little-endian), seed 0. */
  static long xxHash64(byte[] b) {
    if (b.length != KEY_BYTES) {
      throw new IllegalArgumentException("keys are " + KEY_BYTES + " bytes, was " + b.length);
    }
    long h = P5 + KEY_BYTES;
    for (int off = 0; off < KEY_BYTES; off += 8) {
      h ^= round(littleEndian(b, off));
      h = Long.rotateLeft(h, 27) * P1 + P4;
    }
    h ^= h >>> 33;
    h *= P2;
    h ^= h >>> 29;
    h *= P3;
    return h ^ (h >>> 32);
  }

  private static long round(long input) {
    return Long.rotateLeft(input * P2, 31) * P1;
  }

  private static long littleEndian(byte[] b, int off) {
    long v = 0;
    for (int i = 7; i >= 0; i--) {
      v = (v << 8) | (b[off + i] & 0xFF);
    }
    return v;
  }

  /** A second, independent 64-bit value of a hash (Murmur3's fmix64 of it, salted): filter bits and tags. */
  static long remix(long hash) {
    long h = hash ^ 0x9E3779B97F4A7C15L;
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    h *= 0xC4CEB9FE1A85EC53L;
    return h ^ (h >>> 33);
  }

  /** Which of {@code n} sets (or classes) a hash names: its high 32 bits scaled (Lemire's multiply-shift). */
  static int bucket(long hash, int n) {
    return (int) (((hash >>> 32) * n) >>> 32);
  }
}
