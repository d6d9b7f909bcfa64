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
 * Throwable) is counted, logged once per episode (WARN; later ones at DEBUG) and retried with the same
 * start and epoch after a back-off (1 s doubling to 64 s); the thread lives on. If the journal overflows
 * meanwhile, that start can never recover warm: the retry starts afresh, and {@link
 * #nextUncleanOpenCold} says so until a checkpoint begun after the overflow is durable.
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
  /** Wait before the first retry of a failed checkpoint; it doubles with each failure in a row... */
  static final long FIRST_BACKOFF_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);
  /** ...up to this. */
  static final long MAX_BACKOFF_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(64);

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
  private final LongSupplier clock; // nanoTime; tests drive it
  // maintenance thread:
  private volatile long durableEpoch; // written by the checkpoint thread
  private IndexCheckpoint.Start pending; // a started checkpoint not yet durable
  private long pendingEpoch;
  private long startedAtBytes;
  private long startedAtNanos;
  private Future<?> running;
  // written by the thread that copies (one at a time), read by the maintenance thread and stats:
  private volatile int failuresInRow;
  private volatile long retryAtNanos;
  /** A crash recovers warm only from a checkpoint of this epoch on: the journal overflowed before it began. */
  private volatile long coldUntilEpoch;

  Checkpointer(String name, Path file, HeapIndex index, InvalidationJournal journal, SegmentWriter writer,
      SegmentTable table, AtomicLong sequence, LongSupplier bytesWritten, long intervalBytes, Counters counters) {
    this(name, file, index, journal, writer, table, sequence, bytesWritten, intervalBytes, counters, System::nanoTime);
  }

  /** As above, with {@code clock} for {@link System#nanoTime} (tests). */
  Checkpointer(String name, Path file, HeapIndex index, InvalidationJournal journal, SegmentWriter writer,
      SegmentTable table, AtomicLong sequence, LongSupplier bytesWritten, long intervalBytes, Counters counters,
      LongSupplier clock) {
    this.clock = clock;
    this.startedAtNanos = clock.getAsLong() - MIN_INTERVAL_NANOS;
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

  /**
   * Writer thread, between commands: starts a checkpoint in the background if one is due. After a
   * failure, not before the back-off ends ({@link #FIRST_BACKOFF_NANOS}, doubling to {@link
   * #MAX_BACKOFF_NANOS}): on a full disk each attempt rewrites the whole index to a temporary file.
   */
  void maybeStart() {
    if (running != null && !running.isDone()) {
      return;
    }
    collect();
    if (failuresInRow > 0 && clock.getAsLong() - retryAtNanos < 0) {
      return;
    }
    if (pending != null && journal.overflowed()) {
      pending = null; // records since its start are lost: it could never recover warm; start afresh
    }
    boolean byBytes = bytesWritten.getAsLong() - startedAtBytes >= intervalBytes
        && clock.getAsLong() - startedAtNanos >= MIN_INTERVAL_NANOS;
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

  /** Waits for a running copy until the deadline ({@link System#nanoTime}); true if none runs. */
  boolean awaitRunning(long deadlineNanos) {
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
   * yet installed are waited for (a few index operations each), so the copy sees them; if they do not come
   * within {@link Segment#INSTALL_WAIT_NANOS}, nothing starts and this throws (counted as a failure).
   */
  private void begin() {
    if (pending == null) {
      journal.clearOther(); // the slow part of the switch, before the lock that stops appends
      writer.locked(this::beginLocked);
    }
  }

  private void beginLocked() {
    long deadline = System.nanoTime() + Segment.INSTALL_WAIT_NANOS; // the lock stops appends: never hold it for ever
    for (Segment s : table.segments()) {
      s.requireInstalls(deadline); // else nothing started: the next turn tries again
    }
    long[][] active = writer.appendPositions();
    pendingEpoch = journal.epoch() + 1;
    if (journal.overflowed()) {
      coldUntilEpoch = pendingEpoch; // the half being left lost records: only a checkpoint from here on recovers
    }
    pending = new IndexCheckpoint.Start(table.nextSegmentIdPeek(), sequence.get(), active[0], active[1]);
    startedAtBytes = bytesWritten.getAsLong();
    startedAtNanos = clock.getAsLong();
    journal.switchTo(pendingEpoch);
  }

  /** Writes the checkpoint; any Throwable is a counted fault, and the next attempt backs off. */
  private boolean copy(IndexCheckpoint.Start start, long epoch) {
    try {
      IndexCheckpoint.write(file, index, epoch, true, start);
      durableEpoch = epoch; // read by the writer after Future.get/isDone (happens-before)
      counters.checkpoints.increment();
      if (failuresInRow > 0) {
        LOG.info("{}: index checkpoint durable again after {} failed attempts", name, failuresInRow);
        failuresInRow = 0;
      }
      return true;
    } catch (Throwable t) {
      counters.checkpointFailures.increment();
      int n = failuresInRow + 1;
      long backoff = Math.min(MAX_BACKOFF_NANOS, FIRST_BACKOFF_NANOS << Math.min(n - 1, 16));
      retryAtNanos = clock.getAsLong() + backoff;
      failuresInRow = n;
      if (n == 1) {
        LOG.warn("{}: index checkpoint failed ({}); retried in {} s, backing off to {} s while it fails (counted in "
            + "checkpointFailures); until one succeeds a crash recovers from the previous checkpoint and the "
            + "journal, or cold once the journal overflows (nextUncleanOpenCold)", name, t.toString(),
            TimeUnit.NANOSECONDS.toSeconds(backoff), TimeUnit.NANOSECONDS.toSeconds(MAX_BACKOFF_NANOS));
      } else {
        LOG.debug("{}: index checkpoint failed again ({} in a row): {}", name, n, t.toString());
      }
      return false;
    }
  }

  /**
   * True when a crash now would make the next open cold: the journal overflowed (while checkpoints
   * failed, or fell behind) since the start of the durable checkpoint, so the records recovery needs on
   * top of it are lost. False again once a checkpoint begun after the overflow is durable.
   */
  boolean nextUncleanOpenCold() {
    return journal.overflowed() || durableEpoch < coldUntilEpoch;
  }

  /** Stops the checkpoint thread, after waiting for a running copy until the deadline. */
  void stop(long deadlineNanos) {
    awaitRunning(deadlineNanos);
    thread.shutdown();
  }
}
