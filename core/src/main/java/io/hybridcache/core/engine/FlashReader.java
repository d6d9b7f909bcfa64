package io.hybridcache.core.engine;

import io.hybridcache.core.device.Device;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Reads the entry an index value points at, with at most one device read: from the segment's
 * write buffers (the one filling or one being flushed), if the entry is not yet on the device; else one aligned
 * read of the pages that cover it.
 *
 * <p>Thread-safe and lock-free: each thread reads into its own aligned buffer; write buffers are read
 * under their sequence lock; a segment reclaimed (and its slot reused) during the read shows up as a
 * segment id mismatch in the entry header and reads as a miss.
 */
final class FlashReader {
  private static final int INITIAL_BUFFER = 64 * 1024;

  private final Device device;
  private final SegmentTable table;
  private final Counters counters;
  private final long segmentBytes;
  private final ThreadLocal<ByteBuffer> buffers = ThreadLocal.withInitial(() -> Device.allocateAligned(INITIAL_BUFFER));

  public FlashReader(Device device, SegmentTable table, Counters counters) {
    this.device = device;
    this.table = table;
    this.counters = counters;
    this.segmentBytes = device.slotBytes();
  }

  /**
   * The verified entry at {@code packed}, or null if its segment is gone or damaged or the bytes fail
   * verification (counted as corrupt unless the segment was reclaimed meanwhile). The caller compares
   * the key.
   *
   * @throws IOException from the device
   */
  public EntryFormat.Entry read(long packed) throws IOException {
    Segment segment = table.byTag(IndexEntry.segmentTag(packed));
    if (segment == null || segment.damaged()) {
      return null;
    }
    long offset = IndexEntry.offset(packed);
    int size = IndexEntry.sizeBytes(packed);
    long segmentId = segment.id();
    if (offset >= segment.flushedOffset()) {
      WriteBuffer[] buffers = segment.buffers();
      for (int i = 0; buffers != null && i < buffers.length; i++) {
        EntryFormat.Entry e = fromBuffer(buffers[i], segmentId, offset, size);
        if (e != null) {
          counters.bufferHits.increment();
          return e;
        }
      }
    }
    long start = Device.roundDown(offset);
    long end = Math.min(segmentBytes, Device.roundUp(offset + size));
    ByteBuffer dst = buffer((int) (end - start));
    device.read(segment.slot(), start, dst);
    counters.deviceReads.increment();
    counters.devicePagesRead.add((end - start) / Device.ALIGNMENT);
    dst.position((int) (offset - start));
    EntryFormat.Entry e = EntryFormat.read(dst, segmentId);
    if (e == null && table.get(segmentId) == segment && !segment.damaged()) {
      counters.corruptReads.increment();
    }
    return e;
  }

  private static EntryFormat.Entry fromBuffer(WriteBuffer wb, long segmentId, long offset, int size) {
    if (wb == null) {
      return null;
    }
    byte[] copy = wb.tryCopy(segmentId, offset, size);
    return copy == null ? null : EntryFormat.read(ByteBuffer.wrap(copy), segmentId);
  }

  private ByteBuffer buffer(int bytes) {
    ByteBuffer b = buffers.get();
    if (b.capacity() < bytes) {
      b = Device.allocateAligned(bytes);
      buffers.set(b);
    }
    b.clear().limit(bytes);
    return b;
  }
}
