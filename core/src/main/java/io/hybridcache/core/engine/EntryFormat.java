package io.hybridcache.core.engine;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Encodes and verifies one flash entry: a fixed header, the full key, the value.
 *
 * <p>Thread-safe: stateless (a fresh {@link CRC32C} per call).
 *
 * <p>Format (little-endian), {@value #HEADER_BYTES}-byte header:
 *
 * <pre>
 *  offset size field
 *   0     4    magic 0x31454348 ("HCE1")
 *   4     4    CRC32C of bytes [8, 40 + keyLength + valueLength): header tail, key and value
 *   8     1    format version ({@value #FORMAT_VERSION})
 *   9     1    flags: bit 0 = expiry present
 *  10     2    key length, unsigned (1..65535)
 *  12     4    value length (0..2^31-1)
 *  16     4    segment id (unsigned) the entry was written to: a stale address into a reused slot fails here
 *  20     4    lifetime class id the entry was written for (diagnostics, reclaim accounting)
 *  24     8    sequence number (global, monotonic per cache)
 *  32     8    expiry, epoch milliseconds, 0 = never
 *  40     k    key bytes
 *  40+k   v    value bytes
 * </pre>
 *
 * Entries start at 16-byte aligned offsets; the padding between entries is zero and is not covered.
 * Bump {@link #FORMAT_VERSION} on any change to this layout; readers treat another version as a miss.
 * The same layout is documented in {@code src/site/format.md}.
 */
final class EntryFormat {
  public static final int MAGIC = 0x31454348;
  /** Bump on any change of the layout above. */
  public static final byte FORMAT_VERSION = 1;
  public static final int HEADER_BYTES = 40;
  public static final int MAX_KEY_BYTES = io.hybridcache.core.api.CacheConfig.MAX_KEY_BYTES;

  private static final int CRC_START = 8;
  private static final int FLAG_EXPIRY = 1;

  private EntryFormat() {}

  /** Bytes the entry occupies, header included, before alignment padding. */
  public static int entryBytes(int keyLength, int valueLength) {
    return HEADER_BYTES + keyLength + valueLength;
  }

  /**
   * Writes an entry at {@code buf}'s position and advances it by {@link #entryBytes}. The caller
   * checked the room.
   */
  public static void write(
      ByteBuffer buf, long segmentId, int lifetimeClass, long sequence, long expiryMillis, byte[] key, byte[] value) {
    if (key.length == 0 || key.length > MAX_KEY_BYTES) {
      throw new IllegalArgumentException("key length must be 1.." + MAX_KEY_BYTES + ": " + key.length);
    }
    // absolute puts on the caller's buffer (a little-endian one is written in place: no view object per entry)
    ByteBuffer b = buf.order() == ByteOrder.LITTLE_ENDIAN ? buf : buf.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int start = buf.position();
    int end = start + HEADER_BYTES + key.length + value.length;
    if (end > buf.limit()) {
      throw new BufferOverflowException();
    }
    b.putInt(start, MAGIC)
        .putInt(start + 4, 0)
        .put(start + 8, FORMAT_VERSION)
        .put(start + 9, (byte) (expiryMillis != 0 ? FLAG_EXPIRY : 0))
        .putShort(start + 10, (short) key.length)
        .putInt(start + 12, value.length)
        .putInt(start + 16, (int) segmentId)
        .putInt(start + 20, lifetimeClass)
        .putLong(start + 24, sequence)
        .putLong(start + 32, expiryMillis)
        .put(start + HEADER_BYTES, key)
        .put(start + HEADER_BYTES + key.length, value);
    int limit = b.limit();
    CRC32C crc = new CRC32C();
    crc.update(b.limit(end).position(start + CRC_START)); // leaves the position at end
    b.limit(limit);
    b.putInt(start + 4, (int) crc.getValue());
    buf.position(end);
  }

  /**
   * Parses and verifies the entry at {@code buf}'s position (little-endian), or returns null when the
   * bytes are not a whole, intact entry of {@code expectedSegmentId}: wrong magic or version, lengths
   * past the buffer, CRC mismatch. Never throws on corrupt bytes. Does not move {@code buf}.
   */
  public static Entry read(ByteBuffer buf, long expectedSegmentId) {
    ByteBuffer b = buf.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int start = b.position();
    if (b.remaining() < HEADER_BYTES || b.getInt(start) != MAGIC || b.get(start + 8) != FORMAT_VERSION) {
      return null;
    }
    int keyLength = Short.toUnsignedInt(b.getShort(start + 10));
    int valueLength = b.getInt(start + 12);
    if (keyLength == 0 || valueLength < 0 || (long) HEADER_BYTES + keyLength + valueLength > b.remaining()) {
      return null;
    }
    if ((b.getInt(start + 16) & 0xFFFF_FFFFL) != (expectedSegmentId & 0xFFFF_FFFFL)) { // the id's low 32 bits
      return null;
    }
    int end = start + HEADER_BYTES + keyLength + valueLength;
    CRC32C crc = new CRC32C();
    crc.update(b.duplicate().position(start + CRC_START).limit(end));
    if ((int) crc.getValue() != b.getInt(start + 4)) {
      return null;
    }
    byte[] key = new byte[keyLength];
    byte[] value = new byte[valueLength];
    b.position(start + HEADER_BYTES).get(key).get(value);
    return new Entry(
        key, value, b.getInt(start + 20), b.getLong(start + 24), b.getLong(start + 32), end - start);
  }

  /**
   * Bytes the entry at absolute index {@code p} of {@code buf} claims to span, or 0 if its header is not
   * plausibly an entry of {@code segmentId} (magic, version, segment id, lengths). Only the header is
   * checked: the scans that step through a segment with it verify the CRC of the entries they use (an
   * entry reclaim only unlinks needs none: a damaged key hashes elsewhere, and unlinking is safe).
   */
  static int extentAt(ByteBuffer buf, int p, long segmentId) {
    ByteBuffer b = buf.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    if (b.getInt(p) != MAGIC || b.get(p + 8) != FORMAT_VERSION
        || (b.getInt(p + 16) & 0xFFFF_FFFFL) != (segmentId & 0xFFFF_FFFFL)) {
      return 0;
    }
    int keyLength = Short.toUnsignedInt(b.getShort(p + 10));
    long len = HEADER_BYTES + (long) keyLength + b.getInt(p + 12);
    return keyLength == 0 || len <= HEADER_BYTES || len > IndexEntry.MAX_ENTRY_BYTES ? 0 : (int) len;
  }

  /**
   * As {@link #read} without copying anything: true if the {@code extent} bytes at {@code p} of
   * {@code b} (little-endian, absolute indexes) are a whole, intact entry of {@code segmentId}. For
   * scans that need only an entry's header fields and key hash (recovery's replay).
   */
  static boolean intact(ByteBuffer b, int p, int extent, long segmentId) {
    if (p + HEADER_BYTES > b.limit() || b.getInt(p) != MAGIC || b.get(p + 8) != FORMAT_VERSION) {
      return false;
    }
    int keyLength = Short.toUnsignedInt(b.getShort(p + 10));
    int valueLength = b.getInt(p + 12);
    if (keyLength == 0 || valueLength < 0 || (long) HEADER_BYTES + keyLength + valueLength != extent
        || (long) p + extent > b.limit() || (b.getInt(p + 16) & 0xFFFF_FFFFL) != (segmentId & 0xFFFF_FFFFL)) {
      return false;
    }
    CRC32C crc = new CRC32C();
    crc.update(b.duplicate().position(p + CRC_START).limit(p + extent));
    return (int) crc.getValue() == b.getInt(p + 4);
  }

  /** The sequence field of the entry at {@code p} (little-endian {@code b}; check {@link #intact} first). */
  static long sequenceAt(ByteBuffer b, int p) {
    return b.getLong(p + 24);
  }

  /**
   * For an entry at {@code off} that {@link #read} rejected: its key bytes as found if its header names
   * {@code segmentId} (a record torn by a crash, or damaged), an empty array if it names the segment but
   * its key length does not fit the buffer, or null if it names another segment (leftovers of an older
   * segment in a reused slot). The bytes may themselves be damaged.
   */
  static byte[] tornKey(ByteBuffer buf, int off, long segmentId) {
    ByteBuffer b = buf.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    if (b.limit() - off < HEADER_BYTES || (b.getInt(off + 16) & 0xFFFF_FFFFL) != (segmentId & 0xFFFF_FFFFL)) {
      return null;
    }
    int keyLength = Short.toUnsignedInt(b.getShort(off + 10));
    if (keyLength == 0 || (long) off + HEADER_BYTES + keyLength > b.limit()) {
      return new byte[0];
    }
    byte[] key = new byte[keyLength];
    b.get(off + HEADER_BYTES, key);
    return key;
  }

  /**
   * The first {@code n} bytes of the value of the entry at {@code buf}'s position (little-endian; the buffer may
   * end before the entry does: it must hold the header, the key and those bytes), or null when its header is not
   * plausibly an entry of {@code expectedSegmentId} (magic, version, segment id, lengths) or the buffer is too
   * short: then only a full {@link #read} can tell. The CRC is not checked (it covers bytes not read): a header
   * read, for callers that ask only whether a key is there and what its value starts with. Does not move
   * {@code buf}.
   */
  static Head readHead(ByteBuffer buf, long expectedSegmentId, byte[] key, int n) {
    ByteBuffer b = buf.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int start = b.position();
    if (b.remaining() < HEADER_BYTES || b.getInt(start) != MAGIC || b.get(start + 8) != FORMAT_VERSION
        || (b.getInt(start + 16) & 0xFFFF_FFFFL) != (expectedSegmentId & 0xFFFF_FFFFL)) {
      return null;
    }
    int keyLength = Short.toUnsignedInt(b.getShort(start + 10));
    int valueLength = b.getInt(start + 12);
    if (keyLength == 0 || valueLength < 0) {
      return null;
    }
    if (keyLength != key.length) {
      return Head.OTHER_KEY;
    }
    int take = Math.min(n, valueLength);
    if ((long) HEADER_BYTES + keyLength + take > b.remaining()) {
      return null;
    }
    if (!Arrays.equals(key, 0, keyLength, keyBytes(b, start + HEADER_BYTES, keyLength), 0, keyLength)) {
      return Head.OTHER_KEY;
    }
    byte[] value = new byte[take];
    b.get(start + HEADER_BYTES + keyLength, value);
    return new Head(value, b.getLong(start + 32));
  }

  private static byte[] keyBytes(ByteBuffer b, int at, int length) {
    byte[] k = new byte[length];
    b.get(at, k);
    return k;
  }

  /**
   * What {@link #readHead} found: the first bytes of the value and the expiry of an entry of the caller's key, or
   * {@link #OTHER_KEY} (an entry of another key with the same hash: a miss).
   */
  record Head(byte[] value, long expiryMillis) {
    static final Head OTHER_KEY = new Head(null, 0);

    boolean expired(long nowMillis) {
      return expiryMillis != 0 && expiryMillis <= nowMillis;
    }
  }

  /** A verified entry read from flash. {@code bytes} is its size before padding. */
  public record Entry(byte[] key, byte[] value, int lifetimeClass, long sequence, long expiryMillis, int bytes) {
    public boolean expired(long nowMillis) {
      return expiryMillis != 0 && expiryMillis <= nowMillis;
    }
  }
}
