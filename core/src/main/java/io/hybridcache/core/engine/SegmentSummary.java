package io.hybridcache.core.engine;

import io.hybridcache.core.device.Device;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The summary block at the tail of a sealed segment (as in LFS): the key hash and offset of every
 * entry, so reclaim learns what a segment holds from a few KiB instead of reading all of it.
 *
 * <p>Thread-safe: stateless. Format (little-endian), ending exactly at the end of the segment:
 *
 * <pre>
 *  region = the last roundUp(12 * count + 32, 4096) bytes of the segment
 *  [region start .. ]        count records: key hash (8), entry offset / 16 (4)
 *  [.. zero padding ..]
 *  [segmentBytes - 32]       footer:
 *     0  4  magic 0x31554348 ("HCU1")
 *     4  4  CRC32C of the records and footer bytes [8, 32)
 *     8  1  format version ({@link EntryFormat#FORMAT_VERSION})
 *     9  3  zero
 *    12  4  segment id
 *    16  4  record count
 *    20 12  zero
 * </pre>
 *
 * A segment without a valid footer of its own id (sealed before a crash, or resumed after a restart)
 * is reclaimed by scanning its entries instead.
 */
final class SegmentSummary {
  public static final int MAGIC = 0x31554348;
  public static final int RECORD_BYTES = 12;
  public static final int FOOTER_BYTES = 32;

  private SegmentSummary() {}

  /** Bytes the summary of {@code count} entries occupies at the end of a segment. */
  public static int regionBytes(int count) {
    return Device.roundUp(count * RECORD_BYTES + FOOTER_BYTES);
  }

  /** An aligned buffer holding the whole region for the given records. */
  public static ByteBuffer encode(long segmentId, long[] hashes, long[] offsets, int count) {
    int region = regionBytes(count);
    ByteBuffer page = Device.allocateAligned(region);
    ByteBuffer b = page.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < count; i++) {
      b.putLong(hashes[i]).putInt((int) (offsets[i] / IndexEntry.OFFSET_ALIGNMENT));
    }
    int footer = region - FOOTER_BYTES;
    b.putInt(footer, MAGIC);
    b.put(footer + 8, EntryFormat.FORMAT_VERSION);
    b.putInt(footer + 12, (int) segmentId);
    b.putInt(footer + 16, count);
    b.putInt(footer + 4, crc(b, count, footer));
    return page;
  }

  /** The record count the footer at the end of {@code lastPage} claims for {@code segmentId}, or -1. */
  public static int count(ByteBuffer lastPage, long segmentId) {
    ByteBuffer b = lastPage.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int footer = b.limit() - FOOTER_BYTES;
    if (footer < 0 || b.getInt(footer) != MAGIC || b.get(footer + 8) != EntryFormat.FORMAT_VERSION
        || Integer.toUnsignedLong(b.getInt(footer + 12)) != segmentId) {
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
    ByteBuffer b = region.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int footer = b.limit() - FOOTER_BYTES;
    if (count(region, segmentId) != count || regionBytes(count) != b.limit()
        || b.getInt(footer + 4) != crc(b, count, footer)) {
      return false;
    }
    for (int i = 0; i < count; i++) {
      hashes[i] = b.getLong(i * RECORD_BYTES);
      offsets[i] = Integer.toUnsignedLong(b.getInt(i * RECORD_BYTES + 8)) * IndexEntry.OFFSET_ALIGNMENT;
    }
    return true;
  }

  private static int crc(ByteBuffer b, int count, int footer) {
    CRC32C crc = new CRC32C();
    crc.update(b.duplicate().position(0).limit(count * RECORD_BYTES));
    crc.update(b.duplicate().position(footer + 8).limit(footer + FOOTER_BYTES));
    return (int) crc.getValue();
  }
}
