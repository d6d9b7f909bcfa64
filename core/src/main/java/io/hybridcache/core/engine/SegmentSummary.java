package io.hybridcache.core.engine;

import io.hybridcache.core.device.Device;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The summary block at the tail of a sealed segment (as in LFS): the key hash and offset of every
 * entry, and optionally the first bytes of its key, so reclaim learns what a segment holds from a few KiB
 * instead of reading all of it.
 *
 * <p>Thread-safe: stateless. Format (little-endian), ending exactly at the end of the segment, with
 * {@code k} = the key bytes per record ({@code CacheConfig.evictionKeyBytes}, 0 to 8):
 *
 * <pre>
 *  region = the last roundUp((12 + k) * count + 32, 4096) bytes of the segment
 *  [region start .. ]        count records: key hash (8), entry offset / 16 (4), the key's first k bytes
 *                            (zero-padded past a shorter key's end)
 *  [.. zero padding ..]
 *  [segmentBytes - 32]       footer:
 *     0  4  magic 0x31554348 ("HCU1")
 *     4  4  CRC32C of the records and footer bytes [8, 32)
 *     8  1  format version ({@link EntryFormat#FORMAT_VERSION})
 *     9  1  k (0 in summaries written before key bytes existed: their byte 9 was zero)
 *    10  2  zero
 *    12  4  segment id
 *    16  4  record count
 *    20 12  zero
 * </pre>
 *
 * A segment without a valid footer of its own id (sealed before a crash, or resumed after a restart)
 * is reclaimed by scanning its entries instead; so is one with k above 8, or, read by an earlier version,
 * one with k above 0 (its CRC, over 12-byte records, does not match).
 */
final class SegmentSummary {
  public static final int MAGIC = 0x31554348;
  public static final int RECORD_BYTES = 12;
  public static final int FOOTER_BYTES = 32;

  private SegmentSummary() {}

  /** The most key bytes a record keeps. */
  public static final int MAX_KEY_BYTES = 8;

  /** Bytes the summary of {@code count} entries of 12-byte records occupies at the end of a segment. */
  public static int regionBytes(int count) {
    return regionBytes(count, 0);
  }

  /** Bytes the summary of {@code count} entries with {@code keyBytes} of key each occupies. */
  public static int regionBytes(int count, int keyBytes) {
    return Device.roundUp(count * (RECORD_BYTES + keyBytes) + FOOTER_BYTES);
  }

  /** An aligned buffer holding the whole region for the given records (no key bytes). */
  public static ByteBuffer encode(long segmentId, long[] hashes, long[] offsets, int count) {
    return encode(segmentId, hashes, offsets, null, 0, count);
  }

  /**
   * An aligned buffer holding the whole region for the given records, with the first {@code keyBytes} bytes of
   * each key, big-endian in {@code keys[i]} (the key's first byte highest), if {@code keyBytes} is above 0.
   */
  public static ByteBuffer encode(long segmentId, long[] hashes, long[] offsets, long[] keys, int keyBytes,
      int count) {
    int region = regionBytes(count, keyBytes);
    ByteBuffer page = Device.allocateAligned(region);
    ByteBuffer b = page.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < count; i++) {
      b.putLong(hashes[i]).putInt((int) (offsets[i] / IndexEntry.OFFSET_ALIGNMENT));
      for (int j = 0; j < keyBytes; j++) {
        b.put((byte) (keys[i] >>> (56 - 8 * j)));
      }
    }
    int footer = region - FOOTER_BYTES;
    b.putInt(footer, MAGIC);
    b.put(footer + 8, EntryFormat.FORMAT_VERSION);
    b.put(footer + 9, (byte) keyBytes);
    b.putInt(footer + 12, (int) segmentId);
    b.putInt(footer + 16, count);
    b.putInt(footer + 4, crc(b, count * (RECORD_BYTES + keyBytes), footer));
    return page;
  }

  /** The key bytes per record the footer at the end of {@code lastPage} declares (valid after {@link #count}). */
  public static int keyBytes(ByteBuffer lastPage) {
    return lastPage.get(lastPage.limit() - FOOTER_BYTES + 9);
  }

  /** The first {@code keyBytes} of a key, big-endian in a long as {@link #encode} takes them (zero-padded). */
  public static long keyPrefix(byte[] key, int keyBytes) {
    long v = 0;
    for (int j = 0; j < keyBytes; j++) {
      v |= (long) (j < key.length ? key[j] & 0xFF : 0) << (56 - 8 * j);
    }
    return v;
  }

  /** The bytes of a key prefix as {@link #keyPrefix} packs them. */
  public static byte[] keyPrefixBytes(long prefix, int keyBytes) {
    byte[] k = new byte[keyBytes];
    for (int j = 0; j < keyBytes; j++) {
      k[j] = (byte) (prefix >>> (56 - 8 * j));
    }
    return k;
  }

  /** A segment's summary as read from its slot: the region holding it, its record count and key bytes per record. */
  record Read(ByteBuffer region, int count, int keyBytes) { }

  /**
   * Reads the summary of segment {@code segmentId} from {@code slot}: its last page, then the whole region if
   * larger; null if that page holds no summary of this segment or its region cannot fit in the segment.
   */
  static Read read(Device device, int slot, long segmentId) throws java.io.IOException {
    long segmentBytes = device.slotBytes();
    ByteBuffer last = Device.allocateAligned(Device.ALIGNMENT);
    device.read(slot, segmentBytes - Device.ALIGNMENT, last);
    int count = count(last.flip(), segmentId);
    int keyBytes = count < 0 ? 0 : keyBytes(last);
    if (count < 0 || regionBytes(count, keyBytes) > segmentBytes - SegmentHeader.FIRST_ENTRY_OFFSET) {
      return null;
    }
    int regionBytes = regionBytes(count, keyBytes);
    ByteBuffer region = last;
    if (regionBytes > Device.ALIGNMENT) {
      region = Device.allocateAligned(regionBytes);
      device.read(slot, segmentBytes - regionBytes, region);
      region.flip();
    }
    return new Read(region, count, keyBytes);
  }

  /** The record count the footer at the end of {@code lastPage} claims for {@code segmentId}, or -1. */
  public static int count(ByteBuffer lastPage, long segmentId) {
    ByteBuffer b = lastPage.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int footer = b.limit() - FOOTER_BYTES;
    if (footer < 0 || b.getInt(footer) != MAGIC || b.get(footer + 8) != EntryFormat.FORMAT_VERSION
        || Integer.toUnsignedLong(b.getInt(footer + 12)) != segmentId
        || b.get(footer + 9) < 0 || b.get(footer + 9) > MAX_KEY_BYTES) {
      return -1;
    }
    int count = b.getInt(footer + 16);
    return count < 0 ? -1 : count;
  }

  /**
   * Verifies the region (as read from the device, ending at the segment end) and decodes it into
   * {@code hashes} and {@code offsets}; false if the CRC or the footer does not match.
   */
  public static boolean decode(ByteBuffer region, long segmentId, int count, long[] hashes, long[] offsets) {
    return decode(region, segmentId, count, hashes, offsets, null);
  }

  /**
   * As above, with each record's key bytes into {@code keys} (as {@link #keyPrefix} packs them) when it is not
   * null and the summary has them ({@link #keyBytes}).
   */
  public static boolean decode(ByteBuffer region, long segmentId, int count, long[] hashes, long[] offsets,
      long[] keys) {
    ByteBuffer b = region.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int footer = b.limit() - FOOTER_BYTES;
    if (count(region, segmentId) != count) {
      return false;
    }
    int keyBytes = b.get(footer + 9);
    int record = RECORD_BYTES + keyBytes;
    if (regionBytes(count, keyBytes) != b.limit() || b.getInt(footer + 4) != crc(b, count * record, footer)) {
      return false;
    }
    for (int i = 0; i < count; i++) {
      hashes[i] = b.getLong(i * record);
      offsets[i] = Integer.toUnsignedLong(b.getInt(i * record + 8)) * IndexEntry.OFFSET_ALIGNMENT;
      if (keys != null) {
        long v = 0;
        for (int j = 0; j < keyBytes; j++) {
          v |= (long) (b.get(i * record + RECORD_BYTES + j) & 0xFF) << (56 - 8 * j);
        }
        keys[i] = v;
      }
    }
    return true;
  }

  private static int crc(ByteBuffer b, int recordBytes, int footer) {
    CRC32C crc = new CRC32C();
    crc.update(b.duplicate().position(0).limit(recordBytes));
    crc.update(b.duplicate().position(footer + 8).limit(footer + FOOTER_BYTES));
    return (int) crc.getValue();
  }
}
