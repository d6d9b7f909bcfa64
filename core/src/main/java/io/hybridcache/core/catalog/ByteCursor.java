package io.hybridcache.core.catalog;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;

/**
 * Not thread-safe (one per decode call): a bounds-checked reader over {@code [start, end)} of a byte
 * array. Every failure throws {@link RowFormatException} naming what was read and where.
 */
final class ByteCursor {
  final byte[] b;
  int pos;
  final int end;

  ByteCursor(byte[] b, int start, int end) {
    this.b = b;
    this.pos = start;
    this.end = end;
  }

  int remaining() {
    return end - pos;
  }

  int u8(String what) {
    if (pos >= end) {
      throw new RowFormatException("truncated row: " + what + " needs 1 byte at offset " + pos + ", none left");
    }
    return b[pos++] & 0xFF;
  }

  /** An unsigned LEB128 varint of at most {@code maxBits} bits. */
  long varint(String what, int maxBits) {
    long v = 0;
    int at = pos;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= end) {
        throw new RowFormatException("truncated row: " + what + " (a varint) at offset " + at + " runs past the end");
      }
      int x = b[pos++] & 0xFF;
      v |= (long) (x & 0x7F) << shift;
      if ((x & 0x80) == 0) {
        if (maxBits < 64 && (v >>> maxBits) != 0) {
          throw new RowFormatException("corrupt row: " + what + " " + Long.toUnsignedString(v) + " at offset " + at
              + " exceeds " + maxBits + " bits");
        }
        return v;
      }
    }
    throw new RowFormatException("corrupt row: " + what + " varint at offset " + at + " longer than 10 bytes");
  }

  /** A length varint that must fit in the remaining bytes; returns it. */
  int length(String what) {
    int at = pos;
    long n = varint(what + " length", 31);
    if (n > end - pos) {
      throw new RowFormatException("truncated row: " + what + " declares " + n + " bytes at offset " + at
          + ", only " + (end - pos) + " remain");
    }
    return (int) n;
  }

  /**
   * The length of value {@code i} of {@code names}: {@link #length} with the message (naming the column)
   * built only on failure, since this runs once per value.
   */
  int valueLength(String[] names, int i) {
    int at = pos;
    int n = fastLength();
    if (n >= 0) {
      return n;
    }
    pos = at;
    return length("value of column '" + Names.abbreviate(names[i]) + "' (#" + i + " of " + names.length + ")");
  }

  /** The length of inline name {@code i}, as {@link #valueLength}. */
  int nameLength(int i) {
    int at = pos;
    int n = fastLength();
    if (n >= 0) {
      return n;
    }
    pos = at;
    return length("name of inline column #" + i);
  }

  /** A length varint of at most 31 bits that fits in the bytes left, or -1 (cursor then undefined). */
  private int fastLength() {
    long v = 0;
    for (int shift = 0; shift < 35 && pos < end; shift += 7) {
      int x = b[pos++] & 0xFF;
      v |= (long) (x & 0x7F) << shift;
      if ((x & 0x80) == 0) {
        return v <= end - pos ? (int) v : -1;
      }
    }
    return -1;
  }

  /** Skips {@code n} bytes (checked by {@link #length}) and returns where they start. */
  int skip(int n) {
    int at = pos;
    pos += n;
    return at;
  }

  /** {@code n} bytes of strict UTF-8 (malformed bytes are an error, never replaced). */
  String utf8(String what, int n) {
    String fast = new String(b, pos, n, StandardCharsets.UTF_8);
    if (fast.indexOf('\uFFFD') < 0) { // no replacement happened: the bytes were valid UTF-8
      pos += n;
      return fast;
    }
    try {
      String s = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(b, pos, n)).toString();
      pos += n;
      return s;
    } catch (CharacterCodingException e) {
      throw new RowFormatException("corrupt row: " + what + " at offset " + pos + " is not valid UTF-8");
    }
  }
}
