package io.hybridcache.core.engine;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.LifetimeClass;
import io.hybridcache.core.device.Device;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The flash tier: index + segments + one writer thread fed by a bounded queue of DRAM evictions.
 *
 * <p>Thread-safe. Concurrency: lookups run on caller threads, lock-free down to the index and device.
 * Everything that writes segments (appends, flushes, sealing, reclaim) runs on the single writer
 * thread "hybridcache-writer-NAME", so segments need no locks. Writes are {@link BlockingQueue#offer
 * offered}; a full queue is a counted rejection, at once by default, or after waiting up to
 * {@link CacheConfig#cascadeWait()} for room (back-pressure, below).
 *
 * <p>Ordering of a key's versions: {@code inflight} maps a key hash to the sequence number of the one
 * write for it that may still be installed. The writer installs an appended entry in the index only
 * inside {@code inflight.compute} and only if its sequence is still there; {@link #invalidate} (called
 * by the engine inside the DRAM tier's atomic compute for the key) removes the inflight mark and then
 * the index entry. So an older version written late is never installed over a newer one, and reclaim's
 * reinsertion loses every race through its index compare-and-set.
 *
 * <p>Faults ({@link FaultGate}) cost the least they can. A read error costs its segment: the segment is
 * marked damaged (its reads miss at once) and the writer drops it (its index entries and its slot),
 * counted. A write error costs the active segments (abandoned, their entries miss). An interrupted
 * reader costs only its own lookup. Only errors that persist ({@code faultThreshold} within
 * {@code faultWindow}) or a fault of the writer itself (any Throwable from one command: the command is
 * dropped, its barrier completed, the thread lives on) degrade the tier to DRAM-only (lookups miss,
 * writes are dropped and counted). From {@code faultRetryInterval} on, the writer's loop, busy or
 * idle, recovers: it keeps every sealed segment whose header still reads, drops the rest and the
 * index entries of lost segments, and takes writes again. A bulk invalidation that cannot scan the
 * tier ({@link #dropAll}) empties the index instead of leaving keys behind.
 *
 * <p>Close is bounded: {@link #stop} waits for the writer at most until the caller's deadline; a writer
 * that hangs (a device that never answers) is left behind, and then the index is not closed under it
 * and no clean marker is written.
 *
 * <p>Back-pressure ({@code cascadeWait} > 0): {@link #offer} then waits for room in the full queue, in
 * slices of {@value #WAIT_SLICE_MILLIS} ms, on the thread whose DRAM write caused the eviction. That
 * thread holds Caffeine's eviction lock and the map-bin lock of the evicted key (the eviction listener
 * runs inside Caffeine's removal of the victim), and nothing of ours: the inflight mark is put before
 * the wait, not inside a compute, and no index lock is held. Waiting cannot deadlock because the only
 * thread it waits for, the writer, and the flusher the writer waits for, never touch the DRAM tier and
 * never wait for a caller thread: they use the queue's take side, {@code inflight}, the index, the
 * segment table and the device, whose locks callers only hold briefly and never across a wait.
 * <b>Restriction:</b> keep it so. Nothing on the writer or flusher thread may call into the DRAM tier
 * (not even a stats snapshot: Caffeine's {@code weightedSize} takes the eviction lock) or wait for a
 * caller. While an eviction waits, other threads' DRAM writes may block on the eviction lock (that is
 * the throttling) and so do writes of keys in the victim's hash bin, {@code stats()} and
 * {@code hottestKeys}; DRAM reads do not block. Faults: while degraded, evictions are dropped before the
 * queue and the writer drops queued writes without I/O, so waiters get room at memory speed; a writer
 * that makes no progress (a hung device) costs one wait, not one per eviction: a wait that times out
 * marks the writer stalled, and evictions then reject at once until the writer takes its next batch.
 * Close: {@link #stop} sets {@code stopping} before it queues {@link Stop}; a wait checks it between
 * slices and gives up, so no wait outlives the writer by more than a slice and close (whose final
 * snapshot needs the eviction lock) does not hang. A write that enters the queue behind Stop is lost
 * uncounted, as without waiting. An interrupted wait restores the interrupt flag and is a rejection.
 */
final class FlashTier {
  private static final Logger LOG = LoggerFactory.getLogger(FlashTier.class);
  private static final long IDLE_FLUSH_MILLIS = 200;
  private static final int BATCH = 256;
  private static final long WAIT_SLICE_MILLIS = 10;
  private static final long WAIT_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(WAIT_SLICE_MILLIS);

  private final CacheConfig config;
  private final Device device;
  private final Index index;
  private final SegmentTable table;
  private final SegmentWriter writer;
  private final Placement placement;
  private final FlashReader reader;
  private final Reclaimer reclaimer;
  private final Counters counters;
  private final WriteTrace trace;
  private final AtomicLong sequence;
  private final BlockingQueue<Command> queue;
  private final ConcurrentHashMap<Long, Long> inflight = new ConcurrentHashMap<>();
  private final Thread thread;
  private final FaultGate gate;
  private final SequenceLease lease; // writer thread
  private final ConcurrentLinkedQueue<Segment> damaged = new ConcurrentLinkedQueue<>();
  private volatile boolean dropRequested; // dropAll: the writer releases every segment
  private boolean indexFull; // writer thread: the index refused a new key; checked before writing
  private long indexFullAt; // writer thread: index size when it refused
  private final long waitNanos; // cascadeWait
  private volatile boolean stopping; // stop() began: evictions no longer wait
  private volatile boolean stalled; // a wait timed out: none waits again until the writer takes a batch
  private boolean reclaiming; // writer thread
  private volatile java.io.Closeable directoryLock = () -> { }; // set by FlashOpener; released last in close
  private volatile Checkpointer checkpointer; // compact index with durability PROCESS or POWER, else null
  private volatile InvalidationJournal journal; // the checkpointer's journal, or null

  private sealed interface Command permits Write, Barrier, Stop {}

  private record Write(ByteKey key, byte[] value, long sequence, long expiryMillis, LifetimeClass lifetimeClass)
      implements Command {}

  private record Barrier(boolean flush, CompletableFuture<Boolean> done) implements Command {}

  private record Stop() implements Command {}


  /**
   * Where {@code hash}'s entry is (its packed index value: segment tag, then offset, in the high bits;
   * compare unsigned to order reads by address), or 0 if flash holds none.
   */
  long address(long hash) {
    return gate.degraded() ? IndexEntry.NONE : index.get(hash);
  }

  /** Told of each live entry flash reclaim drops (on the writer thread); null for none. */
  void onReclaimEvicted(java.util.function.Consumer<EntryFormat.Entry> listener) {
    reclaimer.onEvicted(listener);
  }

  /** A verified flash hit and the index value it was found under. */
  record Hit(EntryFormat.Entry entry, long packed) {}

  FlashTier(CacheConfig config, Device device, Index index, SegmentTable table, SegmentWriter writer,
      Placement placement, WriteTrace trace, Counters counters, AtomicLong sequence, SequenceLease lease) {
    this.config = config;
    this.placement = placement;
    this.trace = trace;
    this.lease = lease;
    this.gate = new FaultGate(config.name(), config.faultRetryInterval(), config.faultThreshold(),
        config.faultWindow(), counters);
    this.waitNanos = config.cascadeWait().toNanos();
    this.device = device;
    this.index = index;
    this.table = table;
    this.writer = writer;
    this.counters = counters;
    this.sequence = sequence;
    this.reader = new FlashReader(device, table, counters);
    this.reclaimer = new Reclaimer(device, table, index, writer, counters, config.victimPolicy(),
        config.reinsertAllBelowLiveRatio(), config.flashBytes(), config.trimReclaimed(), sequence::get, System::currentTimeMillis);
    this.queue = new LinkedBlockingQueue<>(config.cascadeQueueEntries());
    writer.slotSource(this::freeSlot);
    this.thread = new Thread(this::run, "hybridcache-writer-" + config.name());
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /**
   * Makes the compact index crash-consistent (before {@link #start}): invalidations go to the
   * checkpointer's journal, and the writer starts its checkpoints. Reclaim journals each victim before it
   * unlinks any entry.
   */
  void checkpoints(Checkpointer c) {
    checkpointer = c;
    journal = c.journal();
    reclaimer.onVictim(c.journal()::segmentDropped);
  }

  /** Holds the cache directory's {@link DirectoryLock} until the very end of {@link #close}. */
  void holdUntilClose(java.io.Closeable lock) {
    directoryLock = lock;
  }

  Index index() { return index; }
  SegmentTable table() { return table; }
  Device device() { return device; }
  Placement placement() { return placement; }
  boolean degraded() { return gate.degraded(); }
  String lastFault() { return gate.lastFault(); }
  /** Whether the writer thread runs (tests: it must survive any fault). */
  boolean writerAlive() { return thread.isAlive(); }

  /** False while degraded and before the retry time: evictions are then dropped without queueing. */
  boolean acceptsWrites() {
    return gate.acceptsWrites();
  }

  // ---- caller threads ----

  /** The verified entry for {@code key}, or null; marks it accessed for reclaim. */
  Hit lookup(long hash, byte[] key) {
    if (gate.degraded()) {
      return null;
    }
    long packed = IndexEntry.NONE;
    EntryFormat.Entry e;
    try {
      packed = index.get(hash);
      if (packed == IndexEntry.NONE) {
        return null;
      }
      counters.flashLookups.increment();
      e = reader.read(packed);
    } catch (ClosedByInterruptException ex) {
      counters.interruptedReads.increment(); // this caller's interrupt (its flag stays set): its miss only
      return null;
    } catch (IOException ex) {
      readFailed(packed, ex);
      return null;
    } catch (RuntimeException ex) {
      counters.corruptReads.increment(); // a damaged index value or structure: a miss, never a wrong value
      return null;
    }
    if (e == null) {
      Segment s = table.byTag(IndexEntry.segmentTag(packed));
      if (s != null && s.damaged()) {
        return null; // the writer drops the damaged segment's entries, counted
      }
      if (index.remove(hash, packed)) { // stale or corrupt: unlink exactly this entry
        addGarbage(packed); // (a no-op when its segment is gone)
      }
      return null;
    }
    if (!Arrays.equals(e.key(), key)) {
      return null; // another key with the same 64-bit hash
    }
    if (e.expired(System.currentTimeMillis())) {
      if (index.remove(hash, packed)) {
        addGarbage(packed);
      }
      return null;
    }
    if (!IndexEntry.accessed(packed)) {
      index.replace(hash, packed, IndexEntry.withAccessed(packed));
    }
    return new Hit(e, packed);
  }

  /** True if the index still points at the entry {@code packed} names (ignoring the accessed bit). */
  boolean stillAt(long hash, long packed) {
    return IndexEntry.location(index.get(hash)) == IndexEntry.location(packed);
  }

  /**
   * Unlinks any flash version of the key and cancels a queued write of it. Call inside the DRAM tier's
   * compute for the key, with the sequence of the put or remove doing it (drawn inside that compute).
   * Returns true if the index held an entry. With a journal, an invalidation that could leave an older
   * version on flash (the key was indexed, or a write of it was queued) is journaled after the index
   * entry is gone and before this returns ({@link InvalidationJournal}'s ordering argument needs both).
   */
  boolean invalidate(long hash, long seq) {
    boolean queued = inflight.remove(hash) != null;
    // After the inflight mark is gone no install can start, and one that finished is visible here;
    // reclaim only ever replaces an existing entry. So a read that finds nothing needs no removal,
    // which keeps puts of keys not on flash off the index's write locks.
    boolean held = false;
    if (index.get(hash) != IndexEntry.NONE) {
      long old = index.remove(hash);
      if (old != IndexEntry.NONE) {
        addGarbage(old);
        held = true;
      }
    }
    InvalidationJournal j = journal;
    if (j != null && (queued || held)) {
      j.invalidated(hash, seq);
    }
    return held;
  }

  /**
   * Queues a write; false if the queue is full and, with a {@code cascadeWait}, stays full that long
   * (or the wait is interrupted: the flag is restored). Never throws; runs inside Caffeine's eviction.
   */
  boolean offer(ByteKey key, byte[] value, long seq, long expiryMillis, LifetimeClass c) {
    Write w = new Write(key, value, seq, expiryMillis, c);
    inflight.put(key.hash64(), seq);
    if (queue.offer(w) || waitNanos > 0 && awaitRoom(w)) {
      return true;
    }
    inflight.remove(key.hash64(), seq); // only our own mark: a newer one stays
    return false;
  }

  /** Waits up to {@code cascadeWait} for room for {@code w}; see the class comment. */
  private boolean awaitRoom(Write w) {
    if (stopping || stalled) {
      return false;
    }
    counters.cascadeWaits.increment();
    long deadline = System.nanoTime() + waitNanos;
    try {
      for (long left = waitNanos; left > 0; left = deadline - System.nanoTime()) {
        if (stopping) {
          return false;
        }
        if (queue.offer(w, Math.min(left, WAIT_SLICE_NANOS), TimeUnit.NANOSECONDS)) {
          return true;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    stalled = true;
    return false;
  }

  /**
   * Queues a write, waiting for room until {@code deadlineNanos} (write-back at close); false if the
   * queue stayed full (a writer that does not progress) or the wait was interrupted (flag restored).
   */
  boolean put(ByteKey key, byte[] value, long seq, long expiryMillis, LifetimeClass c, long deadlineNanos) {
    inflight.put(key.hash64(), seq);
    try {
      if (queue.offer(new Write(key, value, seq, expiryMillis, c), Math.max(0, deadlineNanos - System.nanoTime()),
          TimeUnit.NANOSECONDS)) {
        return true;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    inflight.remove(key.hash64(), seq);
    return false;
  }

  /**
   * Waits until every write queued before it is installed; with {@code flush}, also on the device.
   * Returns false if that did not happen by {@code deadlineNanos}, or the flush was skipped or failed.
   */
  boolean barrier(boolean flush, long deadlineNanos) {
    return await(new Barrier(flush, new CompletableFuture<>()), deadlineNanos);
  }

  /** Drops every flash entry (waiting for the writer at most until {@code deadlineNanos}). */
  void clear(long deadlineNanos) {
    forgetAll();
    barrier(false, deadlineNanos); // the writer releases the segments first (maintain), then completes it
  }

  /**
   * A bulk invalidation could not see every flash key ({@code reason}): rather than leave some behind,
   * forget every flash entry now. Any thread; never blocks. Queued writes are cancelled (their inflight
   * marks go), so none installs afterwards; the writer releases the segments on its next turn.
   */
  void dropAll(String reason) {
    forgetAll();
    counters.flashIndexDrops.increment();
    LOG.warn("{}: dropped the whole flash index: {}", config.name(), reason);
  }

  /**
   * Empties the index at once (lookups miss from here on, even if the writer is slow) and cancels queued
   * writes; the writer releases every segment at the start of its next turn.
   */
  private void forgetAll() {
    inflight.clear();
    index.clear();
    InvalidationJournal j = journal;
    if (j != null) {
      j.cleared(sequence.incrementAndGet());
    }
    dropRequested = true;
  }

  /** Journals the active segments as dropped, before they are abandoned (their entries must not come back). */
  private void journalActiveDropped() {
    InvalidationJournal j = journal;
    if (j != null) {
      for (long id : writer.appendPositions()[0]) {
        j.segmentDropped(id);
      }
    }
  }

  private void journalDropped(Segment s) {
    InvalidationJournal j = journal;
    if (j != null) {
      j.segmentDropped(s.id());
    }
  }

  /**
   * Stops the writer after it drained the queue and flushed every buffer, waiting at most until
   * {@code deadlineNanos}. Returns true if the writer stopped; false if it is still running (hung),
   * in which case it is left behind (a daemon thread) and {@link #close} keeps the index open under it.
   */
  boolean stop(long deadlineNanos) {
    if (thread.isAlive()) {
      barrier(true, deadlineNanos);
      stopping = true; // nothing drains the queue after Stop: waiting evictions give up
      try {
        if (queue.offer(new Stop(), Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
          TimeUnit.NANOSECONDS.timedJoin(thread, Math.max(1, deadlineNanos - System.nanoTime()));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    stopping = true;
    if (thread.isAlive()) {
      LOG.warn("{}: the flash writer did not stop within the close timeout {}; it is left behind and the "
          + "next open recovers", config.name(), config.closeTimeout());
      return false;
    }
    writer.close();
    return true;
  }

  /**
   * After {@link #stop}: persists index and segment table and, if nothing failed and the writer
   * stopped, writes the clean-shutdown marker that makes the next open warm. Never throws.
   */
  void close(boolean writerStopped) {
    try {
      persistAndClose(writerStopped);
    } finally {
      closeQuietly(directoryLock); // last: this tier touches the directory no more
    }
  }

  private void persistAndClose(boolean writerStopped) {
    boolean ok = writerStopped && !gate.degraded();
    if (ok) {
      try {
        device.sync();
        index.flush();
        if (checkpointer != null) {
          if (!checkpointer.checkpointNow(System.nanoTime() + config.closeTimeout().toNanos())) {
            throw new IOException("the index checkpoint failed");
          }
        } else if (index instanceof HeapIndex heap) { // durability NONE: a snapshot for a clean open only
          long[][] active = writer.appendPositions();
          IndexCheckpoint.write(FlashOpener.checkpointFile(config), heap, 0, false,
              new IndexCheckpoint.Start(table.nextSegmentIdPeek(), sequence.get(), active[0], active[1]));
        }
        table.save(FlashOpener.metaFile(config), sequence.get());
      } catch (IOException | RuntimeException e) {
        ok = false;
        LOG.warn("{}: could not persist the flash tier at close ({}); the next open recovers", config.name(),
            e.toString());
      }
    }
    if (checkpointer != null) {
      checkpointer.stop(writerStopped ? System.nanoTime() + config.closeTimeout().toNanos() : 0);
      closeQuietly(journal);
    }
    if (writerStopped) {
      closeQuietly(index); // never under a live writer: a closed Chronicle map unmaps its memory
    }
    closeQuietly(device);
    if (trace != null) {
      closeQuietly(trace);
    }
    if (ok) {
      try (FileChannel ch = io.hybridcache.core.device.FileModes.create(
          config.directory().resolve(FlashOpener.CLEAN_MARKER), StandardOpenOption.WRITE)) {
        ch.force(true);
      } catch (IOException e) {
        LOG.warn("{}: could not write the clean marker ({})", config.name(), e.toString());
      }
    }
  }

  private static void closeQuietly(java.io.Closeable c) {
    try {
      c.close();
    } catch (IOException | RuntimeException e) {
      LOG.debug("close failed", e);
    }
  }

  /** Queues {@code b} and waits for it until {@code deadlineNanos}; false on a timeout or failure. */
  private boolean await(Barrier b, long deadlineNanos) {
    CompletableFuture<Boolean> done = b.done();
    if (!thread.isAlive()) {
      return false;
    }
    try {
      if (!queue.offer(b, Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        return false;
      }
      return done.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (ExecutionException | TimeoutException e) {
      return false;
    }
  }

  void addGarbage(long packed) {
    Segment s = table.byTag(IndexEntry.segmentTag(packed));
    if (s != null) {
      s.addGarbage(IndexEntry.sizeBytes(packed));
      placement.invalidated(s, IndexEntry.sizeBytes(packed));
    }
  }

  /** A read of the entry {@code packed} failed: the error costs its segment, which the writer drops. */
  private void readFailed(long packed, IOException e) {
    Segment s = packed == IndexEntry.NONE ? null : table.byTag(IndexEntry.segmentTag(packed));
    gate.error(e, s == null ? "flash read" : "read of segment " + s.id() + " in slot " + s.slot());
    if (s != null && s.markDamaged()) {
      damaged.add(s);
    }
  }

  // ---- writer thread ----

  private void run() {
    List<Command> batch = new ArrayList<>(BATCH);
    while (true) {
      try {
        if (!turn(batch)) {
          return;
        }
      } catch (Throwable t) { // never a dead writer: the fault is counted and the tier degraded
        gate.fault(t, "flash writer loop");
        for (Command c : batch) {
          finish(c, false);
        }
      }
      batch.clear();
    }
  }

  /**
   * One turn of the writer: the next batch of commands (or an idle flush), after the fault work; so a
   * barrier completes only after every fault reported before it was queued has been handled.
   */
  private boolean turn(List<Command> batch) {
    Command first;
    try {
      first = queue.poll(IDLE_FLUSH_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      return !stopping; // nobody but close has business interrupting the writer
    }
    maintain();
    startCheckpointIfDue();
    if (first == null) {
      if (!gate.degraded() && writer.hasUnflushed()) {
        io(writer::flushAll);
      }
      return true;
    }
    if (stalled) {
      stalled = false; // progress: evictions may wait again
    }
    batch.add(first);
    queue.drainTo(batch, BATCH - 1); // one lock hand-off for many commands
    for (int i = 0; i < batch.size(); i++) {
      if (!execute(batch.get(i))) {
        return false;
      }
    }
    return true;
  }

  /** Between two commands: starts an index checkpoint if one is due; a failure is counted, never thrown. */
  private void startCheckpointIfDue() {
    Checkpointer c = checkpointer;
    if (c != null && !gate.degraded()) {
      try {
        c.maybeStart();
      } catch (Throwable t) {
        counters.checkpointFailures.increment();
        LOG.warn("{}: could not start an index checkpoint: {}", config.name(), t.toString());
      }
    }
  }

  /** Fault work on the writer's every turn: drops damaged segments and requested drops, recovers. */
  private void maintain() {
    if (dropRequested) {
      dropRequested = false;
      clearLocked();
    }
    if (!damaged.isEmpty()) {
      dropDamagedLocked();
    }
    if (gate.degraded() && gate.retryDue()) {
      recoverLocked();
    }
  }

  /** Runs one command; false after {@link Stop}. Any Throwable is a fault; a barrier still completes. */
  private boolean execute(Command c) {
    try {
      if (c instanceof Stop) {
        return false;
      } else if (c instanceof Barrier b) {
        boolean flushed = !b.flush();
        if (b.flush() && !gate.degraded()) {
          flushed = io(() -> {
            writer.flushAll();
            device.sync();
          });
        }
        b.done().complete(flushed);
      } else {
        write((Write) c);
      }
    } catch (Throwable t) {
      gate.fault(t, "flash writer, " + c.getClass().getSimpleName());
      finish(c, false);
    }
    return true;
  }

  /** Completes a command that failed or was dropped. */
  private void finish(Command c, boolean ok) {
    if (c instanceof Barrier b) {
      b.done().complete(ok);
    } else if (c instanceof Write w) {
      inflight.remove(w.key().hash64(), w.sequence());
    }
  }

  private void write(Write w) {
    long hash = w.key().hash64();
    if (gate.degraded()) {
      inflight.remove(hash, w.sequence());
      counters.degradedRejected.increment();
      return;
    }
    Long pending = inflight.get(hash);
    if (pending == null || pending != w.sequence()) {
      return; // superseded by a newer put or a remove: don't spend flash on it
    }
    if (indexFull && !indexHasRoomFor(hash)) {
      inflight.remove(hash, w.sequence());
      counters.indexFullRejected.increment();
      return;
    }
    long packed;
    try {
      lease.cover(w.sequence());
      packed = writer.append(w.lifetimeClass(), hash, w.key().bytes(), w.value(), w.expiryMillis(), w.sequence());
    } catch (IOException e) {
      inflight.remove(hash, w.sequence());
      writeFailed(e);
      return;
    }
    if (packed == IndexEntry.NONE) {
      inflight.remove(hash, w.sequence());
      counters.degradedRejected.increment();
      return;
    }
    gate.succeeded();
    install(hash, w.sequence(), packed, EntryFormat.entryBytes(w.key().bytes().length, w.value().length));
  }

  /** After the index refused a key: room again once it shrank a little, or for a key it holds. */
  private boolean indexHasRoomFor(long hash) {
    if (index.size() < indexFullAt - indexFullAt / 64 || index.get(hash) != IndexEntry.NONE) {
      indexFull = index.size() >= indexFullAt - indexFullAt / 64;
      return true;
    }
    return false;
  }

  private void install(long hash, long seq, long packed, int entryBytes) {
    inflight.compute(hash, (h, s) -> {
      if (s != null && s == seq) {
        try {
          long old = index.put(hash, packed);
          if (old != IndexEntry.NONE) {
            addGarbage(old);
          }
          counters.bytesAdmitted.add(entryBytes);
        } catch (IndexFullException e) {
          InvalidationJournal j = journal;
          if (j != null) {
            j.invalidated(hash, seq + 1); // unindexed on flash: a later put of the key may not journal
          }
          addGarbage(packed);
          counters.indexFullRejected.increment();
          indexFull = true;
          indexFullAt = index.size();
        }
        return null;
      }
      addGarbage(packed); // a newer version or a removal won
      return s;
    });
  }

  /** Slot for a new segment: reclaims first when free slots run low (not while reclaiming). */
  private int freeSlot() {
    if (!reclaiming) {
      reclaiming = true;
      Segment victim = null;
      try {
        while (table.freeSlots() <= config.reclaimFreeSegments()) {
          victim = reclaimer.chooseVictim();
          if (victim == null) {
            break;
          }
          reclaimer.reclaim(victim);
          placement.reclaimed(victim);
        }
      } catch (IOException e) {
        // the victim may be unreadable: it costs its segment (dropped on the next turn), not every
        // later reclaim that would choose it again
        gate.error(e, victim == null ? "reclaim" : "reclaim of segment " + victim.id() + " in slot " + victim.slot());
        if (victim != null && victim.markDamaged()) {
          damaged.add(victim);
        }
      } finally {
        reclaiming = false;
      }
    }
    return table.takeFreeSlot();
  }

  /** A device write failed: the active segments are abandoned (their entries miss from now on). */
  private void writeFailed(IOException e) {
    gate.error(e, "flash write");
    journalActiveDropped();
    writer.abandonAll();
  }

  /** Drops every damaged segment: its index entries (one pass for all of them), then its slot. */
  private void dropDamagedLocked() {
    java.util.Map<Long, Segment> byTag = new java.util.HashMap<>();
    for (Segment s; (s = damaged.poll()) != null; ) {
      if (table.get(s.id()) == s) {
        byTag.put(table.tagOf(s.id()), s);
      }
    }
    if (byTag.isEmpty()) {
      return;
    }
    byTag.values().forEach(this::journalDropped);
    long dropped = removeEntriesOf(byTag::containsKey);
    for (Segment s : byTag.values()) {
      if (!writer.abandon(s)) {
        table.release(s);
      }
      counters.segmentsDropped.increment();
      LOG.warn("{}: dropped damaged segment {} (slot {}) after a read error", config.name(), s.id(), s.slot());
    }
    counters.entriesDropped.add(dropped);
  }

  /** Removes every index entry whose segment tag {@code doomed} accepts; returns how many. */
  private long removeEntriesOf(java.util.function.LongPredicate doomed) {
    long[] dropped = {0};
    index.forEach((hash, packed) -> {
      if (doomed.test(IndexEntry.segmentTag(packed)) && index.remove(hash, packed)) {
        dropped[0]++;
      }
    });
    return dropped[0];
  }

  /**
   * After the retry interval: abandons the active segments, keeps every sealed segment whose header
   * page still reads as its own, drops the others and the index entries of every lost segment, and
   * takes writes again.
   */
  private void recoverLocked() {
    journalActiveDropped();
    writer.abandonAll();
    ByteBuffer page = Device.allocateAligned(Device.ALIGNMENT);
    for (Segment s : table.segments().toArray(new Segment[0])) {
      if (s.state() == Segment.State.ACTIVE) {
        continue; // none left after abandonAll
      }
      boolean readable;
      try {
        SegmentHeader.Decoded h = SegmentHeader.read(device, s.slot(), page);
        readable = h != null && h.segmentId() == (s.id() & 0xFFFF_FFFFL) && !s.damaged();
      } catch (IOException | RuntimeException e) {
        readable = false;
      }
      if (!readable) {
        journalDropped(s);
        table.release(s);
        counters.segmentsDropped.increment();
      }
    }
    damaged.clear();
    long dropped = removeEntriesOf(tag -> table.byTag(tag) == null);
    counters.entriesDropped.add(dropped);
    gate.reopen(dropped);
  }

  private void clearLocked() {
    journalActiveDropped();
    writer.abandonAll();
    index.clear();
    for (Segment s : table.segments().toArray(new Segment[0])) {
      if (s.state() != Segment.State.ACTIVE) {
        table.release(s);
        writer.recordTrim(s.slot());
        try {
          device.discard(s.slot());
        } catch (IOException e) {
          // trimming is advice
        }
      }
    }
  }

  private interface IoAction {
    void run() throws IOException;
  }

  /** Runs a device action; a failure is a write error. Returns true if it succeeded. */
  private boolean io(IoAction a) {
    try {
      a.run();
      return true;
    } catch (IOException e) {
      writeFailed(e);
      return false;
    }
  }
}
