package io.hybridcache.core.engine;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * Lets calls into the cache in until it closes, and lets close wait for the calls in flight, so no call
 * ever runs against a closed index or device (a closed Chronicle map unmaps its memory).
 *
 * <p><b>Concurrency.</b> The calls in flight are counted in striped cells (a thread always uses the cell
 * its id hashes to, each cell on a cache line of its own, as {@code LongAdder} does), so that gets on many
 * cores never write one shared line: one counter for every call made a hot key's hits at 16 threads
 * slower than at one. {@link #enter} adds one to its cell, then reads the closed flag (volatile), and
 * backs out if it is set; {@link #close} sets the flag, then waits (parking in short slices, bounded by
 * its deadline) until every cell is zero. Both sides write before they read, and volatile and atomic
 * accesses are totally ordered: either the enter's read of the flag comes after the close's write (it
 * sees it and backs out), or the enter's increment comes before the close's reads of the cells (the
 * close waits for it). A call that entered before the flag was set is waited for; one that enters after
 * throws {@link IllegalStateException}.
 */
final class CallGate {
  private static final long WAIT_SLICE_NANOS = 100_000;
  /** Longs between two cells: 128 bytes, a cache line pair (adjacent-line prefetch) per cell. */
  private static final int PAD = 16;
  /** Cells at least (8 KiB a gate). */
  static final int MIN_CELLS = 64;

  private final String name;
  private final AtomicLongArray cells;
  private final int mask;
  private final AtomicBoolean closed = new AtomicBoolean();

  CallGate(String name) {
    this(name, Runtime.getRuntime().availableProcessors());
  }

  /**
   * A gate of the smallest power of two of cells that is at least {@code 4 x processors} and {@link #MIN_CELLS}:
   * a thread's cell is fixed by its id, so the cells must outnumber the threads an application runs, not only
   * the cores, or two threads running at once share one (16 threads on 4 cells did, and a hot key's gets
   * at 16 threads ran no faster than at one).
   */
  CallGate(String name, int processors) {
    this.name = name;
    int stripes = Integer.highestOneBit(Math.max(MIN_CELLS, 4 * processors) - 1) << 1;
    this.mask = stripes - 1;
    this.cells = new AtomicLongArray((stripes + 1) * PAD); // cell i at (i + 1) * PAD: none beside the array's header
  }

  /** Enters a call; pair with {@link #exit} in a finally, on the same thread. */
  void enter() {
    int cell = cell();
    cells.getAndIncrement(cell);
    if (closed.get()) {
      cells.getAndDecrement(cell);
      throw new IllegalStateException("cache " + name + " is closed");
    }
  }

  /** Leaves a call {@link #enter} let in on this thread. */
  void exit() {
    cells.getAndDecrement(cell());
  }

  /** The cell of the calling thread (a mix of its id, so consecutive ids spread over the cells). */
  private int cell() {
    long id = Thread.currentThread().getId();
    int h = (int) (id ^ (id >>> 32)) * 0x9E3779B9;
    return (((h ^ (h >>> 16)) & mask) + 1) * PAD;
  }

  /** Throws {@link IllegalStateException} once closed (a call that holds nothing open across it). */
  void ensureOpen() {
    if (closed()) {
      throw new IllegalStateException("cache " + name + " is closed");
    }
  }

  boolean closed() {
    return closed.get();
  }

  /**
   * Closes the gate; returns false if it was closed already. Then waits until the calls in flight have
   * left or {@code deadlineNanos} passed (see {@link #drained}).
   */
  boolean close(long deadlineNanos) {
    if (!closed.compareAndSet(false, true)) {
      return false;
    }
    while (!drained() && System.nanoTime() - deadlineNanos < 0) {
      LockSupport.parkNanos(WAIT_SLICE_NANOS);
    }
    return true;
  }

  /** After {@link #close}: waits, however long it takes, until no call is in flight (none can enter). */
  void awaitDrained() {
    while (!drained()) {
      LockSupport.parkNanos(WAIT_SLICE_NANOS);
    }
  }

  /** True when no call is in flight (a call entering meanwhile may be counted, then back out). */
  boolean drained() {
    for (int i = PAD; i < cells.length(); i += PAD) {
      if (cells.get(i) != 0) {
        return false;
      }
    }
    return true;
  }
}
