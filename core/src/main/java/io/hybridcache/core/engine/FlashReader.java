package io.hybridcache.core.engine;

import io.hybridcache.core.device.Device;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Reads the entry an index value points at, with at most one device read: from the segment's
 * write buffers (the one filling or one being flushed), if the entry is not yet on the device; else one aligned
 * read of the pages that cover it.
 *
 * <p>Thread-safe. Concurrency: a device read lands in an aligned buffer of a {@link ReadBuffers} pool
 * shared by every thread (bounded; lock-free while a buffer is free) and held for that read only; write
 * buffers are read under their sequence lock; a segment reclaimed (and its slot reused) during the read
 * shows up as a segment id mismatch in the entry header and reads as a miss.
 */
final class FlashReader {
  private final Device device;
  private final SegmentTable table;
  private final Counters counters;
  private final long segmentBytes;
  private final ReadBuffers buffers;

  public FlashReader(Device device, SegmentTable table, Counters counters, ReadBuffers buffers) {
    this.device = device;
    this.buffers = buffers;
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
   * @throws OutOfMemoryError if no direct memory was left for a read buffer
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
    ByteBuffer dst = buffers.acquire((int) (end - start));
    EntryFormat.Entry e;
    try {
      device.read(segment.slot(), start, dst);
      counters.deviceReads.increment();
      counters.devicePagesRead.add((end - start) / Device.ALIGNMENT);
      dst.position((int) (offset - start));
      e = EntryFormat.read(dst, segmentId); // copies key and value out
    } finally {
      buffers.release(dst);
    }
    if (e == null && table.get(segmentId) == segment && !segment.damaged()) {
      counters.corruptReads.increment();
    }
    return e;
  }

  /**
   * The head of the entry at {@code packed} ({@link EntryFormat#readHead}: the first {@code n} bytes of its value,
   * if it is {@code key}'s), read from the device as far as its header, key and those bytes only (one page for an
   * entry of any size when they fit in it); or null when only a full {@link #read} can tell: its segment is gone,
   * damaged or still in a write buffer (a full read of it costs no device read), or the header did not check out.
   *
   * @throws IOException from the device
   * @throws OutOfMemoryError if no direct memory was left for a read buffer
   */
  EntryFormat.Head readHead(long packed, byte[] key, int n) throws IOException {
    Segment segment = table.byTag(IndexEntry.segmentTag(packed));
    if (segment == null || segment.damaged()) {
      return null;
    }
    long offset = IndexEntry.offset(packed);
    if (offset >= segment.flushedOffset()) {
      return null;
    }
    long want = Math.min(IndexEntry.sizeBytes(packed), (long) EntryFormat.HEADER_BYTES + key.length + n);
    long start = Device.roundDown(offset);
    long end = Math.min(segmentBytes, Device.roundUp(offset + want));
    ByteBuffer dst = buffers.acquire((int) (end - start));
    try {
      device.read(segment.slot(), start, dst);
      counters.deviceReads.increment();
      counters.devicePagesRead.add((end - start) / Device.ALIGNMENT);
      dst.position((int) (offset - start));
      return EntryFormat.readHead(dst, segment.id(), key, n);
    } finally {
      buffers.release(dst);
    }
  }

  private static EntryFormat.Entry fromBuffer(WriteBuffer wb, long segmentId, long offset, int size) {
    if (wb == null) {
      return null;
    }
    byte[] copy = wb.tryCopy(segmentId, offset, size);
    return copy == null ? null : EntryFormat.read(ByteBuffer.wrap(copy), segmentId);
  }
}
