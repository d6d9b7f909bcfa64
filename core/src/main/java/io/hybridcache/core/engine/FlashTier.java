package io.hybridcache.core.engine;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.LifetimeClass;
import io.hybridcache.core.device.Device;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The flash tier: index + segments, written by the threads whose DRAM evictions cascade to it, with one
 * maintenance thread for reclaim, faults, checkpoints and barriers (CacheLib navy's BlockCache: the
 * inserting thread writes into the open region's buffer; region reclaim runs on its own thread).
 *
 * <p>Thread-safe. Concurrency: lookups run on caller threads, lock-free down to the index and device.
 * A dirty eviction is written by the evicting thread itself ({@link #write}): it appends the entry to
 * its class's write buffer under the {@link SegmentWriter}'s short lock (full buffers go to the flusher
 * thread, several in flight) and then installs it in the index. Reclaim, dropping damaged segments,
 * recovery, idle flushes, checkpoints and barriers run on the maintenance thread
 * "hybridcache-writer-NAME", fed by a queue of commands (barriers, reclaim requests), never by entries.
 *
 * <p>Ordering of a key's versions, without an in-flight map: the engine calls {@link #write} inside
 * Caffeine's atomic removal of the evicted key, and {@link #invalidate} inside the DRAM tier's
 * {@code compute} for the key; both hold that key's map-bin lock. So a put or remove of the key cannot
 * run between an eviction's append and its index install, and an install always carries the newest
 * version (DRAM held it). Reclaim's reinsertion only ever replaces an entry with a compare-and-set on its
 * index slot, so every caller update wins. An entry appended but not yet installed is counted on its
 * segment ({@link Segment#appended}); reclaim waits for those before it decides what in a victim lives.
 *
 * <p>Faults ({@link FaultGate}) cost the least they can. A read error costs its segment: the segment is
 * marked damaged (its reads miss at once) and the maintenance thread drops it (its index entries and its
 * slot), counted. A write error (reported by the flusher) costs the segment written, the same way. An
 * interrupted reader costs only its own lookup. A fault in reclaim (any Throwable) costs its victim, dropped
 * the same way, counted as a writer fault. Only errors that persist ({@code faultThreshold} within
 * {@code faultWindow}) or another fault of the maintenance thread itself (any Throwable from its fault
 * work or one command: that work or command is dropped, every barrier it had taken completed, a stop
 * still stops, the thread lives on) degrade the tier to DRAM-only (lookups miss, evictions are dropped
 * and counted). From {@code faultRetryInterval} on, the maintenance loop,
 * busy or idle, recovers: it keeps every sealed segment whose header still reads, drops the rest and the
 * index entries of lost segments, and takes writes again. A bulk invalidation that cannot scan the tier
 * ({@link #dropAll}) empties the index instead of leaving keys behind.
 *
 * <p>Back-pressure is explicit and bounded. An eviction that finds no free write buffer waits for
 * the flusher, and one that finds no free segment slot asks the maintenance thread to reclaim and
 * waits for it, both up to {@link CacheConfig#cascadeWait()} (zero: not at all), then is refused
 * and counted ({@code queueRejected}). An eviction on a reading thread (Caffeine evicts on any
 * thread that touches it) waits for a write buffer at most {@value #READER_WAIT_MILLIS} ms, one
 * device write, and never for reclaim (it may take the slot otherwise kept for reclaim's
 * reinsertion instead). Reclaim keeps {@code reclaimFreeSegments} slots free, one of them reserved
 * for its own reinsertion. The wait runs on the thread whose DRAM write caused the eviction,
 * holding Caffeine's eviction lock and the victim's map-bin lock, and nothing of ours (the writer's
 * lock is given up before a slot wait). It cannot deadlock because the threads it waits for, the
 * flusher and the maintenance thread, never touch the DRAM tier and never wait for a caller thread.
 * <b>Restriction:</b> keep it so. Nothing on those threads may call into the DRAM tier (not even a
 * stats snapshot: Caffeine's {@code weightedSize} takes the eviction lock) or wait for a caller. A
 * wait that times out marks the tier stalled: evictions are then refused at once until a device
 * write completes or reclaim frees a slot, so a hung device costs one wait, not one per eviction.
 * Close: {@link #stop} sets {@code stopping}; no wait outlives it by more than a slice. An
 * interrupted wait restores the flag and is a refusal.
 *
 * <p>Close is bounded: {@link #stop} waits for the maintenance thread at most until the caller's
 * deadline, and {@link #close} persists and closes on a thread of its own, waited for until the same
 * deadline. What does not finish in time goes on behind the caller: a writer that hangs (a device that
 * never answers) is left running, no file is closed under it, no clean marker is written, and the
 * directory lock is released only after every thread of this tier that can write has ended, so a reopen
 * in this process is refused until then (never a second cache writing beside the first).
 */
final class FlashTier {
  private static final Logger LOG = LoggerFactory.getLogger(FlashTier.class);
  private static final long IDLE_FLUSH_MILLIS = 200;
  private static final int BATCH = 256;
  private static final long WAIT_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  /** Slots only the maintenance thread may take: reclaim's reinsertion must always find one. */
  private static final int RECLAIM_RESERVE_SLOTS = 1;
  private static final int STALL_REPORT_SECONDS = StallReports.SECONDS;
  /** Longest wait of an eviction on a reading thread, for a write buffer only (one device write). */
  static final long READER_WAIT_MILLIS = 5;
  static final long READER_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(READER_WAIT_MILLIS);
  /** A deadline that never comes (and never overflows): close's own thread waits for a hung writer. */
  private static final long FOREVER_NANOS = Long.MAX_VALUE / 4;

  private final CacheConfig config;
  private final Device device;
  private final Index index;
  private final SegmentTable table;
  private final SegmentWriter writer;
  private final Placement placement;
  private final FlashReader reader;
  private final ReadBuffers readBuffers; // the lookups' device reads land here: bounded, shared by all threads
  private final Reclaimer reclaimer;
  private final Counters counters;
  private final WriteTrace trace;
  private final AtomicLong sequence;
  private final BlockingQueue<Command> queue = new LinkedBlockingQueue<>();
  private final Room room = new Room();
  private final AtomicBoolean reclaimRequested = new AtomicBoolean();
  private final Thread thread;
  private final FaultGate gate;
  private final SequenceLease lease; // every writing thread
  private final ConcurrentLinkedQueue<Segment> damaged = new ConcurrentLinkedQueue<>();
  private volatile java.util.function.LongConsumer afterAppend; // tests: a point between append and install
  private volatile Runnable beforeDropAll; // tests: the maintenance thread, before it releases every segment
  private volatile boolean dropRequested; // dropAll: the writer releases every segment
  private volatile boolean indexFull; // the index refused a new key; checked before writing
  private volatile long indexFullAt; // index size when it refused
  private final long waitNanos; // cascadeWait
  private volatile boolean stopping; // stop() began: evictions no longer wait
  private volatile boolean stalled; // a wait timed out: none waits again until a write or reclaim moves
  private volatile long lastWrittenNanos = System.nanoTime(); // when the flusher last completed a device write
  private volatile long lastReclaimedNanos = System.nanoTime(); // when reclaim last freed a slot
  private final StallReports stallReports = new StallReports();
  private volatile java.io.Closeable directoryLock = () -> { }; // set by FlashOpener; released last in close
  private volatile Thread closer; // close's thread: it outlives a timed-out close, holding the lock
  private volatile Checkpointer checkpointer; // compact index with durability PROCESS or POWER, else null
  private volatile InvalidationJournal journal; // the checkpointer's journal, or null
  private final GroupBytes groups; // per key group bytes and caps (CacheConfig.keyGroups), or null

  private sealed interface Command permits Reclaim, ReclaimFor, Barrier, Stop {}

  private record Reclaim() implements Command {}

  /**
   * A reclaim of the segment holding most of {@code group}'s bytes: an entry of {@code bytes} was refused, the
   * group is at its flash cap.
   */
  private record ReclaimFor(long group, long bytes) implements Command {}

  private record Barrier(boolean flush, boolean checkpoint, CompletableFuture<Boolean> done) implements Command {}

  private record Stop() implements Command {}

  /**
   * Where {@code hash}'s entry is (its packed index value: segment tag, then offset, in the high bits;
   * compare unsigned to order reads by address), or 0 if flash holds none.
   */
  long address(long hash) {
    return gate.degraded() ? IndexEntry.NONE : index.get(hash);
  }

  /** Told of each live entry flash reclaim drops (on the maintenance thread); null for none. */
  void onReclaimEvicted(java.util.function.Consumer<EntryFormat.Entry> listener) {
    reclaimer.onEvicted(listener);
  }

  /** Told of the key (or its summary's first bytes) of each live entry flash reclaim drops; null for none. */
  void onReclaimEvictedKey(java.util.function.Consumer<byte[]> hook) {
    reclaimer.onEvictedKey(hook);
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
    this.readBuffers = new ReadBuffers(config.readBuffers(), config.maxFlashEntryBytes());
    this.reader = new FlashReader(device, table, counters, readBuffers);
    writer.summaryKeyBytes(config.evictionKeyBytes());
    this.groups = config.keyGroups() == null ? null : new GroupBytes(config.keyGroups());
    if (groups != null) {
      groups.rebuild(device, table, index); // before the writer appends: a warm open's live entries, per group
      writer.groups(groups);
    }
    this.reclaimer = new Reclaimer(device, table, index, writer, counters, config.victimPolicy(),
        config.reinsertAllBelowLiveRatio(), config.reinsertionBudget(), config.logFlashBytes(), config.trimReclaimed(),
        sequence::get, System::currentTimeMillis);
    reclaimer.groups(groups);
    writer.slotSource(new SegmentWriter.SlotSource() {
      @Override
      public int freeSlot() {
        return FlashTier.this.freeSlot(false);
      }

      @Override
      public int freeSlot(boolean mayTakeReserve) {
        return FlashTier.this.freeSlot(mayTakeReserve);
      }
    });
    writer.onFlushEvents(new SegmentWriter.FlushEvents() {
      @Override
      public void written() {
        lastWrittenNanos = System.nanoTime();
        gate.succeeded();
        if (stalled) {
          stalled = false; // progress: evictions may wait again
        }
      }

      @Override
      public void failed(Segment s, IOException e) {
        writeFailed(s, e);
      }

      @Override
      public void fault(Segment s, Throwable t) { // not an I/O error: the flusher's own fault degrades
        gate.fault(t, "flusher, write of segment " + s.id() + " in slot " + s.slot());
        if (s.markDamaged()) {
          damaged.add(s);
        }
      }
    });
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
  /** The per key group counts, or null without key groups. */
  GroupBytes groups() { return groups; }
  SegmentTable table() { return table; }
  Device device() { return device; }
  Placement placement() { return placement; }
  boolean degraded() { return gate.degraded(); }
  String lastFault() { return gate.lastFault(); }

  /** True when a crash now would make the next open cold (see {@link Checkpointer#nextUncleanOpenCold}). */
  boolean nextUncleanOpenCold() {
    Checkpointer c = checkpointer;
    return c != null ? c.nextUncleanOpenCold() : index instanceof HeapIndex; // compact, durability NONE: no checkpoints
  }
  /** Tests: called with the key hash on the writing thread after each append, before its install. */
  void afterAppend(java.util.function.LongConsumer hook) { afterAppend = hook; }
  /** Tests: run on the maintenance thread when it handles a clear or drop, before it releases segments. */
  void beforeDropAll(Runnable hook) { beforeDropAll = hook; }
  /** Direct memory the lookups' read buffers hold now (at most {@link ReadBuffers#boundBytes}). */
  long readBufferMemory() { return readBuffers.retainedBytes(); }
  /** Direct memory the write buffers of all lifetime classes hold now (at most {@link SegmentWriter#boundBytes}). */
  long writeBufferMemory() { return writer.bufferMemory(); }
  /** Whether the maintenance thread runs (tests: it must survive any fault). */
  boolean writerAlive() { return thread.isAlive(); }

  /** Waits until close has closed every file and released the directory lock; false on a timeout. */
  boolean awaitClosed(long timeout, TimeUnit unit) {
    Thread t = closer;
    try {
      if (t != null) {
        unit.timedJoin(t, timeout);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return t != null && !t.isAlive();
  }

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
    } catch (IOException | RuntimeException | OutOfMemoryError ex) {
      readMissed(packed, ex);
      return null;
    }
    if (e == null) {
      Segment s = table.byTag(IndexEntry.segmentTag(packed));
      if (s != null && s.damaged()) {
        return null; // the writer drops the damaged segment's entries, counted
      }
      if (index.remove(hash, packed)) { // stale or corrupt: unlink exactly this entry
        addGarbage(packed); // (a no-op when its segment is gone)
        journalUnlinked(hash);
      }
      return null;
    }
    if (!Arrays.equals(e.key(), key)) {
      return null; // another key with the same 64-bit hash
    }
    return live(hash, packed, e.expired(System.currentTimeMillis())) ? new Hit(e, packed) : null;
  }

  /**
   * For a lookup that found its key's entry at {@code packed}: if {@code expired}, unlinks it and returns false;
   * else marks it accessed for reclaim and returns true.
   */
  private boolean live(long hash, long packed, boolean expired) {
    if (expired) {
      if (index.remove(hash, packed)) {
        addGarbage(packed);
      }
      return false;
    }
    if (!IndexEntry.accessed(packed)) {
      index.replace(hash, packed, IndexEntry.withAccessed(packed));
    }
    return true;
  }

  /** Counts a lookup's read of {@code packed} that failed with {@code ex} (the lookup is a miss). */
  private void readMissed(long packed, Throwable ex) {
    if (ex instanceof ClosedByInterruptException) {
      counters.interruptedReads.increment(); // this caller's interrupt (its flag stays set): its miss only
    } else if (ex instanceof IOException io) {
      readFailed(packed, io);
    } else if (ex instanceof OutOfMemoryError) { // no direct memory for a read buffer: this lookup's miss only
      counters.outOfMemoryMisses.increment();
    } else {
      counters.corruptReads.increment(); // a damaged index value or structure: a miss, never a wrong value
    }
  }

  /**
   * The first {@code n} bytes of the value of {@code key}'s live entry, or null; marks it accessed for reclaim, as
   * {@link #lookup}. Reads the device only as far as the entry's header, key and those bytes
   * ({@link FlashReader#readHead}); when that cannot tell (an entry still in a write buffer, a header that does not
   * check out) it is the full {@link #lookup}, which also unlinks what fails verification.
   */
  byte[] lookupHead(long hash, byte[] key, int n) {
    if (gate.degraded()) {
      return null;
    }
    long packed = IndexEntry.NONE;
    EntryFormat.Head head;
    try {
      packed = index.get(hash);
      if (packed == IndexEntry.NONE) {
        return null;
      }
      head = reader.readHead(packed, key, n);
    } catch (IOException | RuntimeException | OutOfMemoryError ex) {
      readMissed(packed, ex);
      return null;
    }
    if (head == null) {
      Hit hit = lookup(hash, key); // counts its own flash lookup
      return hit == null ? null : Arrays.copyOf(hit.entry().value(), Math.min(n, hit.entry().value().length));
    }
    counters.flashLookups.increment();
    if (head == EntryFormat.Head.OTHER_KEY) {
      return null;
    }
    return live(hash, packed, head.expired(System.currentTimeMillis())) ? head.value() : null;
  }

  /**
   * Journals an entry unlinked without a put or remove of its key (a read that failed verification: the
   * bytes on the device may be intact, and the key's next put or remove finds no slot to journal), above
   * every sequence drawn so far, so the replay after a crash does not bring it back.
   */
  private void journalUnlinked(long hash) {
    InvalidationJournal j = journal;
    if (j != null) {
      j.invalidated(hash, sequence.get() + 1);
    }
  }

  /** True if the index still points at the entry {@code packed} names (ignoring the accessed bit). */
  boolean stillAt(long hash, long packed) {
    return IndexEntry.location(index.get(hash)) == IndexEntry.location(packed);
  }

  /**
   * Unlinks any flash version of the key. Call inside the DRAM tier's compute for the key, with the
   * sequence of the put or remove doing it (drawn inside that compute). Returns true if the index held
   * an entry. With a journal, an invalidation that unlinked an entry is journaled after the index entry
   * is gone and before this returns ({@link InvalidationJournal}'s ordering argument needs both). No write
   * of the key can be between its append and its install here: both hold the key's map-bin lock.
   */
  boolean invalidate(long hash, long seq) {
    // a read that finds nothing needs no removal, which keeps puts of keys not on flash off the index's
    // write locks; reclaim only ever replaces an existing entry, so nothing appears behind it
    boolean held = false;
    if (index.get(hash) != IndexEntry.NONE) {
      long old = index.remove(hash);
      if (old != IndexEntry.NONE) {
        addGarbage(old);
        held = true;
      }
    }
    InvalidationJournal j = journal;
    if (j != null && held) {
      j.invalidated(hash, seq);
    }
    return held;
  }

  /**
   * Writes a dirty eviction to flash on the calling thread and indexes it; false if it was refused
   * (counted by reason). Waits for room (a write buffer, a segment slot) up to {@code cascadeWait}; on a
   * {@code reading} thread for a write buffer only, at most {@value #READER_WAIT_MILLIS} ms; not at all
   * while the tier is stalled. Never throws; call inside Caffeine's eviction of the key (its map-bin lock
   * orders it with {@link #invalidate}).
   */
  boolean offer(ByteKey key, byte[] value, long seq, long expiryMillis, LifetimeClass c, boolean reading) {
    long now = System.nanoTime();
    long wait = stalled || stopping ? 0 : reading ? Math.min(waitNanos, READER_WAIT_NANOS) : waitNanos;
    return write(key, value, seq, expiryMillis, c, now + wait, reading ? Write.READER : Write.EVICTION);
  }

  /**
   * As {@link #offer}, waiting for room until {@code deadlineNanos} (write-back at close and flush); false
   * if none came (a device or reclaim that does not progress) or the wait was interrupted (flag restored).
   * Call inside the DRAM tier's compute for the key.
   */
  boolean put(ByteKey key, byte[] value, long seq, long expiryMillis, LifetimeClass c, long deadlineNanos) {
    return write(key, value, seq, expiryMillis, c, deadlineNanos, Write.WRITE_BACK);
  }

  /** Who writes: how long it may wait for room, and whether its refusal counts as a refused eviction. */
  private enum Write {
    /** An eviction on a writing thread: waits up to {@code cascadeWait}. */
    EVICTION,
    /** An eviction on a reading thread: waits for a write buffer at most {@code READER_WAIT}, never for reclaim. */
    READER,
    /** A write-back (flush, close): waits until its deadline. */
    WRITE_BACK
  }

  private boolean write(ByteKey key, byte[] value, long seq, long expiryMillis, LifetimeClass c, long deadlineNanos,
      Write kind) {
    boolean eviction = kind != Write.WRITE_BACK;
    long hash = key.hash64();
    try {
      if (!gate.acceptsWrites() || gate.degraded()) {
        counters.degradedRejected.increment();
        return false;
      }
      if (indexFull && !indexHasRoomFor(hash)) {
        counters.indexFullRejected.increment();
        return false;
      }
      // a write-back (flush, close) is never refused for a cap: an acknowledged put must not be lost by a clean
      // close; it passes the cap by at most the group's dirty DRAM bytes, and the next refused eviction reclaims
      if (groups != null && eviction && overCap(key.bytes(), EntryFormat.entryBytes(key.bytes().length, value.length))) {
        return false;
      }
      lease.cover(seq);
      long packed = appendWaiting(key, value, seq, expiryMillis, c, deadlineNanos, kind);
      if (packed == IndexEntry.NONE) {
        if (eviction) {
          counters.queueRejected.increment();
        }
        return false;
      }
      Segment s = table.byTag(IndexEntry.segmentTag(packed));
      try {
        java.util.function.LongConsumer hook = afterAppend;
        if (hook != null) {
          hook.accept(hash);
        }
        return install(hash, seq, packed, EntryFormat.entryBytes(key.bytes().length, value.length));
      } finally {
        if (s != null) {
          s.installed(); // whatever happened since the append: reclaim and checkpoints wait for this
        }
      }
    } catch (IOException e) {
      gate.error(e, "sequence lease"); // the entry was not written: a refusal
      counters.degradedRejected.increment();
      return false;
    } catch (RuntimeException | Error e) { // never out of Caffeine's eviction: a counted fault, a refusal
      gate.fault(e, "flash write");
      return false;
    }
  }

  /**
   * True (counted, and a reclaim for the group asked for) if {@code entryBytes} more would take the key's group
   * over its flash cap: the eviction is refused, so the group pays with its own entries ({@link GroupBytes}). A
   * group with a flash cap of 0 asks for no reclaim (it may hold no flash bytes: a reclaim for it would only
   * rewrite the other groups' entries of its segment).
   */
  private boolean overCap(byte[] key, int entryBytes) {
    long group = groups.groupOf(key);
    if (groups.flashAdmits(group, entryBytes)) {
      return false;
    }
    counters.groupCapRejected.increment();
    if (groups.flashRoomAllowed(group) && groups.askReclaim(group)) {
      queue.add(new ReclaimFor(group, entryBytes));
    }
    return true;
  }

  /**
   * Appends, and while there is no slot, asks for reclaim and waits for it (outside the writer's lock)
   * until {@code deadlineNanos}; {@link IndexEntry#NONE} if no room came.
   */
  private long appendWaiting(ByteKey key, byte[] value, long seq, long expiryMillis, LifetimeClass c,
      long deadlineNanos, Write kind) {
    boolean eviction = kind != Write.WRITE_BACK;
    long seen = room.version();
    boolean waits = deadlineNanos - System.nanoTime() > 0;
    boolean counted = false;
    while (true) {
      long packed = writer.append(c, key.hash64(), key.bytes(), value, expiryMillis, seq, deadlineNanos, true,
          kind == Write.READER);
      if (packed != IndexEntry.NONE) {
        return packed;
      }
      requestReclaim();
      boolean timedOut = System.nanoTime() - deadlineNanos >= 0;
      if (stopping || Thread.currentThread().isInterrupted() || timedOut || kind == Write.READER) {
        if (kind == Write.EVICTION && waits && timedOut && !stopping) {
          stalled = true; // a hung device costs one wait, not one per eviction
          reportStall();
        }
        return IndexEntry.NONE;
      }
      if (!counted && eviction) {
        counters.cascadeWaits.increment();
        counted = true;
      }
      seen = room.await(seen, deadlineNanos, WAIT_SLICE_NANOS);
    }
  }

  /**
   * Says, at most once per {@value #STALL_REPORT_SECONDS} s, that an eviction's wait for room timed out and
   * what the room was waiting for: the device (no write completed lately) or reclaim (no slot freed).
   */
  private void reportStall() {
    long now = System.nanoTime();
    if (!stallReports.due(now)) {
      return;
    }
    LOG.warn("{}: an eviction waited {} ms for flash room and was refused; until a device write completes or "
        + "reclaim frees a slot, evictions are refused without waiting (last device write completed {} ms ago, "
        + "last slot reclaimed {} ms ago, {} free slots; reported at most every {} s)", config.name(),
        waitNanos / 1_000_000, (now - lastWrittenNanos) / 1_000_000, (now - lastReclaimedNanos) / 1_000_000,
        table.freeSlots(), STALL_REPORT_SECONDS);
  }

  /**
   * Waits until the maintenance thread handled every fault and drop reported before it; with
   * {@code flush}, until every entry written before it is on the device too. Returns false if that did
   * not happen by {@code deadlineNanos}, or the flush was skipped or failed.
   */
  boolean barrier(boolean flush, long deadlineNanos) {
    return await(new Barrier(flush, false, new CompletableFuture<>()), deadlineNanos);
  }

  /**
   * As {@link #barrier} with a flush, then an index checkpoint taken on the maintenance thread and made
   * durable; false if any of it did not happen by {@code deadlineNanos}, or there is no checkpointer (tests).
   */
  boolean checkpointNow(long deadlineNanos) {
    return await(new Barrier(true, true, new CompletableFuture<>()), deadlineNanos);
  }

  /** Drops every flash entry (waiting for the writer at most until {@code deadlineNanos}). */
  void clear(long deadlineNanos) {
    forgetAll();
    barrier(false, deadlineNanos); // the writer releases the segments first (maintain), then completes it
  }

  /**
   * A bulk invalidation could not see every flash key ({@code reason}): rather than leave some behind,
   * forget every flash entry now. Any thread; never blocks. The maintenance thread releases the segments
   * on its next turn.
   */
  void dropAll(String reason) {
    forgetAll();
    counters.flashIndexDrops.increment();
    LOG.warn("{}: dropped the whole flash index: {}", config.name(), reason);
  }

  /**
   * Empties the index at once (lookups miss from here on, even if the writer is slow); the maintenance
   * thread releases every segment at the start of its next turn.
   */
  private void forgetAll() {
    index.clear();
    InvalidationJournal j = journal;
    if (j != null) {
      j.cleared(sequence.incrementAndGet());
    }
    dropRequested = true;
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
   * in which case it is left behind (a daemon thread) and {@link #close} keeps every file open and the
   * directory locked until it ends.
   */
  boolean stop(long deadlineNanos) {
    if (thread.isAlive()) {
      barrier(true, deadlineNanos);
      stopping = true; // waiting evictions give up
      room.advance();
      try {
        if (queue.offer(new Stop(), Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
          TimeUnit.NANOSECONDS.timedJoin(thread, Math.max(1, deadlineNanos - System.nanoTime()));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    stopping = true;
    room.advance();
    if (thread.isAlive() || !writer.close(deadlineNanos)) {
      LOG.warn("{}: the flash writer did not stop within the close timeout {}; it is left behind and the "
          + "next open recovers", config.name(), config.closeTimeout());
      return false;
    }
    return true;
  }

  /**
   * After {@link #stop}, on the thread "hybridcache-close-NAME": waits for every thread that can still
   * write here to end (the maintenance thread, the flusher, the checkpoint copy, and, through {@code
   * awaitOthers}, the calls in flight and the engines beside this tier, which it closes), for ever if one
   * hangs; then, if {@code clean} (the writer stopped in
   * time, no call was left in flight), persists index and segment table and writes the clean-shutdown
   * marker that makes the next open warm; closes every file; and releases the directory lock last, so a
   * reopen can never run beside a thread of this cache. Waits for that thread until {@code deadlineNanos}:
   * true if it finished, false if it goes on alone (a slow or hung device). Never throws.
   */
  boolean close(boolean clean, long deadlineNanos, Runnable awaitOthers) {
    Thread t = new Thread(() -> finishClose(clean, awaitOthers), "hybridcache-close-" + config.name());
    t.setDaemon(true); // an exit meanwhile is a crash: the next open recovers
    closer = t;
    t.start();
    if (!awaitClosed(Math.max(1, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
      LOG.warn("{}: close did not finish within the close timeout {}; it goes on in the background and keeps "
          + "the directory locked until every thread of this cache has ended", config.name(), config.closeTimeout());
      return false;
    }
    return true;
  }

  private void finishClose(boolean clean, Runnable awaitOthers) {
    try {
      long forever = System.nanoTime() + FOREVER_NANOS;
      while (thread.isAlive()) { // a writer that hangs holds the lock for ever: never a reopen beside it
        try {
          thread.join();
        } catch (InterruptedException e) {
          LOG.debug("{}: close interrupted while its writer runs; still waiting", config.name());
        }
      }
      boolean flushed = writer.close(forever); // the flusher: no late write lands in a slot reused after a reopen
      awaitOthers.run();
      persistAndClose(clean && flushed, forever);
    } catch (Throwable t) { // never a dead close: what is not closed is left to the process's exit
      LOG.warn("{}: close failed: {}", config.name(), t.toString(), t);
    } finally {
      readBuffers.close(); // the read buffers go with the cache, not with the threads that read
      closeQuietly(directoryLock); // last: this tier touches the directory no more
    }
  }

  private void persistAndClose(boolean writerStopped, long deadlineNanos) {
    boolean ok = writerStopped && !gate.degraded();
    if (ok) {
      try {
        device.sync();
        index.flush();
        if (checkpointer != null) {
          if (!checkpointer.checkpointNow(deadlineNanos)) {
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
      checkpointer.stop(deadlineNanos); // after its copy: a late one must not replace a reopened cache's file
      closeQuietly(journal);
    }
    closeQuietly(index); // every thread that used it has ended: a closed Chronicle map unmaps its memory
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

  // ---- any thread: reclaim requests and room ----

  /** Asks the maintenance thread to reclaim (once until it starts). */
  private void requestReclaim() {
    if (reclaimRequested.compareAndSet(false, true)) {
      queue.add(new Reclaim());
    }
  }

  /**
   * A slot for a new segment, without waiting; -1 if none. Callers other than the maintenance thread
   * and evictions that may not wait for reclaim ({@code mayTakeReserve}: on a reading thread) leave
   * {@value #RECLAIM_RESERVE_SLOTS} for reclaim's reinsertion. Taking one that leaves
   * {@code reclaimFreeSegments} or fewer asks for reclaim.
   */
  private int freeSlot(boolean mayTakeReserve) {
    boolean reserve = mayTakeReserve || Thread.currentThread() == thread;
    int slot = reserve || table.freeSlots() > RECLAIM_RESERVE_SLOTS ? table.takeFreeSlot() : -1;
    if (table.freeSlots() <= config.reclaimFreeSegments()) {
      requestReclaim();
    }
    return slot;
  }

  /** A device write of {@code s} failed (flusher thread): it costs that segment, dropped on the next turn. */
  private void writeFailed(Segment s, IOException e) {
    gate.error(e, "write of segment " + s.id() + " in slot " + s.slot());
    if (s.markDamaged()) {
      damaged.add(s);
    }
  }

  /**
   * Installs an appended entry in the index (the key's map-bin lock held: nothing newer can exist); false
   * if the index refused the key (counted): the entry is garbage and the caller's copy is the only one. An
   * entry it replaces is another key's with the same index identity (the key's own were unlinked by its
   * put): that key's later put or remove will find no slot to journal, so the replacement is journaled
   * for the identity now, above every sequence drawn so far ({@link WarmRecovery} kills by identity).
   */
  private boolean install(long hash, long seq, long packed, int entryBytes) {
    try {
      long old = index.put(hash, packed);
      if (old != IndexEntry.NONE) {
        addGarbage(old);
        journalUnlinked(hash); // the other key's entry; costs this one too after a crash: a miss
      }
      counters.bytesAdmitted.add(entryBytes);
      return true;
    } catch (IndexFullException e) {
      InvalidationJournal j = journal;
      if (j != null) {
        j.invalidated(hash, seq + 1); // unindexed on flash: a later put of the key may not journal
      }
      addGarbage(packed);
      counters.indexFullRejected.increment();
      indexFullAt = index.size();
      indexFull = true;
      return false;
    }
  }

  /** After the index refused a key: room again once it shrank a little, or for a key it holds. */
  private boolean indexHasRoomFor(long hash) {
    long at = indexFullAt;
    if (index.size() < at - at / 64 || index.get(hash) != IndexEntry.NONE) {
      indexFull = index.size() >= at - at / 64;
      return true;
    }
    return false;
  }

  // ---- maintenance thread ----

  private void run() {
    List<Command> batch = new ArrayList<>(BATCH);
    boolean stop = false;
    while (!stop) {
      try {
        stop = !turn(batch);
      } catch (Throwable t) { // never a dead thread: the fault is counted and the tier degraded
        gate.fault(t, "flash maintenance loop");
        for (Command c : batch) {
          finish(c, false);
          stop |= c instanceof Stop; // never a lost stop: close waits for this thread to end
        }
      }
      batch.clear();
    }
  }

  /**
   * One turn: takes the next batch of commands, then does the fault work, reclaims if slots run low, and
   * runs the batch (or an idle flush); so a barrier completes only after every fault reported before it
   * was queued was handled. A command taken from the queue is in {@code batch} before any work that can
   * throw, and a fault of that work costs the work, never the commands.
   */
  private boolean turn(List<Command> batch) {
    Command first;
    try {
      first = queue.poll(IDLE_FLUSH_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      return !stopping; // nobody but close has business interrupting this thread
    }
    if (first != null) {
      batch.add(first);
      queue.drainTo(batch, BATCH - 1);
    }
    try {
      maintain();
    } catch (Throwable t) {
      gate.fault(t, "flash maintenance (dropping damaged segments, recovery)");
    }
    reclaimIfLow();
    startCheckpointIfDue();
    if (first == null) {
      if (!gate.degraded() && writer.hasUnflushed()) {
        flushQuietly();
      }
      return true;
    }
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

  /** Fault work on every turn: drops damaged segments and requested drops, recovers. */
  private void maintain() {
    if (dropRequested) {
      dropRequested = false;
      Runnable hook = beforeDropAll;
      if (hook != null) {
        hook.run();
      }
      clearLocked();
      room.advance();
    }
    if (!damaged.isEmpty()) {
      dropDamagedLocked();
      room.advance();
    }
    if (gate.degraded() && gate.retryDue()) {
      recoverLocked();
      room.advance();
    }
  }

  /**
   * Reclaims victims until more than {@code reclaimFreeSegments} slots are free (or none is left to
   * take); each freed slot wakes the evictions waiting for one. Never throws: a fault (any Throwable)
   * costs the victim it struck, which is dropped on the next turn instead of chosen again.
   */
  private void reclaimIfLow() {
    reclaimRequested.set(false); // a request from here on queues another turn
    Segment victim = null;
    try {
      while (!gate.degraded() && table.freeSlots() <= config.reclaimFreeSegments()) {
        victim = reclaimer.chooseVictim();
        if (victim == null) {
          break;
        }
        victim.requireInstalls(System.nanoTime() + Segment.INSTALL_WAIT_NANOS);
        reclaimer.reclaim(victim);
        Segment done = victim;
        writer.locked(() -> placement.reclaimed(done));
        victim = null;
        stalled = false; // progress: evictions may wait again
        lastReclaimedNanos = System.nanoTime();
        room.advance();
      }
    } catch (Throwable t) {
      reclaimFailed(t, victim);
    }
  }

  /**
   * A reclaim fault: the victim may be unreadable, or hold what reclaim cannot handle: it costs its segment
   * (dropped on the next turn), not every later reclaim that would choose it again.
   */
  private void reclaimFailed(Throwable t, Segment victim) {
    String where = victim == null ? "reclaim" : "reclaim of segment " + victim.id() + " in slot " + victim.slot();
    if (t instanceof IOException) {
      gate.error(t, where);
    } else {
      gate.contained(t, where);
    }
    if (victim != null && victim.markDamaged()) {
      damaged.add(victim);
    }
  }


  /**
   * Reclaims the sealed segment holding most of {@code group}'s bytes if the group is still over its flash cap:
   * its entries there are evicted, every other group's live entries reinserted ({@link Reclaimer#reclaimFor}).
   * A fault costs the victim, as in {@link #reclaimIfLow}.
   */
  private void reclaimFor(long group, long refusedBytes) {
    groups.reclaimHandled(group); // an eviction refused from here on may ask again
    Segment victim = null;
    try {
      // the refused entry's size, not one byte: a group within an entry of its cap (where a single writer
      // always stops, the check being before the append) must free room, or it refuses every entry forever
      if (gate.degraded() || !groups.flashOver(group) && groups.flashAdmits(group, refusedBytes)) {
        return;
      }
      victim = reclaimer.chooseVictimFor(group);
      if (victim == null) {
        return;
      }
      victim.requireInstalls(System.nanoTime() + Segment.INSTALL_WAIT_NANOS);
      reclaimer.reclaimFor(victim, group);
      Segment done = victim;
      writer.locked(() -> placement.reclaimed(done));
      victim = null;
      lastReclaimedNanos = System.nanoTime();
      room.advance();
    } catch (Throwable t) {
      reclaimFailed(t, victim);
    }
  }

  /** Runs one command; false after {@link Stop}. Any Throwable is a fault; a barrier still completes. */
  private boolean execute(Command c) {
    try {
      if (c instanceof Stop) {
        return false;
      } else if (c instanceof Reclaim) {
        reclaimIfLow(); // a request drained into this batch after the turn's own reclaim must not wait a turn
      } else if (c instanceof ReclaimFor r) {
        reclaimFor(r.group(), r.bytes());
      } else if (c instanceof Barrier b) {
        boolean ok = !b.flush() || !gate.degraded() && flushQuietly();
        Checkpointer cp = checkpointer;
        b.done().complete(ok && (!b.checkpoint() || cp != null
            && cp.checkpointNow(System.nanoTime() + config.closeTimeout().toNanos())));
      }
    } catch (Throwable t) {
      gate.fault(t, "flash maintenance, " + c.getClass().getSimpleName());
      finish(c, false);
    }
    return true;
  }

  /**
   * Every appended entry to the device and the device synced; false if a write failed (the flusher
   * reported it: it costs its segment) or the sync did (a device error).
   */
  private boolean flushQuietly() {
    try {
      writer.flushAll();
    } catch (IOException e) {
      return false; // reported by the flusher when it happened
    }
    try {
      device.sync();
      return true;
    } catch (IOException e) {
      gate.error(e, "device sync");
      return false;
    }
  }

  /** Completes a command that failed or was dropped. */
  private void finish(Command c, boolean ok) {
    if (c instanceof Barrier b) {
      b.done().complete(ok);
    }
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
    writer.drain(); // no write of a dropped segment may land in its slot once reused
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
    writer.abandonAll(this::journalDropped); // journaled before abandoned: their entries must not come back
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

  /**
   * Releases every segment but those opened since the active ones were abandoned, each journaled first:
   * entries written after the clear record (between {@link #forgetAll} and this) must not come back after
   * a crash either, and a discard may leave their bytes in place. Then unlinks the entries of released
   * segments only: an entry of a segment opened meanwhile stays indexed, so its key's next put or remove
   * still finds it and journals.
   */
  private void clearLocked() {
    writer.abandonAll(this::journalDropped);
    for (Segment s : table.segments().toArray(new Segment[0])) {
      if (s.state() != Segment.State.ACTIVE) {
        journalDropped(s);
        writer.recordTrim(s.slot()); // before the slot is free: an evicting thread may reuse it at once
        try {
          device.discard(s.slot());
        } catch (IOException e) {
          // trimming is advice
        }
        table.release(s);
      }
    }
    removeEntriesOf(tag -> table.byTag(tag) == null);
  }
}
