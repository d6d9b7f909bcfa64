package io.hybridcache.core.engine;

import io.hybridcache.core.api.LifetimeClass;
import io.hybridcache.core.device.Device;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends entries to the active segment of their lifetime class through that class's write buffer
 * (CaSSanDra paper, section IV: append-only segment files, one active segment, a write buffer flushed
 * with one sequential write when full).
 *
 * <p>Not thread-safe: confined to the flash writer thread, which is the only thread that appends,
 * flushes, seals or opens segments. Buffer writes run on one flusher thread, at most one in flight
 * per lifetime class (double buffering); the writer waits for it before reusing that buffer and before
 * reclaim reads any segment. Readers see results through {@link Segment}'s volatile fields and
 * {@link WriteBuffer}'s sequence lock.
 *
 * <p>Format: a segment is its header page ({@link SegmentHeader}) followed by entries
 * ({@link EntryFormat}) at 16-byte aligned offsets; each buffer flush writes a whole number of 4 KiB
 * pages, zero padded, so the next buffer starts page aligned. Sealing writes the segment's
 * {@link SegmentSummary} (key hash and offset of every entry) at its tail; appends leave room for it.
 *
 * <p>Placement: with a {@link Placement}, every segment gets its device stream when it opens (or
 * resumes), passed to the device as a write-life hint, and every device write is counted in its
 * stream; the write trace records both.
 */
final class SegmentWriter {
  private static final Logger LOG = LoggerFactory.getLogger(SegmentWriter.class);

  /** Supplies a free slot for a new segment, reclaiming one if needed; -1 if none can be had. */
  @FunctionalInterface
  public interface SlotSource {
    int freeSlot();
  }

  private final Device device;
  private final SegmentTable table;
  private final Counters counters;
  private final WriteTrace trace;
  private final int bufferBytes;
  private final long segmentBytes;
  private final LongSupplier sequence;
  private final Map<Integer, ClassLog> logs = new HashMap<>();
  private final ExecutorService flusher;
  private final Placement placement;
  private SlotSource slots;
  private boolean traceFailed;

  /**
   * The active segment of one lifetime class and its two buffers: appends fill {@code buffer()} while
   * the other one's device write may be in flight ({@code inFlight}).
   */
  private static final class ClassLog {
    LifetimeClass lifetimeClass; // the id never changes; the name may (a placeholder of a restart, then the caller's)
    final WriteBuffer[] buffers;
    int current;
    Segment segment;
    int stream; // of the active segment
    Future<?> inFlight;
    /** Bytes at the start of the current buffer already on the device (a {@link #flushAll} that kept the page). */
    int synced;
    // the summary of the active segment; false for a segment resumed after a restart (no summary)
    boolean summarize;
    long[] hashes = new long[1024];
    long[] offsets = new long[1024];
    int count;

    ClassLog(LifetimeClass c, int bufferBytes) {
      this.lifetimeClass = c;
      this.buffers = new WriteBuffer[] {new WriteBuffer(bufferBytes), new WriteBuffer(bufferBytes)};
    }

    WriteBuffer buffer() {
      return buffers[current];
    }

    void startSummary(boolean on) {
      summarize = on;
      count = 0;
    }

    void addToSummary(long hash, long offset) {
      if (count == hashes.length) {
        hashes = java.util.Arrays.copyOf(hashes, count * 2);
        offsets = java.util.Arrays.copyOf(offsets, count * 2);
      }
      hashes[count] = hash;
      offsets[count] = offset;
      count++;
    }

    /** Where entry data must end so the summary, with one more record, still fits. */
    long dataLimit(long segmentBytes) {
      return summarize ? segmentBytes - SegmentSummary.regionBytes(count + 1) : segmentBytes;
    }
  }

  public SegmentWriter(Device device, SegmentTable table, Counters counters, WriteTrace trace, int bufferBytes,
      LongSupplier sequence) {
    this(device, table, counters, trace, bufferBytes, sequence, null);
  }

