package io.hybridcache.core.engine;

import io.hybridcache.core.api.LifetimeClass;
import io.hybridcache.core.device.Device;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An append-only log of small keyed records on a device of its own, made of the flash tier's segments
 * and entry format: what a companion store (the schema catalogue) persists through without knowing
 * either format. Each record is one flash entry of class {@link LifetimeClass#CATALOG}.
 *
 * <p>Design note (CaSSanDra paper, section V: "a collection of segment files, each storing a contiguous
 * subset of schema ID and schema tuples").
 *
 * <p>Concurrency: not thread-safe; the owner serializes every call (the writer's flusher thread is
 * internal to {@link SegmentWriter}).
 *
 * <p>Format: segments as the flash tier writes them ({@link SegmentHeader}, then {@link EntryFormat}
 * entries at 16-byte steps). A record counts once {@link #sync} returned. {@link #scan} reads every
 * allocated slot whole and verifies each entry's CRC; an entry that fails it but names its own segment
 * is reported as torn with its key bytes as found (possibly damaged), so the owner can tell a record
 * cut by a crash from leftovers of an older segment in a reused slot (those are not reported).
 *
 * <p>Reclaim: the owner's. {@link #rewrite} copies what the owner still needs into fresh segments;
 * {@link Rewrite#commit} syncs them and only then releases every older segment, so a crash at any point
 * leaves the old log or the new one complete.
 */
public final class RecordLog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RecordLog.class);
  /** Version of the segment and entry format records are written in; a store records it in its layout. */
  public static final int FORMAT_VERSION = EntryFormat.FORMAT_VERSION;
  private final Device device;
  private final int segmentBytes;
  private final int bufferBytes;
  private final SegmentTable table;
  private final Counters counters = new Counters();
  private final AtomicLong sequence = new AtomicLong();
  private SegmentWriter writer;
  private long maxSegmentId;
  private long maxSequence;

  /** A log over {@code device}'s slots of {@code segmentBytes}, buffering up to {@code bufferBytes}. */
  public RecordLog(Device device, int segmentBytes, int bufferBytes) {
    this.device = device;
    this.segmentBytes = segmentBytes;
    this.bufferBytes = bufferBytes;
    this.table = new SegmentTable(device.slotCount());
    this.writer = newWriter();
  }

  /** A verified record. */
  public record Record(byte[] key, byte[] value, long sequence) {}

  /**
   * A segment found by {@link #scan}: its verified records in log order, the keys of its torn entries,
   * and the bytes its records occupy.
   */
  public record Found(long segmentId, int slot, List<Record> records, List<byte[]> tornKeys, long bytes) {}

  /** Called for a slot that cannot be read or holds a segment of another class; the slot is skipped. */
  @FunctionalInterface
  public interface Skipped {
    void slot(int slot, String why);
  }

  /**
   * Reads every segment of the log in ascending id order. Call once, before any append, then
   * {@link #keep} or {@link #drop} each, then {@link #recovered}.
   */
  public List<Found> scan(Skipped skipped) {
    ByteBuffer buf = Device.allocateAligned(segmentBytes).order(ByteOrder.LITTLE_ENDIAN);
    List<Found> found = new ArrayList<>();
    for (SlotScan.Found h : SlotScan.headers(device, table, (slot, e) -> skipped.slot(slot, e.toString()))) {
      if (h.lifetimeClass() != LifetimeClass.CATALOG.id()) {
        skipped.slot(h.slot(), "holds a segment of class " + h.lifetimeClass() + ", not CATALOG");
        continue;
      }
      try {
        buf.clear();
        device.read(h.slot(), 0, buf);
      } catch (IOException e) {
        skipped.slot(h.slot(), e.toString());
        continue;
      }
      maxSegmentId = Math.max(maxSegmentId, h.segmentId());
      maxSequence = Math.max(maxSequence, h.sequence());
      found.add(walk(buf, h));
    }
    return found;
  }

  private Found walk(ByteBuffer buf, SlotScan.Found h) {
    List<Record> records = new ArrayList<>();
    List<byte[]> torn = new ArrayList<>();
    long bytes = 0;
    int off = SegmentHeader.FIRST_ENTRY_OFFSET;
    while (off + EntryFormat.HEADER_BYTES <= segmentBytes) {
      if (buf.getInt(off) != EntryFormat.MAGIC) {
        off += IndexEntry.OFFSET_ALIGNMENT;
        continue;
      }
      EntryFormat.Entry e = EntryFormat.read(buf.duplicate().position(off), h.segmentId());
      if (e == null) {
        byte[] key = EntryFormat.tornKey(buf, off, h.segmentId());
        if (key != null) {
          torn.add(key);
        }
        off += IndexEntry.OFFSET_ALIGNMENT;
        continue;
      }
      maxSequence = Math.max(maxSequence, e.sequence());
      records.add(new Record(e.key(), e.value(), e.sequence()));
      int size = align(e.bytes());
      bytes += size;
      off += size;
    }
    return new Found(h.segmentId(), h.slot(), records, torn, bytes);
  }

  /** Keeps a scanned segment as part of the log. */
  public void keep(Found f) {
    Segment s = new Segment(f.segmentId(), f.slot(), LifetimeClass.CATALOG, Segment.State.SEALED);
    s.restoreRecovered(f.bytes(), 0, segmentBytes);
    table.add(s);
  }

  /** Frees a scanned segment's slot (a superseded segment); its bytes are discarded best-effort. */
  public void drop(Found f) {
    discard(f.slot());
  }

  /** Ends recovery: appends get fresh segment ids and sequences above everything scanned. */
  public void recovered() {
    table.raiseNextSegmentId(maxSegmentId + 1);
    table.rebuildFreeList();
    sequence.set(maxSequence + 1);
  }

  /** Appends a record to the active segment's buffer; false when no segment could be opened (no free slot). */
  public boolean append(byte[] key, byte[] value) throws IOException {
    return append(writer, key, value);
  }

  private boolean append(SegmentWriter w, byte[] key, byte[] value) throws IOException {
    long packed = w.append(LifetimeClass.CATALOG, KeyHash.of(key), key, value, 0, sequence.incrementAndGet());
    return packed != IndexEntry.NONE;
  }

  /** Makes every appended record durable: write the buffers (zero padded to whole pages), force the device. */
  public void sync() throws IOException {
    writer.flushAllToWholePages();
    device.sync();
  }

  /** After a failed append or sync: drops the active segment; the next append opens a new one. */
  public void abandon() {
    writer.abandonAll();
  }

  public int freeSlots() {
    return table.freeSlots();
  }

  public int segments() {
    return table.segments().size();
  }

  /** Bytes of records one segment holds at most (its size less the header page and a closing page). */
  public long usableSegmentBytes() {
    return segmentBytes - SegmentHeader.FIRST_ENTRY_OFFSET - Device.ALIGNMENT;
  }

  /** Bytes a record occupies in a segment: entry header, key, value, 16-byte alignment. */
  public static int recordBytes(int keyBytes, int valueBytes) {
    return align(EntryFormat.entryBytes(keyBytes, valueBytes));
  }

  /** Starts copying records into fresh segments; the log is unchanged until {@link Rewrite#commit}. */
  public Rewrite rewrite() {
    return new Rewrite(newWriter(), table.nextSegmentIdPeek());
  }

  /** A rewrite in progress: append what survives, then commit or abort. */
  public final class Rewrite {
    private final SegmentWriter fresh;
    private final long base;

    private Rewrite(SegmentWriter fresh, long base) {
      this.fresh = fresh;
      this.base = base;
    }

    /** The first segment id of the rewrite: every segment below it goes at commit. */
    public long baseSegment() {
      return base;
    }

    /** As {@link RecordLog#append}, into the rewrite's segments. */
    public boolean append(byte[] key, byte[] value) throws IOException {
      return RecordLog.this.append(fresh, key, value);
    }

    /**
     * Syncs the rewrite and then releases every segment older than it; the log appends to the
     * rewrite's segments from now on. On failure the rewrite is aborted and the log stays as it was.
     */
    public void commit() throws IOException {
      try {
        fresh.flushAllToWholePages();
        device.sync();
      } catch (IOException | RuntimeException e) {
        abort();
        throw e;
      }
      writer.abandonAll();
      writer.close();
      writer = fresh;
      for (Segment s : table.segments().toArray(new Segment[0])) {
        if (s.id() < base) {
          table.release(s);
          discard(s.slot());
        }
      }
    }

    /** Drops the rewrite's segments; the log stays as it was. */
    public void abort() {
      fresh.abandonAll();
      fresh.close();
      for (Segment s : table.segments().toArray(new Segment[0])) {
        if (s.id() >= base) {
          table.release(s);
        }
      }
    }
  }

  /** Writes what is buffered (whole pages), stops the writer and closes the device. */
  @Override
  public void close() throws IOException {
    try {
      writer.flushAllToWholePages();
    } finally {
      writer.close();
      device.close();
    }
  }

  private SegmentWriter newWriter() {
    SegmentWriter w = new SegmentWriter(device, table, counters, null, bufferBytes, sequence::get);
    w.slotSource(table::takeFreeSlot);
    return w;
  }

  private void discard(int slot) {
    try {
      device.discard(slot);
    } catch (IOException e) { // best effort: a reused slot is rewritten, and a stale header loses to the newer one
      LOG.debug("record log: discard of slot {} failed: {}", slot, e.toString());
    }
  }

  private static int align(int n) {
    return (n + IndexEntry.OFFSET_ALIGNMENT - 1) & -IndexEntry.OFFSET_ALIGNMENT;
  }
}
