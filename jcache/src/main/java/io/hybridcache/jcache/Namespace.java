package io.hybridcache.jcache;

/**
 * One cache's key namespace in a shared engine: an id for the life of the directory and an epoch that
 * {@link Namespaces#bump} raises to drop every entry at once. Thread-safe: the prefix is replaced whole.
 *
 * <p>Format: a key in the engine is {@code varint(id) varint(epoch) keyBytes}. Both varints are
 * self-delimiting, so no cache's prefix is a prefix of another's.
 */
final class Namespace {
  private final String name;
  private final int id;
  private volatile int epoch;
  private volatile byte[] prefix;

  Namespace(String name, int id, int epoch) {
    this.name = name;
    this.id = id;
    setEpoch(epoch);
  }

  String name() { return name; }
  int id() { return id; }
  int epoch() { return epoch; }

  /** The prefix of the current epoch (do not change it). */
  byte[] prefix() {
    return prefix;
  }

  void setEpoch(int epoch) {
    byte[] p = new byte[10];
    int n = putVarint(p, 0, id);
    n = putVarint(p, n, epoch);
    this.prefix = java.util.Arrays.copyOf(p, n);
    this.epoch = epoch;
  }

  /** {@code prefix() + codec's bytes of key}, written in one array ({@link ReservingCodec}). */
  <K> byte[] keyOf(ReservingCodec<K> codec, K key) {
    byte[] p = prefix;
    byte[] k = codec.encode(key, p.length);
    System.arraycopy(p, 0, k, 0, p.length);
    return k;
  }

  /** The key bytes after the current prefix of an engine key, or null if it is not of this epoch. */
  byte[] strip(byte[] engineKey) {
    byte[] p = prefix;
    if (engineKey.length < p.length || !java.util.Arrays.equals(engineKey, 0, p.length, p, 0, p.length)) {
      return null;
    }
    return java.util.Arrays.copyOfRange(engineKey, p.length, engineKey.length);
  }

  /** The namespace id and epoch an engine key starts with, or null if it does not start with two varints. */
  static int[] idAndEpoch(byte[] engineKey) {
    int[] out = new int[2];
    int at = 0;
    for (int n = 0; n < 2; n++) {
      int v = 0;
      for (int shift = 0; ; shift += 7) {
        if (at >= engineKey.length || shift > 28) {
          return null;
        }
        byte b = engineKey[at++];
        v |= (b & 0x7F) << shift;
        if (b >= 0) {
          break;
        }
      }
      out[n] = v;
    }
    return out;
  }

  private static int putVarint(byte[] b, int at, int v) {
    while ((v & ~0x7F) != 0) {
      b[at++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    b[at++] = (byte) v;
    return at;
  }
}