  /** As above, with lifetime placement ({@code placement} may be null: stream 0, no hints). */
  public SegmentWriter(Device device, SegmentTable table, Counters counters, WriteTrace trace, int bufferBytes,
      LongSupplier sequence, Placement placement) {
    this.placement = placement;
    if (placement != null && trace != null) {
      placement.onEpoch(this::traceEpoch);
    }
    this.device = device;
    this.table = table;
    this.counters = counters;
    this.trace = trace;
    this.bufferBytes = bufferBytes;
    this.segmentBytes = device.slotBytes();
    this.sequence = sequence;
    this.flusher = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "hybridcache-flusher");
      t.setDaemon(true);
      return t;
    });
  }

  public void slotSource(SlotSource s) {
    this.slots = s;
  }

  /**
   * Appends an entry for {@code lifetimeClass}; returns its packed index entry, or
   * {@link IndexEntry#NONE} if no segment could be opened (no free slot). The entry is readable
   * (published in the buffer) when this returns.
   *
   * @throws IOException from the device; the caller degrades the tier and calls {@link #abandonAll()}
   */
  public long append(LifetimeClass lifetimeClass, long keyHash, byte[] key, byte[] value, long expiryMillis,
      long seq) throws IOException {
    int size = EntryFormat.entryBytes(key.length, value.length);
    if (size > bufferBytes || size > IndexEntry.MAX_ENTRY_BYTES) {
      throw new IllegalArgumentException("entry of " + size + " bytes exceeds the write buffer");
    }
    ClassLog log = logs.computeIfAbsent(lifetimeClass.id(), id -> new ClassLog(lifetimeClass, bufferBytes));
    if (log.lifetimeClass != lifetimeClass) {
      log.lifetimeClass = lifetimeClass; // new segments carry the caller's name, not a restart's placeholder
    }
    int span = IndexEntry.classBytes(size); // what a reader reads: never across a page if it fits in one
    int pad = padBefore(log.buffer().used(), span);
    if (log.segment != null && log.buffer().free() < pad + size) {
      flushLocked(log);
      pad = 0; // a flushed buffer starts on a page
    }
    if (log.segment == null || log.buffer().base() + log.buffer().used() + pad + size > log.dataLimit(segmentBytes)) {
      if (log.segment != null) {
        sealLocked(log);
      }
      if (!openLocked(log)) {
        return IndexEntry.NONE;
      }
      pad = 0;
    }
    WriteBuffer buf = log.buffer();
    if (pad > 0) {
      buf.pad(pad);
      counters.placementPadBytes.add(pad);
    }
    long offset = buf.base() + buf.used();
    ByteBuffer slice = buf.appendSlice(size);
    EntryFormat.write(slice, log.segment.id(), lifetimeClass.id(), seq, expiryMillis, key, value);
    buf.publish(size, IndexEntry.OFFSET_ALIGNMENT);
    long packed = IndexEntry.pack(SegmentAddress.of(table.tagOf(log.segment.id()), offset), size);
    log.segment.addWritten(IndexEntry.sizeBytes(packed));
    if (log.summarize) {
      log.addToSummary(keyHash, offset);
    }
    return packed;
  }

  /**
   * Page-aware placement: the zero bytes to skip at buffer offset {@code used} (buffers start on a page)
   * so that an entry read as {@code span} bytes, at most a page, lies within one page; 0 otherwise.
   */
  static int padBefore(int used, int span) {
    int inPage = used & (Device.ALIGNMENT - 1);
    return span <= Device.ALIGNMENT && inPage + span > Device.ALIGNMENT ? Device.ALIGNMENT - inPage : 0;
  }

  /**
   * Makes every appended entry readable from the device: waits for the writes in flight, then writes the
   * unwritten pages of each current buffer (the last one zero padded) in place, keeping the buffer's
   * position. So the entries that follow keep filling the same page (rewritten by the next write)
   * instead of each flush padding a page of its own: a trickle of one entry per flush costs no segment
   * space beyond its bytes. Segments stay active. A page written this way is written again with the
   * entries that follow, so a torn write of it (power loss) may lose entries flushed before: fine for a
   * cache (a miss); a log whose records must stay durable uses {@link #flushAllToWholePages()}.
   */
  public void flushAll() throws IOException {
    awaitFlushes();
    for (ClassLog log : logs.values()) {
      if (log.segment != null) {
        syncLocked(log);
      }
    }
  }

  /**
   * As {@link #flushAll}, but each buffer's last page is zero padded and never written again: durable
   * records are never rewritten in place (the catalogue's group commit), at the cost of a page per flush.
   */
  public void flushAllToWholePages() throws IOException {
    for (ClassLog log : logs.values()) {
      if (log.segment != null) {
        flushLocked(log);
      }
    }
    awaitFlushes();
  }

  /** Writes the current buffer's pages from the first one not yet on the device, keeping its position. */
  private void syncLocked(ClassLog log) throws IOException {
    WriteBuffer buf = log.buffer();
    if (buf.used() == log.synced) {
      return;
    }
    Segment s = log.segment;
    ByteBuffer slice = buf.flushSlice();
    int from = (int) Device.roundDown(log.synced);
    int len = slice.remaining();
    long base = buf.base();
    record(s.slot(), base + from, len - from, log);
    device.write(s.slot(), base + from, slice.position(from));
    log.synced = buf.used();
    s.setFlushedOffset(base + buf.used());
  }

  /** Waits for every buffer write in flight: afterwards every sealed segment is wholly on the device. */
  public void awaitFlushes() throws IOException {
    IOException first = null;
    for (ClassLog log : logs.values()) {
      try {
        awaitLocked(log);
      } catch (IOException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /** Stops the flusher thread (after {@link #flushAll}). */
  public void close() {
    flusher.shutdown();
  }

  /** True if some buffer holds unflushed entries. */
  public boolean hasUnflushed() {
    for (ClassLog log : logs.values()) {
      if (log.segment != null && log.buffer().used() > log.synced) {
        return true;
      }
    }
    return false;
  }

  /**
   * The active segments and, for each, the offset at or past which its next entry will be appended:
   * {@code [ids, offsets]} (an index checkpoint records where the log stood when it began).
   */
  public long[][] appendPositions() {
    int n = 0;
    long[] ids = new long[logs.size()];
    long[] offsets = new long[logs.size()];
    for (ClassLog log : logs.values()) {
      if (log.segment != null) {
        ids[n] = log.segment.id();
        offsets[n++] = log.buffer().base() + log.buffer().used();
      }
    }
    return new long[][] {java.util.Arrays.copyOf(ids, n), java.util.Arrays.copyOf(offsets, n)};
  }

  /** Continues appending to {@code s}, an active segment restored from the segment table. */
  public void resume(Segment s) {
    ClassLog log = logs.computeIfAbsent(s.lifetimeClass().id(), id -> new ClassLog(s.lifetimeClass(), bufferBytes));
    long resumeAt = Device.roundUp(s.flushedOffset()); // a flush may have ended mid-page: start the next one
    if (log.segment != null || resumeAt + Device.ALIGNMENT > segmentBytes) {
      s.seal(sequence.getAsLong());
      return;
    }
    log.segment = s;
    log.startSummary(false); // entries appended before the restart are not in memory: reclaim scans it
    log.synced = 0;
    log.buffer().reset(s.id(), resumeAt);
    s.setBuffer(log.buffer());
    opened(log);
  }

  /** Takes the stream of the log's new (or resumed) segment and traces it. */
  private void opened(ClassLog log) {
    Segment s = log.segment;
    log.stream = placement == null ? 0 : placement.opened(s);
    if (trace != null && !traceFailed) {
      try {
        trace.open(s.slot() * segmentBytes, segmentBytes, s.lifetimeClass().id(), s.lifetimeClass().name(),
            log.stream, placement == null ? null : placement.tracedStreams());
      } catch (IOException e) {
        traceFailed(e);
      }
    }
  }

  /**
   * Drops every active segment after a device error: their entries become unreachable (reads of them
   * miss) and their slots return to the free list.
   */
  public void abandonAll() {
    for (ClassLog log : logs.values()) {
      abandonLocked(log);
    }
  }

  /** Drops {@code s} if it is the active segment of its class (as {@link #abandonAll} does); true if it was. */
  public boolean abandon(Segment s) {
    ClassLog log = logs.get(s.lifetimeClass().id());
    if (log == null || log.segment != s) {
      return false;
    }
    abandonLocked(log);
    return true;
  }

  private void abandonLocked(ClassLog log) {
    try {
      awaitLocked(log);
    } catch (IOException e) {
      // the segment is dropped below either way
    }
    Segment s = log.segment;
    if (s != null) {
      s.setBuffer(null);
      s.setFlushing(null);
      table.release(s);
      log.segment = null;
      log.synced = 0;
      log.buffer().reset(0, 0);
    }
  }

  private boolean openLocked(ClassLog log) throws IOException {
    int slot = slots.freeSlot();
    if (slot < 0) {
      return false;
    }
    long id = table.allocateSegmentId();
    long seq = sequence.getAsLong();
    Segment s = new Segment(id, slot, log.lifetimeClass, Segment.State.ACTIVE);
    log.segment = s;
    opened(log); // the hint is set before the slot's first write
    try {
      ByteBuffer header = SegmentHeader.encode(id, log.lifetimeClass.id(), seq);
      device.write(slot, 0, header);
      record(slot, 0, Device.ALIGNMENT, log);
    } catch (Throwable e) { // an Error too: never leave a half-opened segment or leak its slot
      log.segment = null;
      table.returnFreeSlot(slot);
      throw e;
    }
    s.restore(0, 0, SegmentHeader.FIRST_ENTRY_OFFSET, 0);
    log.synced = 0;
    log.buffer().reset(id, SegmentHeader.FIRST_ENTRY_OFFSET);
    s.setBuffer(log.buffer());
    log.startSummary(true);
    table.add(s);
    return true;
  }

  /**
   * Hands the current buffer to the flusher thread and continues in the other one (after its own
   * write completed): device writes overlap with appends. Readers find entries of the buffer in
   * flight through {@link Segment#flushing()} until the segment's flushed offset passes them; the
   * buffer is reset (sequence lock) only after that.
   */
  private void flushLocked(ClassLog log) throws IOException {
    WriteBuffer buf = log.buffer();
    if (buf.used() == 0) {
      return;
    }
    awaitLocked(log);
    Segment s = log.segment;
    ByteBuffer slice = buf.flushSlice();
    int len = slice.remaining();
    int from = (int) Device.roundDown(log.synced); // pages before it are on the device already
    long base = buf.base();
    record(s.slot(), base + from, len - from, log);
    s.setFlushing(buf);
    slice.position(from);
    log.inFlight = flusher.submit(() -> {
      device.write(s.slot(), base + from, slice);
      s.setFlushedOffset(base + len);
      return null;
    });
    log.synced = 0;
    log.current ^= 1;
    WriteBuffer next = log.buffer();
    next.reset(s.id(), base + len);
    s.setBuffer(next);
  }

  private void awaitLocked(ClassLog log) throws IOException {
    Future<?> f = log.inFlight;
    if (f == null) {
      return;
    }
    log.inFlight = null;
    try {
      f.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IOException("buffer flush failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while flushing", e);
    }
  }

  private void sealLocked(ClassLog log) throws IOException {
    flushLocked(log);
    Segment s = log.segment;
    if (log.summarize) {
      awaitLocked(log);
      ByteBuffer summary = SegmentSummary.encode(s.id(), log.hashes, log.offsets, log.count);
      long at = segmentBytes - summary.remaining();
      record(s.slot(), at, summary.remaining(), log);
      log.inFlight = flusher.submit(() -> {
        device.write(s.slot(), at, summary);
        return null;
      });
    }
    s.setBuffer(null);
    s.seal(sequence.getAsLong());
    log.segment = null;
  }

  private void record(int slot, long offset, long len, ClassLog log) {
    LifetimeClass c = log.lifetimeClass;
    if (c.id() == LifetimeClass.SURVIVOR.id()) {
      counters.reclaimBytesWritten.add(len);
    } else {
      counters.flushBytesWritten.add(len);
    }
    if (trace != null && !traceFailed) {
      try {
        trace.write(slot * segmentBytes + offset, len, c.id(), c.name(), log.stream);
      } catch (IOException e) {
        traceFailed(e);
      }
    }
    if (placement != null) {
      placement.written(c, log.stream, len);
    }
  }

  /** Records a discard of {@code slot} in the trace. */
  public void recordTrim(int slot) {
    if (trace != null && !traceFailed) {
      try {
        trace.trim(slot * segmentBytes, segmentBytes);
      } catch (IOException e) {
        traceFailed(e);
      }
    }
  }

  private void traceEpoch(EpochSample e) {
    if (traceFailed) {
      return;
    }
    try {
      for (EpochSample.ClassSample c : e.classes()) {
        trace.epoch(e.clock(), e.epochBytes(), c.classId(), c.name(), placement.mapper().streamOf(c.classId()),
            "written=" + c.writtenBytes() + ";inv_young=" + c.invalidatedYoung() + ";inv_old=" + c.invalidatedOld()
                + ";foot_young=" + c.footprintYoung() + ";foot_old=" + c.footprintOld());
      }
    } catch (IOException ex) {
      traceFailed(ex);
    }
  }

  private void traceFailed(IOException e) {
    traceFailed = true;
    LOG.warn("write trace disabled after an error: {}", e.toString());
  }
}
