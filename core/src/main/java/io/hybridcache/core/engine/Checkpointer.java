package io.hybridcache.core.engine;

import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes the periodic checkpoints of the compact index that make a restart after a crash warm
 * ({@link WarmRecovery}): fuzzy, on a thread of their own, never blocking a lookup (ARIES fuzzy
 * checkpoint; the replay after it is LFS roll-forward).
 *
 * <p>Thread-safe by confinement. Concurrency: {@link #maybeStart} and {@link #checkpointNow} run on
 * the flash maintenance thread (or the opening/closing thread once it is gone): they record where
 * the log stands and switch the journal to a new epoch under the segment writer's lock (no append
 * in between), so every entry appended after the start lies past the recorded positions and every
 * invalidation after it lands in the new epoch's half. The copy of the index then runs on the
 * thread "hybridcache-checkpoint-NAME", one stripe at a time ({@link IndexCheckpoint#write}). At
 * most one checkpoint runs; the next starts only after the previous one is durable, so the journal
 * half it recycles holds only records older than the durable checkpoint. A copy that fails (any
 * Throwable) is counted, logged and retried with the same start and epoch; the thread lives on.
 *
 * <p>When: once the writer has written {@code intervalBytes} since the last start and at least
 * {@link #MIN_INTERVAL_NANOS} passed (bounds the replay at open), or the journal's active half is half
 * full (bounds the journal).
 *
 * <p>Format: none of its own; the files are {@link IndexCheckpoint}'s and {@link InvalidationJournal}'s.
 */
final class Checkpointer {
  /**
   * Least time between two checkpoints started for bytes written: each one writes and forces a file, and
   * on a small flash tier written at device speed the byte trigger alone would fire every few tens of
   * milliseconds, its fsyncs stalling the segment writes beside it (measured: 50 ms waits for a write
   * buffer, so refused evictions). A half-full journal still starts one at once.
   */
  static final long MIN_INTERVAL_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);

  private static final Logger LOG = LoggerFactory.getLogger(Checkpointer.class);

  private final String name;
  private final Path file;
  private final HeapIndex index;
  private final InvalidationJournal journal;
  private final SegmentWriter writer;
  private final SegmentTable table;
  private final AtomicLong sequence;
  private final LongSupplier bytesWritten;
  private final long intervalBytes;
  private final Counters counters;
  private final ExecutorService thread;
  // maintenance thread:
  private volatile long durableEpoch; // written by the checkpoint thread
  private IndexCheckpoint.Start pending; // a started checkpoint not yet durable
  private long pendingEpoch;
  private long startedAtBytes;
  private long startedAtNanos = System.nanoTime() - MIN_INTERVAL_NANOS;
  private Future<?> running;

  Checkpointer(String name, Path file, HeapIndex index, InvalidationJournal journal, SegmentWriter writer,
      SegmentTable table, AtomicLong sequence, LongSupplier bytesWritten, long intervalBytes, Counters counters) {
    this.name = name;
    this.file = file;
    this.index = index;
    this.journal = journal;
    this.writer = writer;
    this.table = table;
    this.sequence = sequence;
    this.bytesWritten = bytesWritten;
    this.intervalBytes = intervalBytes;
    this.counters = counters;
    this.durableEpoch = journal.epoch();
    this.startedAtBytes = bytesWritten.getAsLong();
    this.thread = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "hybridcache-checkpoint-" + name);
      t.setDaemon(true);
      return t;
    });
  }

  /** The journal invalidations go to. */
  InvalidationJournal journal() {
    return journal;
  }

  /** Writer thread, between commands: starts a checkpoint in the background if one is due. */
  void maybeStart() {
    if (running != null && !running.isDone()) {
      return;
    }
    collect();
    boolean byBytes = bytesWritten.getAsLong() - startedAtBytes >= intervalBytes
        && System.nanoTime() - startedAtNanos >= MIN_INTERVAL_NANOS;
    boolean due = pending != null || byBytes || journal.fill() >= 0.5 || journal.overflowed();
    if (due) {
      begin();
      IndexCheckpoint.Start start = pending;
      long epoch = pendingEpoch;
      running = thread.submit(() -> copy(start, epoch));
    }
  }

  /**
   * Takes a checkpoint now, on the calling thread, after any running one (close and open: no writer
   * runs). Returns true if it is durable.
   */
  boolean checkpointNow(long deadlineNanos) {
    if (!awaitRunning(deadlineNanos)) {
      return false;
    }
    begin();
    return copy(pending, pendingEpoch) && collect();
  }

  /** Waits for a running copy until the deadline; true if none runs. */
  private boolean awaitRunning(long deadlineNanos) {
    Future<?> f = running;
    if (f != null) {
      try {
        f.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      } catch (Exception e) {
        return false;
      }
    }
    collect();
    return true;
  }

  /** Notes a finished copy; true if nothing is pending. */
  private boolean collect() {
    if (running != null && running.isDone()) {
      running = null;
    }
    if (running == null && pending != null && durableEpoch == pendingEpoch) {
      pending = null;
    }
    return pending == null;
  }

  /**
   * Records the start and switches the journal, unless a failed checkpoint's start is being retried. Under
   * the segment writer's lock, so no entry is appended meanwhile: every entry appended later lies past the
   * recorded positions, and an invalidation of it lands in the new half. Entries appended before and not
   * yet installed are waited for (a few index operations each), so the copy sees them.
   */
  private void begin() {
    if (pending == null) {
      journal.clearOther(); // the slow part of the switch, before the lock that stops appends
      writer.locked(this::beginLocked);
    }
  }

  private void beginLocked() {
    for (Segment s : table.segments()) {
      s.awaitInstalls();
    }
    long[][] active = writer.appendPositions();
    pendingEpoch = journal.epoch() + 1;
    pending = new IndexCheckpoint.Start(table.nextSegmentIdPeek(), sequence.get(), active[0], active[1]);
    startedAtBytes = bytesWritten.getAsLong();
    startedAtNanos = System.nanoTime();
    journal.switchTo(pendingEpoch);
  }

  /** Writes the checkpoint; any Throwable is a counted fault. */
  private boolean copy(IndexCheckpoint.Start start, long epoch) {
    try {
      IndexCheckpoint.write(file, index, epoch, true, start);
      durableEpoch = epoch; // read by the writer after Future.get/isDone (happens-before)
      counters.checkpoints.increment();
      return true;
    } catch (Throwable t) {
      counters.checkpointFailures.increment();
      LOG.warn("{}: index checkpoint failed ({}); it is retried, and recovery uses the previous one", name,
          t.toString());
      return false;
    }
  }

  /** Stops the checkpoint thread, after waiting for a running copy until the deadline. */
  void stop(long deadlineNanos) {
    awaitRunning(deadlineNanos);
    thread.shutdown();
  }
}
