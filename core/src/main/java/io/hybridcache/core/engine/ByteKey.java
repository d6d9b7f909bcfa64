package io.hybridcache.core.engine;

import java.util.Arrays;

/**
 * A byte-array key with its 64-bit {@link KeyHash} computed once. Immutable and thread-safe as long as
 * nobody modifies the array after construction (the cache copies caller arrays it keeps).
 */
final class ByteKey {
  private final byte[] bytes;
  private final long hash;

  public ByteKey(byte[] bytes) {
    this.bytes = bytes;
    this.hash = KeyHash.of(bytes);
  }

  private ByteKey(byte[] bytes, long hash) {
    this.bytes = bytes;
    this.hash = hash;
  }

  /** The same key over {@code equalBytes} (a private copy of equal content), without hashing again. */
  public ByteKey withBytes(byte[] equalBytes) {
    return new ByteKey(equalBytes, hash);
  }

  public byte[] bytes() { return bytes; }

  /** The 64-bit hash the flash index is keyed by. */
  public long hash64() { return hash; }

  @Override
  public boolean equals(Object o) {
    return o instanceof ByteKey k && k.hash == hash && Arrays.equals(k.bytes, bytes);
  }

  @Override
  public int hashCode() {
    return (int) (hash ^ (hash >>> 32));
  }
}
