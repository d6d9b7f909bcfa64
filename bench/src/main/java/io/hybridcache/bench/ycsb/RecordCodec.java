package io.hybridcache.bench.ycsb;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Encodes a YCSB record (field name -> bytes) as one compact byte array, the cache value.
 * Thread-safe: stateless.
 *
 * <p>Format (version {@value #FORMAT_VERSION}; bump it when the layout changes):
 * <pre>
 *   u8       FORMAT_VERSION
 *   varint   field count
 *   repeated field count times:
 *     varint nameLength, nameLength bytes of UTF-8 field name,
 *     varint valueLength, valueLength bytes of value
 * </pre>
 * varint is the unsigned LEB128 encoding of a non-negative int (1 byte below 128). A workload
 * record of 10 fields x 100 B ("field0".."field9") encodes in 1 + 1 + 10 x (1 + 6 + 1 + 100) = 1082 B.
 * Fields keep their insertion order. The cache checksums entries, so this format does not.
 */
public final class RecordCodec {
  /** Layout version, the first byte of every record. */
  public static final int FORMAT_VERSION = 1;

  private RecordCodec() {}

  /** The encoded record; field names and values must be non-null. */
  public static byte[] encode(Map<String, byte[]> fields) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(estimate(fields));
    out.write(FORMAT_VERSION);
    writeVarint(out, fields.size());
    for (Map.Entry<String, byte[]> e : fields.entrySet()) {
      byte[] name = e.getKey().getBytes(StandardCharsets.UTF_8);
      byte[] value = e.getValue();
      if (value == null) {
        throw new IllegalArgumentException("null value for field " + e.getKey());
      }
      writeVarint(out, name.length);
      out.write(name, 0, name.length);
      writeVarint(out, value.length);
      out.write(value, 0, value.length);
    }
    return out.toByteArray();
  }

  /** All fields of {@code record}, in stored order. */
  public static Map<String, byte[]> decode(byte[] record) {
    return decode(record, null);
  }

  /**
   * The fields of {@code record} named in {@code only} (all fields when null), in stored order.
   * Throws IllegalArgumentException if the bytes are not a record of this format.
   */
  public static Map<String, byte[]> decode(byte[] record, Set<String> only) {
    Reader r = new Reader(record);
    int version = r.u8();
    if (version != FORMAT_VERSION) {
      throw new IllegalArgumentException("corrupt record: format version " + version + ", expected " + FORMAT_VERSION);
    }
    int count = r.varint();
    Map<String, byte[]> fields = new LinkedHashMap<>(Math.max(4, Math.min(count, 64) * 2));
    for (int i = 0; i < count; i++) {
      int nameLen = r.varint();
      String name = new String(record, r.take(nameLen), nameLen, StandardCharsets.UTF_8);
      int valueLen = r.varint();
      int at = r.take(valueLen);
      if (only == null || only.contains(name)) {
        fields.put(name, Arrays.copyOfRange(record, at, at + valueLen));
      }
    }
    if (r.pos != record.length) {
      throw new IllegalArgumentException("corrupt record: " + (record.length - r.pos) + " trailing bytes");
    }
    return fields;
  }

  /** {@code record} with {@code updates} written over it (null record: just the updates). */
  public static byte[] merge(byte[] record, Map<String, byte[]> updates) {
    if (record == null) {
      return encode(updates);
    }
    Map<String, byte[]> fields = decode(record);
    fields.putAll(updates);
    return encode(fields);
  }

  private static int estimate(Map<String, byte[]> fields) {
    int n = 8;
    for (Map.Entry<String, byte[]> e : fields.entrySet()) {
      n += 10 + e.getKey().length() + (e.getValue() == null ? 0 : e.getValue().length);
    }
    return n;
  }

  private static void writeVarint(ByteArrayOutputStream out, int v) {
    if (v < 0) {
      throw new IllegalArgumentException("negative length " + v);
    }
    while ((v & ~0x7F) != 0) {
      out.write((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    out.write(v);
  }

  /** Bounds-checked cursor over a record. */
  private static final class Reader {
    private final byte[] b;
    private int pos;

    Reader(byte[] b) {
      this.b = b;
    }

    int u8() {
      need(1);
      return b[pos++] & 0xFF;
    }

    int varint() {
      int v = 0;
      for (int shift = 0; shift < 35; shift += 7) {
        int x = u8();
        v |= (x & 0x7F) << shift;
        if ((x & 0x80) == 0) {
          if (v < 0) {
            throw new IllegalArgumentException("corrupt record: negative length at " + pos);
          }
          return v;
        }
      }
      throw new IllegalArgumentException("corrupt record: varint too long at " + pos);
    }

    /** Skips {@code n} bytes and returns where they start. */
    int take(int n) {
      need(n);
      int at = pos;
      pos += n;
      return at;
    }

    private void need(int n) {
      if (n > b.length - pos) {
        throw new IllegalArgumentException("corrupt record: needs " + n + " bytes at " + pos + " of " + b.length);
      }
    }
  }
}
