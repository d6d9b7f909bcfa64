package io.hybridcache.core.engine;

import io.hybridcache.core.device.Device;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The first 4 KiB page of every slot: which segment currently lives in it. Written with one device
 * write when a segment opens, before any entry of it is indexed, so every segment id the index can
 * name has its header on the device (or was replaced by a newer one). Recovery after a crash reads
 * only these pages, never the entries.
 *
 * <p>Thread-safe: stateless. Format (little-endian), {@value #BYTES} bytes, rest of the page zero:
 *
 * <pre>
 *  0  4  magic 0x31534348 ("HCS1")
 *  4  4  CRC32C of bytes [8, 32)
 *  8  1  format version ({@link EntryFormat#FORMAT_VERSION}; entries and headers version together)
 *  9  3  zero
 * 12  4  segment id (unsigned)
 * 16  4  lifetime class id
 * 20  4  zero
 * 24  8  sequence number when the segment opened
 * </pre>
 */
final class SegmentHeader {
  public static final int MAGIC = 0x31534348;
  public static final int BYTES = 32;
  /** Entries start after the header page. */
  public static final int FIRST_ENTRY_OFFSET = Device.ALIGNMENT;

  private SegmentHeader() {}

  /** A zeroed aligned page holding the header. */
  public static ByteBuffer encode(long segmentId, int lifetimeClass, long sequence) {
    ByteBuffer page = Device.allocateAligned(Device.ALIGNMENT);
    ByteBuffer b = page.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(0, MAGIC);
    b.put(8, EntryFormat.FORMAT_VERSION);
    b.putInt(12, (int) segmentId);
    b.putInt(16, lifetimeClass);
    b.putLong(24, sequence);
    CRC32C crc = new CRC32C();
    crc.update(b.duplicate().position(8).limit(BYTES));
    b.putInt(4, (int) crc.getValue());
    return page;
  }

  /**
   * Reads and decodes the header page of {@code slot} into {@code page} (one aligned page); null when it
   * is not an intact header of this format.
   *
   * @throws IOException from the device
   */
  public static Decoded read(Device device, int slot, ByteBuffer page) throws IOException {
    page.clear();
    device.read(slot, 0, page);
    return decode(page.flip());
  }

  /** The decoded header, or null when the page is not an intact header of this format. */
  public static Decoded decode(ByteBuffer page) {
    ByteBuffer b = page.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    if (b.remaining() < BYTES || b.getInt(0) != MAGIC || b.get(8) != EntryFormat.FORMAT_VERSION) {
      return null;
    }
    CRC32C crc = new CRC32C();
    crc.update(b.duplicate().position(8).limit(BYTES));
    if ((int) crc.getValue() != b.getInt(4)) {
      return null;
    }
    return new Decoded(Integer.toUnsignedLong(b.getInt(12)), b.getInt(16), b.getLong(24));
  }

  public record Decoded(long segmentId, int lifetimeClass, long sequence) {}
}
