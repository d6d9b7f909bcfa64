package io.hybridcache.core.catalog;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The catalogue's records (thread-safe: stateless), each stored as the key and value of one {@link
 * io.hybridcache.core.engine.RecordLog} record (which adds magic, version and CRC32C) in a
 * CATALOG-class segment.
 *
 * <p>Format (little-endian; varint = unsigned LEB128; strings are UTF-8):
 *
 * <pre>
 *  key   (5 bytes)  u8 kind, u32 id
 *  kind 1 DEFINE    id = schema id; value = varint namespace length, namespace,
 *                   varint column count n, n x (varint name length, name), names strictly ascending
 *  kind 2 RECLAIM   id = schema id whose definition is dropped; value empty. Ids are never reused,
 *                   so a RECLAIM is final whatever the order it is read in.
 *  kind 3 COMPACT   id = 0; value = u64 base segment id, u64 next schema id. Written last by a
 *                   compaction: segments with ids below the base are superseded (recovery ignores
 *                   them), and no schema id below "next" is ever assigned again (the high-water mark
 *                   that outlives reclaimed definitions).
 * </pre>
 *
 * Bump {@link #FORMAT_VERSION} (recorded in the catalogue's layout file) on any change; an unknown
 * kind with a valid checksum is refused at open rather than skipped.
 */
final class CatalogRecord {
  static final int FORMAT_VERSION = 1;
  static final int KEY_BYTES = 5;
  static final int DEFINE = 1;
  static final int RECLAIM = 2;
  static final int COMPACT = 3;

  private CatalogRecord() {}

  /** A decoded record; fields a kind does not use are null or 0. */
  record Decoded(int kind, long id, String namespace, String[] names, long baseSegment, long nextId) {}

  static byte[] key(int kind, long id) {
    return ByteBuffer.allocate(KEY_BYTES).order(ByteOrder.LITTLE_ENDIAN).put((byte) kind).putInt((int) id).array();
  }

  static byte[] defineValue(String namespace, String[] names) {
    ByteSink s = new ByteSink(16 + names.length * 16);
    byte[] ns = Names.utf8(namespace);
    s.varint(ns.length);
    s.bytes(ns);
    s.varint(names.length);
    for (String n : names) {
      byte[] b = Names.utf8(n);
      s.varint(b.length);
      s.bytes(b);
    }
    return s.toByteArray();
  }

  static byte[] compactValue(long baseSegment, long nextId) {
    return ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(baseSegment).putLong(nextId).array();
  }

  /**
   * The schema id a torn record's key names if it looks like a DEFINE key (the key may be damaged, so
   * the caller bounds what it believes), else -1.
   */
  static long defineIdHint(byte[] tornKey) {
    if (tornKey.length != KEY_BYTES || tornKey[0] != DEFINE) {
      return -1;
    }
    return Integer.toUnsignedLong(ByteBuffer.wrap(tornKey).order(ByteOrder.LITTLE_ENDIAN).getInt(1));
  }

  /** The record in a verified entry; throws {@link RowFormatException} if it is not one of this format. */
  static Decoded decode(byte[] key, byte[] value) {
    if (key.length != KEY_BYTES) {
      throw new RowFormatException("catalogue record key of " + key.length + " bytes, expected " + KEY_BYTES);
    }
    ByteBuffer k = ByteBuffer.wrap(key).order(ByteOrder.LITTLE_ENDIAN);
    int kind = k.get(0);
    long id = Integer.toUnsignedLong(k.getInt(1));
    switch (kind) {
      case DEFINE -> {
        ByteCursor c = new ByteCursor(value, 0, value.length);
        String ns = c.utf8("namespace", c.length("namespace"));
        long n = c.varint("column count", 31);
        if (n > Names.MAX_COLUMNS) {
          throw new RowFormatException("catalogue record of schema " + id + " has " + n + " columns");
        }
        String[] names = new String[(int) n];
        for (int i = 0; i < n; i++) {
          names[i] = c.utf8("column name", c.length("column name"));
        }
        if (c.remaining() != 0) {
          throw new RowFormatException("catalogue record of schema " + id + " has " + c.remaining() + " trailing bytes");
        }
        try {
          Names.check("namespace", ns);
          Names.checkSorted(names);
        } catch (IllegalArgumentException e) {
          throw new RowFormatException("catalogue record of schema " + id + ": " + e.getMessage());
        }
        return new Decoded(kind, id, ns, names, 0, 0);
      }
      case RECLAIM -> {
        return new Decoded(kind, id, null, null, 0, 0);
      }
      case COMPACT -> {
        if (value.length != 16) {
          throw new RowFormatException("catalogue COMPACT record of " + value.length + " bytes, expected 16");
        }
        ByteBuffer v = ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN);
        return new Decoded(kind, 0, null, null, v.getLong(0), v.getLong(8));
      }
      default -> throw new RowFormatException("unknown catalogue record kind " + kind
          + " (written by a newer format?)");
    }
  }
}
