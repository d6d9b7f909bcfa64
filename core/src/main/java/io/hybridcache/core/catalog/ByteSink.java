package io.hybridcache.core.catalog;

import java.util.Arrays;

/** Not thread-safe (one per encode call): a growable byte array with LEB128 varints. */
final class ByteSink {
  private byte[] buf;
  private int pos;

  ByteSink(int capacity) {
    buf = new byte[Math.max(16, capacity)];
  }

  int position() {
    return pos;
  }

  void u8(int v) {
    ensure(1);
    buf[pos++] = (byte) v;
  }

  /** Unsigned LEB128 of {@code v} (non-negative): 7 bits a byte, low first, high bit = more follows. */
  void varint(long v) {
    ensure(10);
    while ((v & ~0x7FL) != 0) {
      buf[pos++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buf[pos++] = (byte) v;
  }

  void bytes(byte[] b) {
    ensure(b.length);
    System.arraycopy(b, 0, buf, pos, b.length);
    pos += b.length;
  }

  /** Sets the byte at {@code at} (already written). */
  void set(int at, int v) {
    buf[at] = (byte) v;
  }

  byte[] toByteArray() {
    return pos == buf.length ? buf : Arrays.copyOf(buf, pos);
  }

  static int varintSize(long v) {
    int n = 1;
    while ((v & ~0x7FL) != 0) {
      v >>>= 7;
      n++;
    }
    return n;
  }

  private void ensure(int n) {
    if (buf.length - pos < n) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + n));
    }
  }
}
