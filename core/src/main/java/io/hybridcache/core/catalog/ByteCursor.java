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

  /** Skips {@code n} bytes (checked by {@link #length}) and returns where they start. */
  int skip(int n) {
    int at = pos;
    pos += n;
    return at;
  }

  /** {@code n} bytes of strict UTF-8 (malformed bytes are an error, never replaced). */
  String utf8(String what, int n) {
    try {
      String s = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(b, pos, n)).toString();
      pos += n;
      return s;
    } catch (CharacterCodingException e) {
      throw new RowFormatException("corrupt row: " + what + " at offset " + pos + " is not valid UTF-8");
    }
  }
}
