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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends entries to the active segment of their lifetime class through that class's write buffers
 * (CaSSanDra paper, section IV: append-only segment files, one active segment per class, write buffers
 * flushed with one sequential write each; CacheLib navy's BlockCache/RegionManager: the inserting
 * thread reserves room in the open region's buffer and copies the entry in, full buffers go to I/O
 * threads with several in flight).
 *
 * <p>Concurrency: thread-safe. The thread whose eviction writes an entry appends it itself under one
 * short lock: it bumps the buffer's offset, copies header, key and value in and computes the checksum
 * ({@link EntryFormat#write}); there is no hand-off per entry. Every device write (a full buffer, a
 * segment header, a summary, the partial page of a {@link #flushAll}) goes to one flusher thread in
 * submission order, so a segment's writes land in order and its {@code flushedOffset} only grows. The
 * buffers come from one {@link WriteBufferPool} shared by every class (bounded in all); a class holds at
 * most {@code buffersPerClass}: one filling, the rest in flight. The flusher hands a written buffer back
 * to the pool after it advanced the segment's {@code flushedOffset}, so a reader that finds a buffer
 * recycled under it (its sequence lock) reads the device instead. A class that needs a buffer while all
 * are in use takes the filling one of the class that appended least recently: that buffer goes to the
 * flusher (its last page zero padded; the class continues on the next page when it appends again) and
 * back to the pool. A thread that finds no free buffer waits for the flusher, under the lock, up to its
 * deadline; the flusher never takes the lock, so that wait cannot deadlock. Opening a segment takes a
 * free slot from the {@link SlotSource} and never waits: without one, {@link #append} returns
 * {@link IndexEntry#NONE} and the caller decides (the flash tier waits for reclaim outside the lock).
 *
 * <p>Format: a segment is its header page ({@link SegmentHeader}) followed by entries
 * ({@link EntryFormat}) at 16-byte aligned offsets; each buffer flush writes a whole number of 4 KiB
 * pages, zero padded, so the next buffer starts page aligned. Sealing writes the segment's
 * {@link SegmentSummary} (key hash and offset of every entry) at its tail; appends leave room for it.
 *
 * <p>Reclaim: not here; a segment's slot may be released only after {@link #awaitFlushes} (no write of
 * it in flight) and {@link Segment#awaitInstalls}. Write errors are reported to the
 * {@link FlushEvents} listener (the flash tier marks the segment damaged: it costs that segment) and
 * thrown by the next {@link #awaitFlushes} or flush.
 *
 * <p>Placement: with a {@link Placement}, every segment gets its device stream when it opens (or
 * resumes), passed to the device as a write-life hint, and every device write is counted in its
 * stream; the write trace records both (under the lock).
 */
final class SegmentWriter {
  private static final Logger LOG = LoggerFactory.getLogger(SegmentWriter.class);
  /** Buffers per lifetime class when the constructor is not told: one filling, one in flight. */
  static final int DEFAULT_BUFFERS = 2;
  /**
   * Least time to wait for the lock while its holder is not waiting for room, even with no time to wait
   * for room: the lock is held for an offset bump and a copy, so a longer wait for it is the fair lock's
   * queue on a busy machine (a woken thread waiting for a core), not back-pressure. Measured: with 1 ms,
   * evictions on reading threads (5 ms for room) were refused in 4 of 16 runs of the README's main job.
   */
  static final long LOCK_FLOOR_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  /** Supplies a free slot for a new segment without waiting; -1 if none is free now. */
  @FunctionalInterface
  public interface SlotSource {
    int freeSlot();

    /** As {@link #freeSlot()}; {@code mayTakeReserve} for a writer that must not wait for reclaim. */
    default int freeSlot(boolean mayTakeReserve) {
      return freeSlot();
    }
  }

  /** Told of each device write's outcome, on the flusher thread; must not take the writer's lock. */
  interface FlushEvents {
    /** A write succeeded. */
    default void written() { }

    /** A write of {@code segment} failed: its later writes are skipped. */
    void failed(Segment segment, IOException error);

    /** A write of {@code segment} threw something other than an I/O error (a fault of the flusher). */
    default void fault(Segment segment, Throwable error) {
      failed(segment, new IOException("device write failed", error));
    }
  }

  private final Device device;
  private final SegmentTable table;
  private final Counters counters;
  private final WriteTrace trace;
  private final int bufferBytes;
  private final int buffersPerClass;
  private final long segmentBytes;
  /** Key bytes per summary record ({@code CacheConfig.evictionKeyBytes}); set once before the first append. */
  private int summaryKeyBytes;
  /** Per key group bytes ({@link #groups}), or null; set once before the first append. */
  private GroupBytes groups;
  private final LongSupplier sequence;
  private final Map<Integer, ClassLog> logs = new HashMap<>(); // under lock
  private final WriteBufferPool pool;
  private long appends; // under lock: orders the classes by their last append (which to take a buffer from)
  // fair: a stream of appends never starves reclaim or a checkpoint start (measured: unfair refused evictions)
  private final ReentrantLock lock = new ReentrantLock(true);
  private final ExecutorService flusher;
  private final Placement placement;
  private volatile SlotSource slots;
  private volatile FlushEvents events = (s, e) -> { };
  /** Threads waiting under the lock for a free buffer (the device's pace): others then wait only to their deadline. */
  private final AtomicInteger roomWaiters = new AtomicInteger();
  private volatile IOException failed; // the first write error since the last awaitFlushes
  private boolean traceFailed;
  private LockProbe probe = LockProbe.NONE; // tests: an Error inside a locked region

  /** The active segment of one lifetime class and its buffers. All fields under the lock, but {@code held}. */
  private static final class ClassLog {
    LifetimeClass lifetimeClass; // the id never changes; the name may (a placeholder of a restart, then the caller's)
    /** Buffers taken from the pool and not yet given back: the filling one and those in flight. */
    final AtomicInteger held = new AtomicInteger();
    WriteBuffer current; // the filling buffer, or null (none taken yet, or taken by another class)
    long nextBase; // without a current buffer: the segment offset where the next one starts
    long lastAppend; // the writer's append count at this class's last append
    Segment segment;
    int stream; // of the active segment
    /** Bytes at the start of the current buffer already submitted (a {@link #flushAll} that kept the page). */
    int synced;
    // the summary of the active segment; false for a segment resumed after a restart (no summary)
    boolean summarize;
    long[] hashes = new long[1024];
    long[] offsets = new long[1024];
    long[] keys = new long[1024]; // the keys' first summaryKeyBytes, packed (SegmentSummary.keyPrefix)
    int count;

    ClassLog(LifetimeClass c) {
      this.lifetimeClass = c;
    }

    void startSummary(boolean on) {
      summarize = on;
      count = 0;
    }

    void addToSummary(long hash, long offset, long key) {
      if (count == hashes.length) {
        hashes = java.util.Arrays.copyOf(hashes, count * 2);
        offsets = java.util.Arrays.copyOf(offsets, count * 2);
        keys = java.util.Arrays.copyOf(keys, count * 2);
      }
      hashes[count] = hash;
      offsets[count] = offset;
      keys[count] = key;
      count++;
    }

    /** Where entry data must end so the summary, with one more record, still fits. */
    long dataLimit(long segmentBytes, int keyBytes) {
      return summarize ? segmentBytes - SegmentSummary.regionBytes(count + 1, keyBytes) : segmentBytes;
    }
  }

  /** Counts each append to its key group ({@link GroupBytes}); called once, before the first append. */
  void groups(GroupBytes g) {
    this.groups = g;
  }

  /** Keeps the first {@code n} bytes of each key in segment summaries; called once, before the first append. */
  void summaryKeyBytes(int n) {
    this.summaryKeyBytes = n;
  }

  public SegmentWriter(Device device, SegmentTable table, Counters counters, WriteTrace trace, int bufferBytes,
      LongSupplier sequence) {
    this(device, table, counters, trace, bufferBytes, DEFAULT_BUFFERS, 2 * DEFAULT_BUFFERS, sequence, null);
  }

  /**
   * As above, with {@code buffersPerClass} write buffers per lifetime class (at least 2), {@code buffersTotal}
   * for all classes together (at least 2) and lifetime placement ({@code placement} may be null: stream 0,
   * no hints).
   */
  public SegmentWriter(Device device, SegmentTable table, Counters counters, WriteTrace trace, int bufferBytes,
      int buffersPerClass, int buffersTotal, LongSupplier sequence, Placement placement) {
    if (buffersPerClass < 2) {
      throw new IllegalArgumentException("buffersPerClass must be >= 2, was " + buffersPerClass);
    }
    this.pool = new WriteBufferPool(bufferBytes, buffersTotal);
    this.placement = placement;
    if (placement != null && trace != null) {
      placement.onEpoch(this::traceEpoch);
    }
    this.device = device;
    this.table = table;
    this.counters = counters;
    this.trace = trace;
    this.bufferBytes = bufferBytes;
    this.buffersPerClass = buffersPerClass;
    this.segmentBytes = device.slotBytes();
    this.sequence = sequence;
    this.flusher = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "hybridcache-flusher");
      t.setDaemon(true);
      return t;
    });
  }

  /** Tests: {@code p} runs first inside every locked region (set before the writer is shared). */
  void probe(LockProbe p) {
    probe = p;
  }

  /** Tests: true if some thread holds the lock. */
  boolean lockHeld() {
    return lock.isLocked();
  }

  /**
   * The most direct memory the write buffers of a cache with config {@code c} hold (what src/site/config.md
   * states): {@link io.hybridcache.core.api.CacheConfig#writeBuffersTotal()} buffers, however many
   * lifetime classes write.
   */
  static long boundBytes(io.hybridcache.core.api.CacheConfig c) {
    return WriteBufferPool.boundBytes(c.writeBuffersTotal(), c.writeBufferBytes());
  }

  /** Direct memory of the write buffers made so far (at most {@link #boundBytes} of the config). */
  long bufferMemory() {
    return pool.retainedBytes();
  }

  /** The size of each write buffer: the largest entry it takes. */
  int bufferBytes() {
    return bufferBytes;
  }

  public void slotSource(SlotSource s) {
    this.slots = s;
  }

  /** Who hears of device writes (the flash tier); by default nobody (failures are still thrown later). */
  void onFlushEvents(FlushEvents e) {
    this.events = e;
  }

  /**
   * Appends as {@link #append(LifetimeClass, long, byte[], byte[], long, long, long)}, waiting as long as
   * it takes, for a caller that installs its entries itself on the reclaim thread or not at all (reclaim's
   * reinsertion, the record log): the segment does not count it as pending.
   */
  public long append(LifetimeClass lifetimeClass, long keyHash, byte[] key, byte[] value, long expiryMillis,
      long seq) {
    return append(lifetimeClass, keyHash, key, value, expiryMillis, seq, Long.MAX_VALUE, false, false);
  }

  /**
   * Appends an entry for {@code lifetimeClass}; returns its packed index entry, or {@link IndexEntry#NONE}
   * if there was no room: no free slot for a new segment, or no free buffer (and the lock) by
   * {@code deadlineNanos} ({@link Long#MAX_VALUE}: no deadline). The entry is readable (published in its
   * buffer) when this returns, and its segment counts it as {@link Segment#appended}: the caller calls
   * {@link Segment#installed} once the index knows it. An interrupt ends a wait as no room, the flag kept.
   */
  public long append(LifetimeClass lifetimeClass, long keyHash, byte[] key, byte[] value, long expiryMillis,
      long seq, long deadlineNanos) {
    return append(lifetimeClass, keyHash, key, value, expiryMillis, seq, deadlineNanos, true, false);
  }

  /** As above; {@code mayTakeReserve}: a new segment may take a slot kept for reclaim (a writer that cannot wait). */
  long append(LifetimeClass lifetimeClass, long keyHash, byte[] key, byte[] value, long expiryMillis, long seq,
      long deadlineNanos, boolean pending, boolean mayTakeReserve) {
    int size = EntryFormat.entryBytes(key.length, value.length);
    if (!fits(size)) {
      throw new IllegalArgumentException("entry of " + size + " bytes exceeds the write buffer");
    }
    if (!lock(deadlineNanos)) {
      return IndexEntry.NONE;
    }
    try {
      probe.inside("append");
      return appendLocked(lifetimeClass, keyHash, key, value, expiryMillis, seq, size, deadlineNanos, pending,
          mayTakeReserve);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Whether an entry of {@code entryBytes} fits a write buffer: one written before a restart with larger
   * buffers ({@code writeBufferBytes} is not part of the layout) may not, and is never appended again.
   */
  boolean fits(int entryBytes) {
    return entryBytes <= bufferBytes && entryBytes <= IndexEntry.MAX_ENTRY_BYTES;
  }

  /**
   * Takes the lock by the deadline, but waits at least {@link #LOCK_FLOOR_NANOS} unless a thread holding
   * it is waiting for room as the wait begins: otherwise it is held only briefly. One timed wait (a timed
   * out {@code tryLock} leaves the fair queue, so slices would lose the place). False if it did not
   * come, or on an interrupt (the flag kept).
   */
  private boolean lock(long deadlineNanos) {
    if (deadlineNanos == Long.MAX_VALUE) {
      lock.lock();
      return true;
    }
    long now = System.nanoTime();
    long wait = Math.max(deadlineNanos - now, roomWaiters.get() > 0 ? 0 : LOCK_FLOOR_NANOS);
    try {
      return lock.tryLock(wait, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** The log of {@code c}'s id, made on first use (no capturing lambda: appends call this per entry). */
  private ClassLog logLocked(LifetimeClass c) {
    ClassLog log = logs.get(c.id());
    if (log == null) {
      log = new ClassLog(c);
      logs.put(c.id(), log);
    }
    return log;
  }

  private long appendLocked(LifetimeClass lifetimeClass, long keyHash, byte[] key, byte[] value, long expiryMillis,
      long seq, int size, long deadlineNanos, boolean pending, boolean mayTakeReserve) {
    ClassLog log = logLocked(lifetimeClass);
    if (log.lifetimeClass != lifetimeClass) {
      log.lifetimeClass = lifetimeClass; // new segments carry the caller's name, not a restart's placeholder
    }
    if (log.segment != null && log.segment.damaged()) {
      detachLocked(log); // a write of it failed: the flash tier drops it; what follows goes to a new segment
    }
    if (log.current == null && !refillLocked(log, deadlineNanos)) {
      return IndexEntry.NONE;
    }
    log.lastAppend = ++appends;
    int span = IndexEntry.classBytes(size); // what a reader reads: never across a page if it fits in one
    int pad = padBefore(log.current.used(), span);
    if (log.segment != null && log.current.free() < pad + size) {
      if (!flushLocked(log, deadlineNanos)) {
        return IndexEntry.NONE;
      }
      pad = 0; // a flushed buffer starts on a page
    }
    if (log.segment == null || log.current.base() + log.current.used() + pad + size > log.dataLimit(segmentBytes, summaryKeyBytes)) {
      if (log.segment != null && !sealLocked(log, deadlineNanos)) {
        return IndexEntry.NONE;
      }
      if (!openLocked(log, mayTakeReserve)) {
        return IndexEntry.NONE;
      }
      pad = 0;
    }
    WriteBuffer buf = log.current;
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
    if (groups != null) {
      log.segment.addGroupBytes(groups, groups.groupOf(key), IndexEntry.sizeBytes(packed));
    }
    if (log.summarize) {
      log.addToSummary(keyHash, offset, summaryKeyBytes == 0 ? 0 : SegmentSummary.keyPrefix(key, summaryKeyBytes)); // may
      // throw (it grows an array): before the count, which must not leak
    }
    if (pending) {
      log.segment.appended(); // last: from here the caller's install or refusal ends it
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
   * Makes every appended entry readable from the device: submits the unwritten pages of each current
   * buffer (the last one zero padded) in place, keeping the buffer's position, then waits for every
   * write in flight. So the entries that follow keep filling the same page (rewritten by the next write)
   * instead of each flush padding a page of its own: a trickle of one entry per flush costs no segment
   * space beyond its bytes. Segments stay active. A page written this way is written again with the
   * entries that follow, so a torn write of it (power loss) may lose entries flushed before: fine for a
   * cache (a miss); a log whose records must stay durable uses {@link #flushAllToWholePages()}.
   *
   * @throws IOException the first device write that failed since the last wait
   */
  public void flushAll() throws IOException {
    lock.lock();
    try {
      probe.inside("flushAll");
      for (ClassLog log : logs.values()) {
        if (log.segment != null) {
          syncLocked(log);
        }
      }
    } finally {
      lock.unlock();
    }
    awaitFlushes();
  }

  /**
   * As {@link #flushAll}, but each buffer's last page is zero padded and never written again: durable
   * records are never rewritten in place (the catalogue's group commit), at the cost of a page per flush.
   */
  public void flushAllToWholePages() throws IOException {
    lock.lock();
    try {
      probe.inside("flushAllToWholePages");
      for (ClassLog log : logs.values()) {
        if (log.segment != null) {
          flushLocked(log, Long.MAX_VALUE);
        }
      }
    } finally {
      lock.unlock();
    }
    awaitFlushes();
  }

  /** Submits the current buffer's pages from the first one not yet submitted, keeping its position. */
  private void syncLocked(ClassLog log) {
    WriteBuffer buf = log.current;
    if (buf == null || buf.used() == log.synced) {
      return;
    }
    Segment s = log.segment;
    ByteBuffer slice = buf.flushSlice();
    int from = (int) Device.roundDown(log.synced);
    long base = buf.base();
    long flushed = base + buf.used();
    record(s.slot(), base + from, slice.remaining() - from, log);
    submit(s, base + from, slice.position(from), flushed, null, null);
    log.synced = buf.used();
  }

  /**
   * Waits until every device write submitted so far is done: afterwards every sealed segment is wholly
   * on the device. Call without holding the lock from a thread the flusher does not wait for.
   *
   * @throws IOException the first device write that failed since the last wait
   */
  public void awaitFlushes() throws IOException {
    if (!drain()) {
      throw new IOException("interrupted while waiting for the flusher");
    }
    IOException f = failed;
    if (f != null) {
      failed = null;
      throw f;
    }
  }

  /**
   * Waits until every device write submitted so far is done, without reporting failures (the listener
   * had them); false if interrupted (the flag kept). Afterwards no write of a released slot can land.
   */
  boolean drain() {
    try {
      flusher.submit(() -> { }).get();
      return true;
    } catch (ExecutionException | java.util.concurrent.RejectedExecutionException e) {
      return true; // an empty task does not fail; a closed flusher has nothing in flight
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Stops the flusher thread after the writes submitted (after {@link #flushAll}), waiting for them. */
  public void close() {
    close(Long.MAX_VALUE);
  }

  /**
   * Stops the flusher after the writes submitted, waiting for them until {@code deadlineNanos}; false if
   * some are still in flight then (a hung device: the flusher is left behind, a daemon thread).
   */
  public boolean close(long deadlineNanos) {
    flusher.shutdown();
    try {
      return deadlineNanos == Long.MAX_VALUE ? flusher.awaitTermination(Long.MAX_VALUE, TimeUnit.NANOSECONDS)
          : flusher.awaitTermination(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Whether some thread waits under the lock for a free buffer (tests). */
  boolean waitsForRoom() {
    return roomWaiters.get() > 0;
  }

  /** True if some buffer holds entries not yet submitted to the device. */
  public boolean hasUnflushed() {
    lock.lock();
    try {
      probe.inside("hasUnflushed");
      for (ClassLog log : logs.values()) {
        if (log.segment != null && log.current != null && log.current.used() > log.synced) {
          return true;
        }
      }
      return false;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The active segments and, for each, the offset at or past which its next entry will be appended:
   * {@code [ids, offsets]} (an index checkpoint records where the log stood when it began).
   */
  public long[][] appendPositions() {
    lock.lock();
    try {
      probe.inside("appendPositions");
      int n = 0;
      long[] ids = new long[logs.size()];
      long[] offsets = new long[logs.size()];
      for (ClassLog log : logs.values()) {
        if (log.segment != null) {
          ids[n] = log.segment.id();
          offsets[n++] = log.current == null ? log.nextBase : log.current.base() + log.current.used();
        }
      }
      return new long[][] {java.util.Arrays.copyOf(ids, n), java.util.Arrays.copyOf(offsets, n)};
    } finally {
      lock.unlock();
    }
  }

  /** Runs {@code r} under the lock: work that must not interleave with appends (placement, trace). */
  void locked(Runnable r) {
    lock.lock();
    try {
      probe.inside("locked");
      r.run();
    } finally {
      lock.unlock();
    }
  }

  /** Continues appending to {@code s}, an active segment restored from the segment table. */
  public void resume(Segment s) {
    lock.lock();
    try {
      probe.inside("resume");
      ClassLog log = logLocked(s.lifetimeClass());
      long resumeAt = Device.roundUp(s.flushedOffset()); // a flush may have ended mid-page: start the next one
      if (log.segment != null || resumeAt + Device.ALIGNMENT > segmentBytes) {
        s.seal(sequence.getAsLong());
        return;
      }
      log.segment = s;
      log.startSummary(false); // entries appended before the restart are not in memory: reclaim scans it
      log.synced = 0;
      log.nextBase = resumeAt; // a buffer is taken at the first append: resuming allocates none
      if (log.current != null) {
        log.current.reset(s.id(), resumeAt);
      }
      s.setBuffers(pool);
      opened(log);
    } finally {
      lock.unlock();
    }
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

  /** As {@link #abandonAll(java.util.function.Consumer)}, telling no one (the catalogue's record log). */
  public void abandonAll() {
    abandonAll(s -> { });
  }

  /**
   * Drops every active segment (after a device error, a clear): their entries become unreachable (reads
   * of them miss) and their slots return to the free list once no write of them is in flight. Each is
   * handed to {@code dropping} first, under the lock, so no segment opens between the two (the flash tier
   * journals them: none of their entries may come back after a crash).
   */
  public void abandonAll(java.util.function.Consumer<Segment> dropping) {
    lock.lock();
    try {
      probe.inside("abandonAll");
      for (ClassLog log : logs.values()) {
        if (log.segment != null) {
          dropping.accept(log.segment);
        }
        abandonLocked(log);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Drops {@code s} if it is the active segment of its class (as {@link #abandonAll} does); true if it was. */
  public boolean abandon(Segment s) {
    lock.lock();
    try {
      probe.inside("abandon");
      ClassLog log = logs.get(s.lifetimeClass().id());
      if (log == null || log.segment != s) {
        return false;
      }
      abandonLocked(log);
      return true;
    } finally {
      lock.unlock();
    }
  }

  private void abandonLocked(ClassLog log) {
    Segment s = log.segment;
    if (s == null) {
      return;
    }
    drain(); // the flusher never takes the lock: no write of s may land in a reused slot
    detachLocked(log);
    table.release(s);
  }

  /** Stops appending to the active segment without releasing it (its unflushed tail is lost). */
  private void detachLocked(ClassLog log) {
    log.segment.setBuffers(null);
    log.segment = null;
    log.synced = 0;
    if (log.current != null) {
      log.current.reset(0, 0);
    }
  }

  private boolean openLocked(ClassLog log, boolean mayTakeReserve) {
    int slot = slots.freeSlot(mayTakeReserve);
    if (slot < 0) {
      return false;
    }
    long id;
    Segment s;
    // an Error too, from anything after the slot is taken (the write-life hint's device call, the sequence):
    // never leave a half-opened segment or leak its slot
    try {
      id = table.allocateSegmentId();
      long seq = sequence.getAsLong();
      s = new Segment(id, slot, log.lifetimeClass, Segment.State.ACTIVE);
      log.segment = s;
      opened(log); // the hint is set before the slot's first write
      ByteBuffer header = SegmentHeader.encode(id, log.lifetimeClass.id(), seq);
      record(slot, 0, Device.ALIGNMENT, log);
      submit(s, 0, header, -1, null, null);
    } catch (Throwable e) {
      log.segment = null;
      table.returnFreeSlot(slot);
      throw e;
    }
    s.restore(0, 0, SegmentHeader.FIRST_ENTRY_OFFSET, 0);
    log.synced = 0;
    log.current.reset(id, SegmentHeader.FIRST_ENTRY_OFFSET);
    s.setBuffers(pool);
    log.startSummary(true);
    table.add(s);
    return true;
  }

  /**
   * Hands the current buffer to the flusher and continues in a free one, waiting for one up to
   * {@code deadlineNanos}; false if none came. Readers find the entries of a buffer in flight in it
   * (through {@link Segment#buffers}) until the segment's flushed offset passes them; the flusher
   * recycles the buffer only after that.
   */
  private boolean flushLocked(ClassLog log, long deadlineNanos) {
    WriteBuffer buf = log.current;
    if (buf == null || buf.used() == 0) {
      return true;
    }
    WriteBuffer next = takeFree(log, deadlineNanos);
    if (next == null) {
      return false;
    }
    next.reset(log.segment.id(), submitCurrentLocked(log));
    log.current = next;
    return true;
  }

  /**
   * Hands the current buffer (holding entries) to the flusher, which gives it back to the pool once written;
   * returns the segment offset where the next buffer starts (the page after it). The log has no current
   * buffer afterwards.
   */
  private long submitCurrentLocked(ClassLog log) {
    WriteBuffer buf = log.current;
    Segment s = log.segment;
    ByteBuffer slice = buf.flushSlice();
    int len = slice.remaining();
    int from = (int) Device.roundDown(log.synced); // pages before it were submitted already
    long base = buf.base();
    record(s.slot(), base + from, len - from, log);
    submit(s, base + from, slice.position(from), base + len, log, buf);
    log.synced = 0;
    log.current = null;
    log.nextBase = base + len;
    return base + len;
  }

  /** Takes a buffer for a log without one (its first append, or its buffer was taken); false if none came. */
  private boolean refillLocked(ClassLog log, long deadlineNanos) {
    WriteBuffer b = takeFree(log, deadlineNanos);
    if (b == null) {
      return false;
    }
    b.reset(log.segment == null ? 0 : log.segment.id(), log.segment == null ? 0 : log.nextBase);
    log.current = b;
    return true;
  }

  /**
   * A buffer for {@code log}, waiting for one up to {@code deadlineNanos}: from the pool once the class
   * holds fewer than {@code buffersPerClass}; with the pool empty, another class's filling buffer is
   * taken ({@link #takeFromIdlestLocked}) and this waits for it to be written.
   */
  private WriteBuffer takeFree(ClassLog log, long deadlineNanos) {
    boolean took = false;
    boolean waiting = false;
    try {
      while (true) {
        long seen = pool.returns();
        WriteBuffer b = pollLocked(log);
        if (b != null) {
          return b;
        }
        if (!took && log.held.get() < buffersPerClass && takeFromIdlestLocked(log)) {
          took = true; // once: its buffer comes back through the pool, at once if it held no entry
          continue;
        }
        if (!waiting) {
          waiting = true;
          if (deadlineNanos - System.nanoTime() > 0) {
            counters.cascadeWaits.increment(); // a write that waits for room
          }
          roomWaiters.incrementAndGet();
        }
        if (!pool.awaitReturn(seen, deadlineNanos)) {
          return null;
        }
      }
    } finally {
      if (waiting) {
        roomWaiters.decrementAndGet();
      }
    }
  }

  /** A buffer from the pool for {@code log}, or null if it holds its share or the pool has none. */
  private WriteBuffer pollLocked(ClassLog log) {
    if (log.held.get() >= buffersPerClass) {
      return null;
    }
    WriteBuffer b = pool.poll();
    if (b != null) {
      log.held.incrementAndGet();
    }
    return b;
  }

  /**
   * Takes the filling buffer of the class other than {@code taker} that appended least recently (one
   * holding no entries first): it goes back to the pool at once if empty, else after the flusher wrote it.
   * False if no other class has one.
   */
  private boolean takeFromIdlestLocked(ClassLog taker) {
    ClassLog victim = null;
    for (ClassLog l : logs.values()) {
      if (l != taker && l.current != null && (victim == null || idler(l, victim))) {
        victim = l;
      }
    }
    if (victim == null) {
      return false;
    }
    if (victim.segment == null || victim.current.used() == 0) {
      WriteBuffer b = victim.current;
      victim.nextBase = b.base();
      victim.current = null;
      giveBack(victim, b);
    } else {
      submitCurrentLocked(victim);
    }
    return true;
  }

  /** True if {@code a}'s buffer is a better one to take than {@code b}'s: empty, or appended to longer ago. */
  private static boolean idler(ClassLog a, ClassLog b) {
    boolean aEmpty = a.current.used() == 0;
    boolean bEmpty = b.current.used() == 0;
    return aEmpty != bEmpty ? aEmpty : a.lastAppend < b.lastAppend;
  }

  /** Returns a buffer {@code log} held to the pool (any thread: the flusher too). */
  private void giveBack(ClassLog log, WriteBuffer b) {
    log.held.decrementAndGet();
    pool.release(b);
  }

  /**
   * Queues one device write of {@code data} at {@code offset} of {@code s}'s slot; when it is done, sets
   * the segment's flushed offset to {@code flushedTo} (unless negative) and gives {@code buffer} (unless
   * null) back to the pool for {@code owner}. A failure is recorded, reported, and still recycles the
   * buffer (its segment is lost).
   */
  private void submit(Segment s, long offset, ByteBuffer data, long flushedTo, ClassLog owner, WriteBuffer buffer) {
    flusher.execute(() -> {
      try {
        if (!s.damaged()) {
          device.write(s.slot(), offset, data);
          if (flushedTo >= 0) {
            s.setFlushedOffset(flushedTo);
          }
          events.written();
        }
      } catch (Throwable e) { // never a dead flusher: reported, and the buffer still comes back
        IOException io = e instanceof IOException x ? x : new IOException("device write failed", e);
        if (failed == null) {
          failed = io;
        }
        try {
          if (e instanceof IOException) {
            events.failed(s, io);
          } else {
            events.fault(s, e);
          }
        } catch (RuntimeException x) {
          LOG.warn("flush failure listener threw", x);
        }
      } finally {
        if (buffer != null) {
          giveBack(owner, buffer);
        }
      }
    });
  }

  /** Seals the active segment: its last buffer and its summary go to the flusher. False if no buffer came. */
  private boolean sealLocked(ClassLog log, long deadlineNanos) {
    if (!flushLocked(log, deadlineNanos)) {
      return false;
    }
    Segment s = log.segment;
    if (log.summarize) {
      ByteBuffer summary = SegmentSummary.encode(s.id(), log.hashes, log.offsets, log.keys, summaryKeyBytes,
          log.count);
      long at = segmentBytes - summary.remaining();
      record(s.slot(), at, summary.remaining(), log);
      submit(s, at, summary, -1, null, null);
    }
    s.seal(sequence.getAsLong());
    log.segment = null;
    return true;
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
    locked(() -> {
      if (trace != null && !traceFailed) {
        try {
          trace.trim(slot * segmentBytes, segmentBytes);
        } catch (IOException e) {
          traceFailed(e);
        }
      }
    });
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
