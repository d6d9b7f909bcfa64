package io.hybridcache.core.engine;

import io.hybridcache.core.api.LifetimeClass;
import io.hybridcache.core.api.VictimPolicy;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One segment: a segment id living in a device slot, with its fill and garbage accounting.
 *
 * <p>Thread-safe. Concurrency: {@code state}, {@code writtenBytes} and {@code buffers} are written
 * under the {@link SegmentWriter}'s lock (or by the reclaim thread), {@code flushedOffset} by the
 * flusher thread, and all are read by any thread (volatile); {@code garbageBytes} is added to by
 * any thread that unlinks an entry (atomic). {@code pendingInstalls} counts entries appended but
 * not yet installed in the index: reclaim waits for it to drain before it decides which of the
 * victim's entries are live. Sizes are counted in the index's sector-rounded entry sizes ({@link
 * io.hybridcache.core.engine.IndexEntry#sizeBytes}) on both sides, so the garbage ratio is exact in
 * those units.
 */
final class Segment implements VictimPolicy.SegmentInfo {
  /** Life of a segment: ACTIVE (takes appends) -> SEALED (full, serves reads) -> RECLAIMING -> gone. */
  public enum State { ACTIVE, SEALED, RECLAIMING }

  private final long id;
  private final int slot;
  private final LifetimeClass lifetimeClass;
  private final AtomicLong garbageBytes = new AtomicLong();
  private final java.util.concurrent.atomic.AtomicBoolean damaged = new java.util.concurrent.atomic.AtomicBoolean();
  private volatile State state;
  private volatile long writtenBytes;
  private volatile long flushedOffset;
  private volatile long sealedSequence;
  private volatile WriteBufferPool buffers; // its writer's buffers: some may hold its unflushed tail
  private final AtomicInteger pendingInstalls = new AtomicInteger();
  /** Bytes appended here per key group (guarded by this); null until the first, or without key groups. */
  private java.util.HashMap<Long, long[]> groupBytes;
  private GroupBytes groupTotals; // guarded by this: the totals this segment's bytes are counted in
  private boolean groupsForgotten; // guarded by this: left the segment table, its bytes taken off the totals

  /** How long reclaim or a checkpoint start waits for {@link #awaitInstalls} before it gives up (a fault). */
  static final long INSTALL_WAIT_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);
  private static final long INSTALL_PARK_NANOS = 100_000;

  public Segment(long id, int slot, LifetimeClass lifetimeClass, State state) {
    this.id = id;
    this.slot = slot;
    this.lifetimeClass = lifetimeClass;
    this.state = state;
  }

  @Override
  public long id() { return id; }
  public int slot() { return slot; }
  public LifetimeClass lifetimeClass() { return lifetimeClass; }
  public State state() { return state; }
  @Override
  public long writtenBytes() { return writtenBytes; }
  @Override
  public long garbageBytes() { return garbageBytes.get(); }
  @Override
  public long sealedSequence() { return sealedSequence; }
  /** Bytes of the segment known to be on the device: entries below it are read from the device. */
  public long flushedOffset() { return flushedOffset; }
  /**
   * The write buffers that may hold entries of this segment not yet on the device (each names the
   * segment and range it holds: {@link WriteBuffer#tryCopy}), or null.
   */
  public WriteBuffer[] buffers() {
    WriteBufferPool p = buffers;
    return p == null ? null : p.all();
  }

  /** True once a read of this segment failed: its entries read as misses until the writer drops it. */
  public boolean damaged() {
    return damaged.get();
  }

  /** Marks the segment unreadable (any thread); true for the one caller that marked it first. */
  public boolean markDamaged() {
    return damaged.compareAndSet(false, true);
  }

  public long liveBytes() {
    return Math.max(0, writtenBytes - garbageBytes.get());
  }

  public void addGarbage(long bytes) {
    garbageBytes.addAndGet(bytes);
  }

  // ---- the writer's lock or the reclaim thread ----

  /** Reclaim takes the segment: it no longer counts as a victim candidate. */
  public void setReclaiming() { state = State.RECLAIMING; }

  /** Reclaim failed: the segment stays a sealed, readable victim candidate. */
  public void setSealedAgain() { state = State.SEALED; }

  void setState(State s) { state = s; }
  void addWritten(long bytes) { writtenBytes += bytes; }
  void setFlushedOffset(long offset) { flushedOffset = offset; }
  void setBuffers(WriteBufferPool b) { buffers = b; }

  /** An entry was appended here; {@link #installed} follows once its index update is done. */
  void appended() { pendingInstalls.incrementAndGet(); }

  void installed() { pendingInstalls.decrementAndGet(); }

  /** Entries appended here and not yet installed or refused (tests: none may leak). */
  int pendingInstalls() { return pendingInstalls.get(); }

  /**
   * Waits until every entry appended here is installed (or refused) in the index, or until
   * {@code deadlineNanos}; false then. The window is a few index operations on the appending thread, which
   * never blocks inside it, so this spins, then yields, then parks in short slices: only a thread stalled
   * for long (or a leaked count) reaches the deadline, and the caller gives up instead of hanging.
   */
  boolean awaitInstalls(long deadlineNanos) {
    for (int spins = 0; pendingInstalls.get() > 0; spins++) {
      if (System.nanoTime() - deadlineNanos >= 0) {
        return false;
      }
      if (spins < 64) {
        Thread.onSpinWait();
      } else if (spins < 1024) {
        Thread.yield();
      } else {
        java.util.concurrent.locks.LockSupport.parkNanos(INSTALL_PARK_NANOS);
      }
    }
    return true;
  }
  /** As {@link #awaitInstalls}, but throws {@link IllegalStateException} at the deadline (reclaim, checkpoints). */
  void requireInstalls(long deadlineNanos) {
    if (!awaitInstalls(deadlineNanos)) {
      throw new IllegalStateException("entries appended to segment " + id + " were not installed within "
          + java.time.Duration.ofNanos(INSTALL_WAIT_NANOS));
    }
  }

  void seal(long sequence) {
    sealedSequence = sequence;
    state = State.SEALED;
  }

  /** Accounting of a segment found by crash recovery: sealed, full, garbage = what the index lost. */
  public void restoreRecovered(long written, long garbage, long flushed) {
    restore(written, garbage, flushed, 0);
  }

  /** Restores accounting read from the segment table file or rebuilt at recovery. */
  void restore(long written, long garbage, long flushed, long sealedSeq) {
    writtenBytes = written;
    garbageBytes.set(garbage);
    flushedOffset = flushed;
    sealedSequence = sealedSeq;
  }

  /**
   * Counts {@code bytes} of {@code group} appended here, in {@code totals} too, unless the segment left the
   * table already (then neither). The writer's lock, reclaim, or a warm open's rebuild.
   */
  synchronized void addGroupBytes(GroupBytes totals, long group, long bytes) {
    if (groupsForgotten || group == io.hybridcache.core.api.KeyGroups.NONE) {
      return;
    }
    if (groupBytes == null) {
      groupBytes = new java.util.HashMap<>();
    }
    groupBytes.computeIfAbsent(group, g -> new long[1])[0] += bytes;
    groupTotals = totals;
    totals.flashAdd(group, bytes);
  }

  /** The segment left the table: its bytes of every group come off the totals (once; later adds are ignored). */
  synchronized void forgetGroupBytes() {
    if (groupsForgotten) {
      return;
    }
    groupsForgotten = true;
    if (groupBytes != null) {
      for (java.util.Map.Entry<Long, long[]> e : groupBytes.entrySet()) {
        groupTotals.flashAdd(e.getKey(), -e.getValue()[0]);
      }
    }
  }

  /** Bytes of {@code group} appended here (0 once the segment left the table). */
  synchronized long groupBytes(long group) {
    long[] b = groupsForgotten || groupBytes == null ? null : groupBytes.get(group);
    return b == null ? 0 : b[0];
  }

  @Override
  public String toString() {
    return "Segment{" + id + "@slot" + slot + " " + lifetimeClass + " " + state + " written=" + writtenBytes
        + " garbage=" + garbageBytes.get() + "}";
  }
}
