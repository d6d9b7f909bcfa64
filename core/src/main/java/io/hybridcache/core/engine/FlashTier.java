package io.hybridcache.core.engine;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.device.Device;
import io.hybridcache.core.dram.ByteKey;
import io.hybridcache.core.format.EntryFormat;
import io.hybridcache.core.index.Index;
import io.hybridcache.core.index.IndexEntry;
import io.hybridcache.core.index.IndexFullException;
import io.hybridcache.core.placement.LifetimeClass;
import io.hybridcache.core.placement.Placement;
import io.hybridcache.core.reclaim.Reclaimer;
import io.hybridcache.core.segment.FlashReader;
import io.hybridcache.core.segment.Segment;
import io.hybridcache.core.segment.SegmentTable;
import io.hybridcache.core.segment.SegmentWriter;
import io.hybridcache.core.stats.Counters;
import io.hybridcache.core.stats.WriteTrace;
import io.hybridcache.core.index.HeapIndex;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.nio.channels.FileChannel;
import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
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
 * <p>Faults ({@link FaultGate}): a device error degrades the tier to DRAM-only (lookups miss, writes are dropped and
 * counted) with one warning; after {@code faultRetryInterval} the writer drops index entries of
 * abandoned segments and tries again.
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
  private final long waitNanos; // cascadeWait
  private volatile boolean stopping; // stop() began: evictions no longer wait
  private volatile boolean stalled; // a wait timed out: none waits again until the writer takes a batch
  private boolean abandoned; // writer thread
  private boolean reclaiming; // writer thread
  private volatile java.io.Closeable directoryLock = () -> { }; // set by FlashOpener; released last in close

  private sealed interface Command permits Write, Barrier, Stop, Clear {}

  private record Write(ByteKey key, byte[] value, long sequence, long expiryMillis, LifetimeClass lifetimeClass)
      implements Command {}

  private record Barrier(boolean flush, CompletableFuture<Void> done) implements Command {}

  private record Stop() implements Command {}

  private record Clear(CompletableFuture<Void> done) implements Command {}

  /** A verified flash hit and the index value it was found under. */
  record Hit(EntryFormat.Entry entry, long packed) {}

  FlashTier(CacheConfig config, Device device, Index index, SegmentTable table, SegmentWriter writer,
      Placement placement, WriteTrace trace, Counters counters, AtomicLong sequence) {
    this.config = config;
    this.placement = placement;
    this.trace = trace;
    this.gate = new FaultGate(config.name(), config.faultRetryInterval(), counters);
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

  /** Holds the cache directory's {@link DirectoryLock} until the very end of {@link #close}. */
  void holdUntilClose(java.io.Closeable lock) {
    directoryLock = lock;
  }

  Index index() { return index; }
  SegmentTable table() { return table; }
  Device device() { return device; }
  Placement placement() { return placement; }
  boolean degraded() { return gate.degraded(); }

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
    long packed;
    EntryFormat.Entry e;
    try {
      packed = index.get(hash);
      if (packed == IndexEntry.NONE) {
        return null;
      }
      counters.flashLookups.increment();
      e = reader.read(packed);
    } catch (IOException ex) {
      fail(ex);
      return null;
    } catch (RuntimeException ex) {
      counters.corruptReads.increment(); // a damaged index value or structure: a miss, never a wrong value
      return null;
    }
    if (e == null) {
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
   * compute for the key. Returns true if the index held an entry.
   */
  boolean invalidate(long hash) {
    inflight.remove(hash);
    // After the inflight mark is gone no install can start, and one that finished is visible here;
    // reclaim only ever replaces an existing entry. So a read that finds nothing needs no removal,
    // which keeps puts of keys not on flash off the index's write locks.
    if (index.get(hash) == IndexEntry.NONE) {
      return false;
    }
    long old = index.remove(hash);
    if (old != IndexEntry.NONE) {
      addGarbage(old);
      return true;
    }
    return false;
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

  /** Queues a write, waiting for room (close only). */
  void put(ByteKey key, byte[] value, long seq, long expiryMillis, LifetimeClass c) throws InterruptedException {
    inflight.put(key.hash64(), seq);
    queue.put(new Write(key, value, seq, expiryMillis, c));
  }

  /** Waits until every write queued before it is installed; with {@code flush}, also on the device. */
  void barrier(boolean flush) {
    await(new Barrier(flush, new CompletableFuture<>()));
  }

  /** Drops every flash entry. */
  void clear() {
    inflight.clear();
    Clear c = new Clear(new CompletableFuture<>());
    try {
      queue.put(c);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    c.done().join();
  }

  /** Stops the writer after it drained the queue and flushed every buffer. */
  void stop() {
    if (!thread.isAlive()) {
      return;
    }
    barrier(true);
    stopping = true; // nothing drains the queue after Stop: waiting evictions give up
    try {
      queue.put(new Stop());
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    writer.close();
  }

  /**
   * Stops the writer, persists index and segment table and, if nothing failed, writes the
   * clean-shutdown marker that makes the next open warm; then releases the directory lock.
   */
  void close() {
    try {
      persistAndClose();
    } finally {
      closeQuietly(directoryLock); // last: this tier touches the directory no more
    }
  }

  private void persistAndClose() {
    stop();
    boolean ok = !gate.degraded();
    try {
      device.sync();
      index.flush();
      if (index instanceof HeapIndex heap) {
        heap.saveTo(FlashOpener.heapIndexFile(config));
      }
      table.save(FlashOpener.metaFile(config), sequence.get());
    } catch (IOException | RuntimeException e) {
      ok = false;
      LOG.warn("{}: could not persist the flash tier at close ({}); the next open recovers", config.name(),
          e.toString());
    }
    closeQuietly(index);
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

  private void await(Barrier b) {
    if (!thread.isAlive()) {
      return;
    }
    try {
      queue.put(b);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    b.done().join();
  }

  void addGarbage(long packed) {
    Segment s = table.get(IndexEntry.segmentId(packed));
    if (s != null) {
      s.addGarbage(IndexEntry.sizeBytes(packed));
      placement.invalidated(s, IndexEntry.sizeBytes(packed));
    }
  }

  /** Records a device error: the tier degrades to DRAM-only until the retry time. */
  void fail(IOException e) {
    gate.fail(e);
  }

  // ---- writer thread ----

  private void run() {
    List<Command> batch = new ArrayList<>(BATCH);
    while (true) {
      Command first;
      try {
        first = queue.poll(IDLE_FLUSH_MILLIS, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        return;
      }
      if (first == null) {
        if (!gate.degraded() && writer.hasUnflushed()) {
          io(writer::flushAll);
        }
        continue;
      }
      if (stalled) {
        stalled = false; // progress: evictions may wait again
      }
      batch.add(first);
      queue.drainTo(batch, BATCH - 1); // one lock hand-off for many commands
      for (Command c : batch) {
        if (!execute(c)) {
          return;
        }
      }
      batch.clear();
    }
  }

  /** Runs one command; false after {@link Stop}. */
  private boolean execute(Command c) {
    try {
      if (c instanceof Stop) {
        return false;
      } else if (c instanceof Barrier b) {
        if (b.flush() && !gate.degraded()) {
          io(() -> {
            writer.flushAll();
            device.sync();
          });
        }
        b.done().complete(null);
      } else if (c instanceof Clear cl) {
        clearLocked();
        cl.done().complete(null);
      } else {
        write((Write) c);
      }
    } catch (RuntimeException e) {
      LOG.error("{}: unexpected error on the flash writer; the command was dropped", config.name(), e);
      if (c instanceof Barrier b) {
        b.done().complete(null);
      } else if (c instanceof Clear cl) {
        cl.done().complete(null);
      }
    }
    return true;
  }

  private void write(Write w) {
    long hash = w.key().hash64();
    if (gate.degraded() && !tryRecoverLocked()) {
      inflight.remove(hash, w.sequence());
      counters.degradedRejected.increment();
      return;
    }
    Long pending = inflight.get(hash);
    if (pending == null || pending != w.sequence()) {
      return; // superseded by a newer put or a remove: don't spend flash on it
    }
    long packed;
    try {
      packed = writer.append(w.lifetimeClass(), hash, w.key().bytes(), w.value(), w.expiryMillis(), w.sequence());
    } catch (IOException e) {
      fail(e);
      inflight.remove(hash, w.sequence());
      abandonLocked();
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
          addGarbage(packed);
          counters.degradedRejected.increment();
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
      try {
        while (table.freeSlots() <= config.reclaimFreeSegments()) {
          Segment victim = reclaimer.chooseVictim();
          if (victim == null) {
            break;
          }
          reclaimer.reclaim(victim);
          placement.reclaimed(victim);
        }
      } catch (IOException e) {
        fail(e);
      } finally {
        reclaiming = false;
      }
    }
    return table.takeFreeSlot();
  }

  private void abandonLocked() {
    if (!abandoned) {
      abandoned = true;
      writer.abandonAll();
    }
  }

  /** After the retry interval: forget entries of abandoned segments and take writes again. */
  private boolean tryRecoverLocked() {
    if (!gate.retryDue()) {
      return false;
    }
    abandonLocked();
    long[] dropped = {0};
    index.forEach((hash, packed) -> {
      if (table.get(IndexEntry.segmentId(packed)) == null && index.remove(hash, packed)) {
        dropped[0]++;
      }
    });
    abandoned = false;
    gate.reopen(dropped[0]);
    return true;
  }

  private void clearLocked() {
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

  private void io(IoAction a) {
    try {
      a.run();
    } catch (IOException e) {
      fail(e);
      abandonLocked();
    }
  }
}
