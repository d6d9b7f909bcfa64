package io.hybridcache.core.engine;

import io.hybridcache.core.device.Device;
import io.hybridcache.core.engine.SmallSetPage.Entry;
import io.hybridcache.core.engine.SmallSetPage.Found;
import io.hybridcache.core.engine.SmallSetPage.Page;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The small log in front of the set region (Kangaroo's KLog, SOSP 2021): new small objects are appended
 * to a ring of 4 KiB log pages, so a set page is rewritten only when several objects for it have gathered
 * (threshold admission) and one set rewrite carries them all. Reads look in the log first (newer), then
 * in the set.
 *
 * <p>Contract: as {@link SmallSets}, for puts and removes through this log: {@link #get} returns the
 * newest value of a completed {@link #put}, or null; once {@link #put} or {@link #remove} returns no older
 * version is served. An open is cold (a new epoch; log pages of earlier opens are never read) or, after a
 * clean close, takes over the state {@link #writeTo} saved then.
 *
 * <p><b>Index (DRAM).</b> A {@link SmallLogIndex}: Kangaroo's partitioned index (per 32 sets one bit stream
 * of entries: set, hit bit, {@value #TAG_BITS}-bit tag, Rice-coded distance from the previous entry's log
 * slot), about 3.2 B per <em>live</em> log object and nothing per unused slot; a page's number is derived
 * from its ring position, so nothing is kept per page. A slot id is {@code ringPosition * OBJECTS_PER_PAGE
 * + index in page}; a page holds at most {@value #OBJECTS_PER_PAGE} objects. A tag match is confirmed by
 * the full key of the entry at that index (a log page may hold several versions of a key: it is never
 * searched by key). Measured in {@code SmallLogSteadyStateTest}.
 *
 * <p><b>Reclaim.</b> When the ring is full, the oldest page is reclaimed: for each set with live objects
 * in it, if the log holds at least {@code threshold} objects of the set, all of them move to the set with
 * one {@link SmallSets#insert} (the newest version of each key). Otherwise its objects in that page leave
 * the log: those read while in the log (the index's hit bit) and not shadowed by a newer version are
 * re-logged (Kangaroo's readmission), while the write buffer has room; the rest are dropped, except
 * that a key whose set may hold an older version (the set's filter says maybe) forces the move, so
 * dropping never uncovers an older version. A log page that cannot be read at reclaim drops the sets its
 * objects belong to (found by a pass over the index: a rare, slow path); a log page that cannot be
 * written moves its objects' sets at once. The other log pages a reclaim's moves need (one device read
 * each, most of its time) are read several at a time on the tier's prefetch threads before the moves
 * ({@link #prefetch}), a cache that changes when they are read, never what the reclaim decides. A reclaim
 * first decides for every set of its page (move, or drop and readmit), then makes the moves, each a read
 * and a write of its own set's page, on those threads and its own at once ({@link #moveSets}): no set's
 * decision depends on another's move. What leaves the engine for room (a dropped object with no newer
 * version logged, a set object a move's rewrite evicts) is counted and told to {@link #onEvicted}.
 *
 * <p><b>Concurrency.</b> Thread-safe. Two locks. {@code lock} guards the index, the write buffer and the
 * ring counters and is never held across I/O (but by the close-time {@link #writeTo}, when no other call runs). {@code ioLock} is held by a flush (the page write and the
 * reclaim it makes) and by a remove across their I/O, one at a time; taken before {@code lock}. A put
 * appends under {@code lock} alone (no I/O) unless the buffer is full or sealed: a flush seals the
 * buffer, so puts wait for it while lookups go on reading the sealed buffer from DRAM, then the log page
 * on flash. {@link #offer} (the cache's evictions) never does I/O: it leaves a full buffer to a flusher
 * thread ({@link #flushIfWanted}) and waits for room at most until its deadline. A lookup holds {@code lock} only to collect its tag matches and reads log pages outside it; a
 * counter of unlinks (bumped by every move, drop, readmission and remove, and by every reclaim before
 * its page can be overwritten) lets it notice that its read overlapped one, and it then looks again.
 * Orders that keep it never wrong with lookups running: a move inserts into the set before it unlinks
 * from the log; a remove takes the key out of its set before it unlinks the key's log objects; a set is
 * dropped before the unlink of an unreadable object that may have shadowed an older version; a
 * readmitted object leaves its old slot and takes its new one in one step under {@code lock}
 * ({@code SmallLogInterleavingTest}). Lock order: {@code ioLock}, {@code lock}, then a set's stripe lock
 * (inside {@link SmallSets}). Buffers: {@code io}, the flush's page, belongs to the flush (under {@code
 * ioLock}), which encodes and writes it; nothing reads into it. Every log-page read takes a page buffer
 * for that one read and gives it back once the page is decoded (entries are copied out), so reads side by
 * side never fill one buffer: a lookup's from the region's lookup pool, the reclaim's, a set move's on any
 * thread, a prefetch's and a remove's from its writers' pool ({@link SmallSets#acquireWriterOrNull}, one
 * buffer per thread that does them, so the reclaim, which holds {@code ioLock}, never waits behind
 * lookups); a key scan reads into its own chunk ({@link #keysOnPage}). No buffer per thread: the moves and
 * prefetches add no direct memory beyond the pools' bounds ({@code SmallLogParallelMovesTest}).
 *
 * <p><b>Format.</b> Log pages are {@link SmallSetPage} pages whose set id is the ring position and whose
 * generation is the page number (monotonic), so a page overwritten by a later lap reads as another page.
 */
final class SmallLog implements SmallStore {
  static final int OBJECTS_PER_PAGE = 32;
  /**
   * Tag bits of the index by default: a false tag match (one extra log page read) per 256 log objects of
   * the key's set, 0.022 per lookup at the recommended share (10 bits: 0.006, 2 bits more per log object).
   */
  static final int TAG_BITS = 8;
  /**
   * The log's recommended share of the small region's pages, with {@link #RECOMMENDED_THRESHOLD}: measured
   * in {@code SmallLogSteadyStateTest} (100 B values, 24 B keys, steady state at 90% full): app write
   * amplification 4.3 (12-15 at a 5% log), 1.17 B mean / 1.28 B peak of DRAM per object on flash (sets +
   * log index), uniform hit ratio 0.84. 3/8 meets WA <= 3 (2.8) at 1.3-1.5 B and 0.79; 12.5% is at 1.0 B
   * (1.02 mean) at WA 7.9; 5% at 0.93-1.15 B at WA 12-15. No point meets both of issue 27's targets
   * (WA <= 3 and <= 1.0 B).
   */
  static final double RECOMMENDED_LOG_SHARE = 0.25;
  static final int RECOMMENDED_THRESHOLD = 2;
  private static final int LOOKUP_ATTEMPTS = 4;

  private final Device device;
  private final int firstSlot;
  private final int pagesPerSlot;
  private final int pages;
  private final long epoch;
  private final SmallSets sets;
  private final int threshold;
  private final boolean readmit;

  /**
   * Held by a flush (with its reclaim) and a remove across their I/O: one at a time; the log pages on
   * flash, {@link #io} and the index's entries change only under it (puts add entries, lookups set hit
   * bits, under {@link #lock} alone). Taken before {@link #lock}; never taken under it.
   */
  private final ReentrantLock ioLock = new ReentrantLock();
  /** Guards every field below; never held across I/O. Taken before any set lock. */
  private final ReentrantLock lock = new ReentrantLock();
  /** Signalled when a flush ends: the buffer may have room again ({@link #offer} waits for it). */
  private final java.util.concurrent.locks.Condition bufferRoom = lock.newCondition();
  /** True while a flush owns the write buffer (its write and the reclaim it makes): puts wait for it. */
  private boolean sealed;
  /** Set by an {@link #offer} that found no room: {@link #flushIfWanted} writes the buffer. */
  private boolean flushWanted;
  /** The largest object an offer waits to fit since the last flush: the flush leaves room for it. */
  private int wantedBytes;
  /** Flushes ended (written or not): the log's device moved. */
  private volatile long flushes;
  private final SmallLogIndex index;
  /** Page number of the page being filled in DRAM (its position is {@code bufferPage % pages}). */
  private long bufferPage;
  /** Oldest page number on flash; pages [tailPage, bufferPage) are on flash. */
  private long tailPage;
  private final List<Entry> buffer = new ArrayList<>();
  private int bufferBytes;
  /** Room of the buffer kept for the objects a background reclaim may readmit ({@link #reclaimAhead}). */
  private int reservedObjects;
  private int reservedBytes;
  /** Free ring pages a background reclaim keeps ahead of the buffer ({@link #reclaimAhead}). */
  private final int ahead;
  /** Set by a put that leaves fewer than {@link #ahead} free pages: a background reclaim is wanted. */
  private volatile boolean low;
  /** The flush's page: encoded and written under {@link #ioLock} only, never read into. */
  private final ByteBuffer io = Device.allocateAligned(SmallSetPage.PAGE_BYTES);
  /** Scans recording relocations ({@link #recordRelocations}); empty almost always. */
  private final List<java.lang.ref.WeakReference<java.util.Set<ByteKey>>> relocationRecorders =
      new java.util.concurrent.CopyOnWriteArrayList<>();
  /** Bumped under the lock by every unlink: a lookup that saw it change looks again. */
  private volatile long unlinks;
  private volatile SmallSets.Probe probe = SmallSets.Probe.NONE;
  private volatile java.util.concurrent.ExecutorService ioThreads;
  /** Told of each object that left the engine for room (counted in {@link #objectsEvicted}); any thread. */
  private volatile java.util.function.Consumer<Entry> onEvicted = e -> { };
  private volatile boolean tellEvictions;
  /** Evictions a reclaim made, told by the thread that held {@link #ioLock} once it released it. */
  private final java.util.concurrent.ConcurrentLinkedQueue<Entry> toTell =
      new java.util.concurrent.ConcurrentLinkedQueue<>();
  /** Throwables of the {@link #onEvicted} sink (tests). */
  final LongAdder sinkFailures = new LongAdder();

  final LongAdder bytesAdmitted = new LongAdder();
  final LongAdder logPagesWritten = new LongAdder();
  final LongAdder logHits = new LongAdder();
  /** Of those, served from the write buffer in DRAM (no device read): the small engine's buffer hits. */
  final LongAdder bufferHits = new LongAdder();
  /** Lookups that missed because no direct memory was left for a log page buffer or its read. */
  final LongAdder outOfMemoryMisses = new LongAdder();
  /**
   * Objects that left the engine for room: log objects a reclaim dropped with no newer version of their key
   * in the log, and the set objects a move's rewrite evicted ({@link #onEvicted}).
   */
  final LongAdder objectsEvicted = new LongAdder();
  /** Waits of {@link #offer} for room and of {@link #remove(byte[], long)} for {@link #ioLock}. */
  final LongAdder waits = new LongAdder();
  /**
   * Log pages read by lookups ({@link #get}; not the reads of reclaim, removes or moves): with the set
   * regions' page reads, the small engine's share of {@code CacheStats.deviceReads}.
   */
  final LongAdder lookupPageReads = new LongAdder();
  final LongAdder setMoves = new LongAdder();
  final LongAdder forcedMoves = new LongAdder();
  final LongAdder objectsMoved = new LongAdder();
  /** Set moves {@link #moveSets} ran on a prefetch thread, beside the reclaim's own (tests). */
  final LongAdder movesAside = new LongAdder();
  final LongAdder objectsDropped = new LongAdder();
  final LongAdder objectsReadmitted = new LongAdder();
  /** Log pages reclaimed by {@link #reclaimAhead} (off the putting threads) and by a put's own flush. */
  final LongAdder backgroundReclaims = new LongAdder();
  final LongAdder inlineReclaims = new LongAdder();
  final LongAdder ioErrors = new LongAdder();
  /** Log pages {@link #prefetch} read for a reclaim's moves (tests). */
  final LongAdder prefetchedPages = new LongAdder();

  /**
   * A log of every page in slots {@code [firstSlot, firstSlot + slotCount)} in front of {@code sets}, with
   * readmission and {@value #TAG_BITS}-bit tags.
   */
  SmallLog(Device device, int firstSlot, int slotCount, SmallSets sets, int threshold) {
    this(device, firstSlot, slotCount, sets, threshold, true, TAG_BITS);
  }

  /** As above; {@code readmit}: re-log objects read while in the log instead of dropping them. */
  SmallLog(Device device, int firstSlot, int slotCount, SmallSets sets, int threshold, boolean readmit,
      int tagBits) {
    this(device, firstSlot, slotCount, sets, threshold, readmit, tagBits, null);
  }

  /**
   * The log's state saved at a clean close ({@link #writeTo}) and read back ({@link #readFrom}): its epoch,
   * the ring's page numbers and its index, which the log adopts.
   */
  record Saved(long epoch, long tailPage, long bufferPage, SmallLogIndex index) {}

  /**
   * As above; with {@code restored} non-null the log takes over that saved state (the same slots of the same
   * device, unchanged since the save) instead of drawing a new epoch.
   */
  SmallLog(Device device, int firstSlot, int slotCount, SmallSets sets, int threshold, boolean readmit,
      int tagBits, Saved restored) {
    if (threshold < 1) {
      throw new IllegalArgumentException("threshold must be > 0: " + threshold);
    }
    if (firstSlot < 0 || slotCount <= 0 || (long) firstSlot + slotCount > device.slotCount()) {
      throw new IllegalArgumentException("slot range [" + firstSlot + ", " + firstSlot + "+" + slotCount
          + ") must lie within the device's " + device.slotCount() + " slots");
    }
    long perSlot = device.slotBytes() / SmallSetPage.PAGE_BYTES;
    long total = perSlot * slotCount;
    if (total < 2 || total * OBJECTS_PER_PAGE > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("the log must hold 2.." + Integer.MAX_VALUE / OBJECTS_PER_PAGE
          + " pages: " + total);
    }
    this.device = device;
    this.firstSlot = firstSlot;
    this.pagesPerSlot = (int) perSlot;
    this.pages = (int) total;
    this.ahead = Math.max(1, this.pages / 64);
    this.epoch = restored == null ? new SecureRandom().nextLong() : restored.epoch();
    this.sets = sets;
    this.threshold = threshold;
    this.readmit = readmit;
    if (restored == null) {
      this.index = new SmallLogIndex(sets.sets(), pages * OBJECTS_PER_PAGE, tagBits);
    } else {
      checkFits(restored, sets.sets(), tagBits);
      this.index = restored.index();
      tailPage = restored.tailPage();
      bufferPage = restored.bufferPage();
    }
  }

  private void checkFits(Saved saved, int setCount, int tagBits) {
    long onFlash = saved.bufferPage() - saved.tailPage();
    SmallLogIndex i = saved.index();
    if (saved.tailPage() < 0 || onFlash < 0 || onFlash > pages || i.sets() != setCount
        || i.slots() != pages * OBJECTS_PER_PAGE || i.tagBits() != tagBits) {
      throw new IllegalArgumentException("saved log ring [" + saved.tailPage() + ", " + saved.bufferPage()
          + ") and index of " + i.sets() + " sets, " + i.slots() + " slots, " + i.tagBits() + "-bit tags do not"
          + " fit a log of " + pages + " pages, " + setCount + " sets, " + tagBits + "-bit tags");
    }
  }

  /** Writes the buffer as a log page (if it holds anything): before a save. Call with no other call running (close). */
  void flushForSave() {
    ioLock.lock();
    try {
      flush(0);
    } finally {
      unlockIo();
    }
  }

  /**
   * Writes the log's state for a warm open, streamed from the live index: epoch, tail page and buffer page
   * (longs), then the index ({@link SmallLogIndex#writeTo}). Call after {@link #flushForSave}, with no other
   * call running (close): the one time {@code lock} is held across I/O, as nothing else can want it.
   */
  void writeTo(SmallCheckpoint.Out out) throws IOException {
    ioLock.lock();
    lock.lock();
    try {
      if (!buffer.isEmpty()) {
        throw new IllegalStateException("the log's buffer of " + buffer.size() + " objects was not flushed");
      }
      out.writeLong(epoch);
      out.writeLong(tailPage);
      out.writeLong(bufferPage);
      index.writeTo(out);
    } finally {
      lock.unlock();
      unlockIo();
    }
  }

  /** Reads what {@link #writeTo} wrote for a log of {@code slots} object slots in front of {@code sets} sets. */
  static Saved readFrom(SmallCheckpoint.In in, int sets, int slots, int tagBits) throws IOException {
    long epoch = in.readLong();
    long tail = in.readLong();
    long buffered = in.readLong();
    return new Saved(epoch, tail, buffered, SmallLogIndex.readFrom(in, sets, slots, tagBits));
  }

  /**
   * Starts recording in {@code into} the key of every object moved to its set or readmitted from now on
   * (a key scan: {@link SmallKeyScan}); weakly held, so an abandoned scan stops recording.
   */
  void recordRelocations(java.util.Set<ByteKey> into) {
    relocationRecorders.add(new java.lang.ref.WeakReference<>(into));
  }

  void stopRecording(java.util.Set<ByteKey> into) {
    relocationRecorders.removeIf(r -> r.get() == null || r.get() == into);
  }

  private void relocated(byte[] key) {
    if (relocationRecorders.isEmpty()) {
      return;
    }
    for (java.lang.ref.WeakReference<java.util.Set<ByteKey>> r : relocationRecorders) {
      java.util.Set<ByteKey> into = r.get();
      if (into == null) {
        relocationRecorders.remove(r);
      } else {
        into.add(new ByteKey(key));
      }
    }
  }

  /**
   * What a key scan reads of the log, taken in one step: the keys of the unexpired objects in the write
   * buffer, the slot ids of the indexed objects on flash (ascending) and the tail page number then.
   */
  record KeySnapshot(List<byte[]> bufferKeys, int[] slots, long tailPage) {}

  KeySnapshot keySnapshot() {
    return locked(() -> {
      List<byte[]> bufferKeys = new ArrayList<>();
      int[] slots = new int[Math.toIntExact(index.liveObjects())];
      int[] n = {0};
      long now = sets.nowMillis();
      index.forEach((set, tag, slot, hit) -> {
        if (inBuffer(slot / OBJECTS_PER_PAGE)) {
          Entry e = buffer.get(slot % OBJECTS_PER_PAGE);
          if (!e.expired(now)) {
            bufferKeys.add(e.key());
          }
        } else {
          slots[n[0]++] = slot;
        }
      });
      int[] onFlash = Arrays.copyOf(slots, n[0]);
      Arrays.sort(onFlash);
      return new KeySnapshot(bufferKeys, onFlash, tailPage);
    });
  }

  /**
   * Adds to {@code out} the keys of the unexpired objects at {@code slots[from, to)} (one log page), read
   * with one device read into {@code page}. A page overwritten since the snapshot (or damaged) adds
   * nothing: its objects were moved or readmitted (recorded, see {@link #recordRelocations}) or dropped.
   *
   * @throws IOException if the read fails
   */
  void keysOnPage(int[] slots, int from, int to, long snapshotTail, ByteBuffer page, List<byte[]> out)
      throws IOException {
    int pos = slots[from] / OBJECTS_PER_PAGE;
    long number = snapshotTail + Math.floorMod(pos - position(snapshotTail), pages);
    device.read(slotOf(pos), offsetOf(pos), SmallSets.whole(page));
    Page p = SmallSetPage.decode(page, pos, epoch);
    if (p == null || p.generation() != number) {
      return;
    }
    long now = sets.nowMillis();
    for (int i = from; i < to; i++) {
      int at = slots[i] % OBJECTS_PER_PAGE;
      if (at < p.entries().size() && !p.entries().get(at).expired(now)) {
        out.add(p.entries().get(at).key());
      }
    }
  }

  /** Test seam: {@link SmallSets.Point#LOOKUP_READ} after a lookup read a log page (set = ring position). */
  void probe(SmallSets.Probe p) {
    probe = p;
  }

  /** DRAM of the log's index (the write buffer is one page and the lock a constant). */
  long dramBytes() {
    lock.lock();
    try {
      return index.dramBytes();
    } finally {
      lock.unlock();
    }
  }

  /** Objects the log's index holds. */
  long liveObjects() {
    lock.lock();
    try {
      return index.liveObjects();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Appends one object; its set is rewritten later, with others, when the log reclaims its page. No I/O
   * unless the buffer is full: then this put writes it (and reclaims) under {@link #ioLock}.
   */
  @Override
  public boolean put(byte[] key, byte[] value, long sequence, long expiryMillis) {
    Entry e = Entry.of(key, value, sequence, expiryMillis);
    while (true) {
      lock.lock();
      try {
        if (!sealed && fits(e, 0)) {
          admitLocked(e);
          return true;
        }
      } finally {
        lock.unlock();
      }
      ioLock.lock(); // waits for a flush in progress; under it no other flush runs, so sealed is false
      try {
        if (locked(() -> !fits(e, 0))) {
          flush(e.bytes()); // readmitted objects leave room for e (other puts may take it: look again)
        }
      } finally {
        unlockIo();
      }
    }
  }

  /**
   * Appends one object without I/O on this thread (the cache's evictions): when the buffer is full or
   * sealed, asks for a flush ({@code wake} must make a thread call {@link #flushIfWanted}) and waits for
   * room until {@code deadlineNanos}. False if none came by then, or the wait was interrupted (flag
   * restored): the object is not stored.
   */
  boolean offer(byte[] key, byte[] value, long sequence, long expiryMillis, long deadlineNanos, Runnable wake) {
    Entry e = Entry.of(key, value, sequence, expiryMillis);
    boolean waited = false;
    lock.lock();
    try {
      while (true) {
        if (!sealed && fits(e, 0)) {
          admitLocked(e);
          return true;
        }
        flushWanted = true;
        wantedBytes = Math.max(wantedBytes, e.bytes());
        wake.run();
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        if (!waited) {
          waited = true;
          waits.increment(); // one wait per offer, as the log engine counts its cascade waits
        }
        bufferRoom.awaitNanos(left);
      }
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The flusher's step: if an {@link #offer} found no room, writes the buffer as the next log page (and
   * reclaims as a put's flush does, the ring being full). True if it flushed.
   */
  boolean flushIfWanted() {
    ioLock.lock();
    try {
      int reserve = locked(() -> { // taken now: an offer during this flush asks for the next one
        // still full? (an offer that waited for a flush which has ended since needs no other)
        boolean full = buffer.size() >= OBJECTS_PER_PAGE - reservedObjects
            || bufferBytes + reservedBytes + wantedBytes > SmallSetPage.CAPACITY_BYTES;
        int r = flushWanted && full ? wantedBytes : -1;
        flushWanted = false;
        wantedBytes = 0;
        if (r < 0) {
          bufferRoom.signalAll(); // room came otherwise (a reclaim's reservation ended): the offers look again
        }
        return r;
      });
      if (reserve < 0) {
        return false;
      }
      flush(reserve);
      return true;
    } finally {
      unlockIo();
    }
  }

  /** Flushes ended so far, written or not ({@link #offer}'s callers: has the device moved?). */
  long flushes() {
    return flushes;
  }

  private <T> T locked(java.util.function.Supplier<T> s) {
    lock.lock();
    try {
      return s.get();
    } finally {
      lock.unlock();
    }
  }

  private void locked(Runnable r) {
    lock.lock();
    try {
      r.run();
    } finally {
      lock.unlock();
    }
  }

  private boolean fits(Entry e, int reserve) {
    return buffer.size() + reservedObjects < OBJECTS_PER_PAGE - (reserve > 0 ? 1 : 0)
        && bufferBytes + reservedBytes + e.bytes() + reserve <= SmallSetPage.CAPACITY_BYTES;
  }

  /** Pages of the ring. */
  int pages() {
    return pages;
  }

  /** True once a put left fewer free ring pages than a background reclaim keeps ahead. */
  boolean low() {
    return low;
  }

  /**
   * Reclaims the oldest log page if fewer than {@code pages / 64} ring pages are free, off the putting
   * threads: puts go on appending to the buffer meanwhile (a flush waits for it), into all of its room but
   * what this reclaim reserves for the objects it may readmit (half a page at most). Returns true if it
   * reclaimed a page and more may be wanted. A put whose flush finds the ring full still reclaims itself.
   */
  boolean reclaimAhead() {
    ioLock.lock();
    try {
      int[] room = locked(() -> { // null: enough pages are free
        if (pages - (bufferPage - tailPage) > ahead) {
          low = false;
          return null;
        }
        reservedObjects = Math.max(0, Math.min(OBJECTS_PER_PAGE / 2, OBJECTS_PER_PAGE - 1 - buffer.size()));
        reservedBytes = Math.max(0, Math.min(SmallSetPage.CAPACITY_BYTES / 2,
            SmallSetPage.CAPACITY_BYTES - bufferBytes));
        return new int[] {reservedObjects, reservedBytes};
      });
      if (room == null) {
        return false;
      }
      try {
        reclaim(room[0], room[1]);
      } finally {
        locked(() -> {
          reservedObjects = 0;
          reservedBytes = 0;
          bufferRoom.signalAll(); // an offer may have waited for the reserved room
        });
      }
      backgroundReclaims.increment();
      return true;
    } finally {
      unlockIo();
    }
  }

  /** Under {@link #lock}: appends a put's object, counts it, and notes when few ring pages are free. */
  private void admitLocked(Entry e) {
    appendLocked(e);
    bytesAdmitted.add(e.key().length + e.value().length);
    if (pages - (bufferPage - tailPage) <= ahead) {
      low = true;
    }
  }

  private void appendLocked(Entry e) {
    int id = position(bufferPage) * OBJECTS_PER_PAGE + buffer.size();
    buffer.add(e);
    bufferBytes += e.bytes();
    index.add(sets.setOf(e.keyHash()), index.tag(e.keyHash()), id);
  }

  /** The newest value of {@code key}: from the log if it holds one, else from its set. */
  @Override
  public Entry lookup(byte[] key) {
    long hash = KeyHash.of(key);
    int set = sets.setOf(hash);
    for (int attempt = 0; attempt < LOOKUP_ATTEMPTS; attempt++) {
      List<long[]> candidates = new ArrayList<>(); // {slot id, page number}, newest first
      long seen;
      lock.lock();
      try {
        seen = unlinks;
        for (int id : index.slots(set, index.tag(hash))) {
          if (inBuffer(id / OBJECTS_PER_PAGE)) {
            Entry e = buffer.get(id % OBJECTS_PER_PAGE);
            if (Arrays.equals(e.key(), key)) {
              logHits.increment();
              if (e.expired(sets.nowMillis())) {
                return null;
              }
              bufferHits.increment();
              return Entry.of(e.key(), e.value().clone(), e.sequence(), e.expiryMillis()); // the buffer's arrays stay ours
            }
          } else {
            candidates.add(new long[] {id, pageNumber(id / OBJECTS_PER_PAGE)});
          }
        }
      } finally {
        lock.unlock();
      }
      Lookup found = lookInLog(candidates, key, seen);
      if (found == Lookup.AGAIN) {
        continue;
      }
      if (found != null) {
        if (found.slot >= 0 && readmit) {
          markHit(set, found.slot);
        }
        return found.entry;
      }
      return sets.lookup(key);
    }
    return null;
  }

  private void markHit(int set, int slot) {
    locked(() -> index.markHit(set, slot));
  }

  /** What a log lookup found: a value (possibly null for expired or unreadable) and its slot, or AGAIN. */
  private record Lookup(Entry entry, int slot) {
    static final Lookup AGAIN = new Lookup(null, -1);
    static final Lookup MISS = new Lookup(null, -1);
  }

  /** Null if no candidate holds the key (look in the set), else the answer. */
  private Lookup lookInLog(List<long[]> candidates, byte[] key, long seen) {
    if (candidates.isEmpty()) {
      return null;
    }
    ByteBuffer page;
    try {
      page = sets.buffers().acquire(SmallSetPage.PAGE_BYTES);
    } catch (OutOfMemoryError e) { // no direct memory for a page buffer: this lookup's miss, not a device error
      outOfMemoryMisses.increment();
      return Lookup.MISS;
    }
    try {
      return lookInLog(candidates, key, seen, page);
    } finally {
      sets.buffers().release(page);
    }
  }

  private Lookup lookInLog(List<long[]> candidates, byte[] key, long seen, ByteBuffer page) {
    for (long[] c : candidates) {
      int pos = (int) c[0] / OBJECTS_PER_PAGE;
      try {
        lookupPageReads.increment();
        device.read(slotOf(pos), offsetOf(pos), SmallSets.whole(page));
      } catch (IOException e) {
        ioErrors.increment();
        return Lookup.MISS; // it may be the newest version: never fall back to an older one
      } catch (OutOfMemoryError e) { // no direct memory for the read (the JDK's own buffer): a miss, as above
        outOfMemoryMisses.increment();
        return Lookup.MISS;
      }
      probe.at(SmallSets.Point.LOOKUP_READ, pos);
      // by index, not by key: a log page may also hold older versions of the key
      Found f = SmallSetPage.at(page, pos, epoch, (int) c[0] % OBJECTS_PER_PAGE);
      if (unlinks != seen || (f != SmallSetPage.DAMAGED && SmallSetPage.generation(page) != c[1])) {
        return Lookup.AGAIN; // moved, removed or overwritten meanwhile
      }
      if (f == SmallSetPage.DAMAGED) {
        return Lookup.MISS;
      }
      if (f != null && Arrays.equals(f.entry().key(), key)) {
        logHits.increment();
        return new Lookup(f.entry().expired(sets.nowMillis()) ? null : f.entry(), (int) c[0]);
      }
    }
    return null; // the tags matched other keys only
  }

  /**
   * False if no version of the key is in the log or its set: its index has no tag match and the set's
   * filter says no. DRAM only. Every object is always findable by one of the two (a move inserts into
   * the set before it unlinks; a readmission relinks in one step), so a put of the key, which the caller
   * orders after this call, is the only way a version of it can appear afterwards.
   */
  boolean mayHold(long keyHash) {
    int set = sets.setOf(keyHash);
    return locked(() -> index.slots(set, index.tag(keyHash)).length > 0) || sets.mightContain(keyHash);
  }

  /** Makes every version of {@code key} unreachable, in the log and in its set. True if one was found. */
  @Override
  public boolean remove(byte[] key) {
    ioLock.lock();
    return removeLocked(key);
  }

  /**
   * As {@link #remove}, waiting for the log's I/O (a flush or reclaim in progress) at most until {@code
   * deadlineNanos}: an {@link IoWaitTimeout} then, nothing removed (a device that hangs; the caller must
   * make the key's versions unreachable otherwise). The removal's own I/O that follows is not bounded
   * here: {@link SmallTier} runs this call on a thread of its own and waits for it until the deadline.
   */
  boolean remove(byte[] key, long deadlineNanos) {
    boolean locked = ioLock.tryLock();
    if (!locked) {
      waits.increment(); // a flush or reclaim holds the log's device
    }
    boolean interrupted = Thread.interrupted(); // the wait is bounded; an interrupt must not cost the engine
    while (!locked) {
      try {
        locked = ioLock.tryLock(Math.max(0, deadlineNanos - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS);
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (!locked) {
      throw new IoWaitTimeout();
    }
    return removeLocked(key);
  }

  /**
   * A remove waited for the log's device until its deadline and removed nothing: {@link #remove(byte[], long)}'s
   * wait for the log's I/O, or its caller's wait for the removal ({@link SmallTier}).
   */
  static final class IoWaitTimeout extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    IoWaitTimeout() {
      this("a remove waited too long for the log's device (a flush or reclaim that does not finish)");
    }

    IoWaitTimeout(String message) {
      super(message);
    }
  }

  /** {@link #remove} under {@link #ioLock}, which it releases. */
  private boolean removeLocked(byte[] key) {
    long hash = KeyHash.of(key);
    int set = sets.setOf(hash);
    try {
      boolean found = false;
      boolean lost = false;
      Map<Long, Page> loaded = new HashMap<>();
      List<Integer> gone = new ArrayList<>();
      for (int id : locked(() -> index.slots(set, index.tag(hash)))) { // puts may add newer ones meanwhile
        Entry e = entryAt(id, loaded);
        if (e == null || Arrays.equals(e.key(), key)) {
          gone.add(id);
          found |= e != null;
          lost |= e == null;
        }
      }
      if (lost) { // before the unlink: an unreadable object may have shadowed an older version of its key
        sets.drop(set);
      }
      // the set first: between the two steps a lookup still finds the log's newer version, not the set's older
      // one; a set page it cannot read or verify is poisoned, so the unlink never uncovers an older version
      boolean inSet = sets.remove(key);
      unlink(set, gone);
      return inSet || found;
    } finally {
      ioLock.unlock(); // a remove evicts nothing: the evictions of a reclaim are its own thread's to tell
    }
  }

  /**
   * Under {@link #ioLock}: writes the buffer as the next log page, then reclaims the oldest page if the
   * ring is full, readmitting at most what leaves {@code reserve} bytes and one object free in the new
   * buffer. The buffer is sealed meanwhile: lookups still read it, puts wait.
   */
  private void flush(int reserve) {
    List<Entry> entries = new ArrayList<>();
    long number = locked(() -> {
      sealed = true;
      entries.addAll(buffer);
      return bufferPage;
    });
    try {
      if (entries.isEmpty()) {
        return;
      }
      int pos = position(number);
      SmallSetPage.encode(io, pos, epoch, number, entries);
      boolean written = write(pos);
      if (!written) {
        drainBuffer(pos, entries); // the page stays in DRAM no longer: its objects go to their sets now
      }
      locked(() -> {
        if (written) {
          bufferPage++; // from now on lookups read these objects from flash
        }
        buffer.clear();
        bufferBytes = 0;
      });
      while (locked(() -> bufferPage - tailPage >= pages)) {
        reclaim(OBJECTS_PER_PAGE - 1, SmallSetPage.CAPACITY_BYTES - reserve); // the buffer is empty
        inlineReclaims.increment();
      }
    } finally {
      locked(() -> {
        sealed = false;
        flushes++;
        bufferRoom.signalAll();
      });
    }
  }

  private boolean write(int pos) {
    try {
      device.write(slotOf(pos), offsetOf(pos), io.clear());
      logPagesWritten.increment();
      return true;
    } catch (IOException e) {
      ioErrors.increment();
      return false;
    }
  }

  /** After a failed log write: moves every set with an object in the (sealed) buffer, whole chains. */
  private void drainBuffer(int pos, List<Entry> entries) {
    Map<Long, Page> loaded = new HashMap<>();
    for (int i = 0; i < entries.size(); i++) {
      int set = sets.setOf(entries.get(i).keyHash());
      int id = pos * OBJECTS_PER_PAGE + i;
      if (locked(() -> index.contains(set, id))) {
        moveSet(set, loaded);
      }
    }
  }

  /**
   * Under {@link #ioLock}, the buffer sealed and empty: empties the oldest log page. Moves the sets that
   * reached the threshold; of the rest, readmits (re-logs) the objects read while in the log, as long as
   * the new buffer has room, and drops the others. The index changes only here (and lookups' hit bits),
   * so what it says between the locked steps stays true.
   */
  private void reclaim(int readmitObjects, int readmitBytes) {
    long number = locked(() -> tailPage);
    int pos = position(number);
    int first = pos * OBJECTS_PER_PAGE;
    Map<Long, Page> loaded = new java.util.concurrent.ConcurrentHashMap<>(); // the moves read it side by side
    Page page = readPage(pos, number);
    if (page == null) { // keys unknown, so sets unknown: one pass over the index (a rare path)
      for (int set : locked(() -> index.setsWithSlots(first, first + OBJECTS_PER_PAGE))) {
        sets.drop(set); // before the unlink: an object of it may have shadowed an older version of its key
      }
      locked(() -> {
        index.removeSlots(first, first + OBJECTS_PER_PAGE);
        unlinks++;
        tailPage++;
      });
      return;
    }
    loaded.put(number, page);
    Map<Integer, List<Integer>> bySet = new LinkedHashMap<>();
    List<Integer> moving = new ArrayList<>(); // slots of the sets this reclaim will move (those at the threshold)
    locked(() -> {
      for (int i = 0; i < page.entries().size(); i++) {
        int set = sets.setOf(page.entries().get(i).keyHash());
        if (index.contains(set, first + i)) {
          bySet.computeIfAbsent(set, s -> new ArrayList<>()).add(first + i);
        }
      }
      for (int set : bySet.keySet()) {
        if (index.count(set) >= threshold) {
          for (int id : index.slots(set, -1)) {
            moving.add(id);
          }
        }
      }
    });
    prefetch(moving, loaded);
    List<Readmit> readmitted = new ArrayList<>(); // still linked at their old slot until the end
    List<Integer> toMove = new ArrayList<>();
    int readmittedBytes = 0;
    for (Map.Entry<Integer, List<Integer>> group : bySet.entrySet()) {
      int set = group.getKey();
      List<Integer> dropped = new ArrayList<>();
      List<Readmit> again = new ArrayList<>();
      int againBytes = 0;
      for (int id : group.getValue()) {
        Entry e = entryAt(id, loaded);
        boolean room = readmitted.size() + again.size() < readmitObjects
            && readmittedBytes + againBytes + e.bytes() <= readmitBytes;
        if (readmit && room && locked(() -> index.hit(set, id)) && !e.expired(sets.nowMillis())
            && !shadowed(set, id, e, loaded)) {
          again.add(new Readmit(set, id, e));
          againBytes += e.bytes();
        } else {
          dropped.add(id);
        }
      }
      if (locked(() -> index.count(set)) >= threshold || needsMove(set, dropped, loaded)) {
        toMove.add(set); // no other set's decision depends on it: moved below, several at a time
        continue;
      }
      List<Entry> evicted = unshadowed(set, dropped, loaded); // before the unlink: what shadows them is linked
      unlink(set, dropped); // safe: no older version of their keys in the set, or a newer one in the log
      objectsDropped.add(dropped.size());
      evicted(evicted);
      readmitted.addAll(again);
      readmittedBytes += againBytes;
    }
    moveSets(toMove, loaded);
    readmitted.forEach(r -> relocated(r.entry.key()));
    probe.at(SmallSets.Point.RECLAIM_READMIT, readmitted.size());
    int[] readmittedNow = {0};
    locked(() -> { // one step, so a lookup sees each readmitted object at its old slot or its new one
      // first, while the ring still holds the reclaimed page (its position is not the buffer's):
      // a put during a background reclaim may have logged a newer version of a readmitted key
      boolean[] newer = new boolean[readmitted.size()];
      for (int i = 0; i < newer.length; i++) {
        newer[i] = newerInBuffer(readmitted.get(i));
      }
      tailPage++; // the ring has a free page again: the buffer's position is its own
      for (int i = 0; i < newer.length; i++) {
        Readmit r = readmitted.get(i);
        index.remove(r.set, r.slot);
        if (!newer[i]) {
          appendLocked(r.entry);
          readmittedNow[0]++;
        }
      }
      unlinks++;
    });
    objectsReadmitted.add(readmittedNow[0]);
    objectsDropped.add(readmitted.size() - readmittedNow[0]);
  }

  /**
   * Under {@link #lock}, before the reclaim advances the tail: true if the buffer holds a newer version of
   * the readmitted object's key (the only place a put can have logged one while this reclaim held {@link
   * #ioLock}); it then leaves the log instead, shadowed, so the readmission never puts an older version in
   * front of it. (After the tail advances, the reclaimed page's position may be the buffer's.)
   */
  private boolean newerInBuffer(Readmit r) {
    for (int id : index.slots(r.set, index.tag(r.entry.keyHash()))) {
      if (inBuffer(id / OBJECTS_PER_PAGE) && Arrays.equals(buffer.get(id % OBJECTS_PER_PAGE).key(), r.entry.key())) {
        return true;
      }
    }
    return false;
  }

  private record Readmit(int set, int slot, Entry entry) {}

  /** True if dropping these objects could uncover an older version of one of their keys in the set. */
  private boolean needsMove(int set, List<Integer> ids, Map<Long, Page> loaded) {
    for (int id : ids) {
      Entry e = entryAt(id, loaded);
      if (!shadowed(set, id, e, loaded) && sets.mightContain(e.keyHash())) {
        forcedMoves.increment();
        return true;
      }
    }
    return false;
  }

  /** True if a newer log object of the set holds the same key as {@code e} (slot {@code id}). */
  private boolean shadowed(int set, int id, Entry e, Map<Long, Page> loaded) {
    for (int other : locked(() -> index.slots(set, index.tag(e.keyHash())))) {
      if (other == id) {
        return false; // newest first: the rest are older
      }
      Entry newer = entryAt(other, loaded);
      if (newer != null && Arrays.equals(newer.key(), e.key())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Under {@link #ioLock}: {@link #moveSet}s these sets, on the {@link #ioThreads} as well as this
   * one, so their set pages are read and written several at a time (each move a read and a write of its
   * own set's page, most of a reclaim's time once the log pages are prefetched). Moves of different sets
   * touch nothing in common but the index (under {@code lock}), the page cache {@code loaded} (a
   * concurrent map) and the region's buffer pool (each read its own buffer); each keeps its own order
   * (insert, then unlink). Returns when every move has ended; the
   * first Error or RuntimeException of one is thrown then, as a move on this thread would have been.
   */
  private void moveSets(List<Integer> toMove, Map<Long, Page> loaded) {
    java.util.concurrent.ExecutorService pool = ioThreads;
    List<java.util.concurrent.Future<?>> running = new ArrayList<>();
    Throwable failed = null;
    for (int i = 0; i < toMove.size(); i++) {
      int set = toMove.get(i);
      if (pool != null && i < toMove.size() - 1) { // the last one on this thread
        try {
          running.add(pool.submit(() -> {
            moveSet(set, loaded);
            movesAside.increment();
          }));
          continue;
        } catch (java.util.concurrent.RejectedExecutionException closed) {
          // the tier is closing: this thread moves it
        }
      }
      try {
        moveSet(set, loaded);
      } catch (RuntimeException | Error e) {
        failed = failed == null ? e : failed;
      }
    }
    boolean interrupted = false;
    for (java.util.concurrent.Future<?> f : running) {
      while (true) { // every move ends before the reclaim goes on: they use the state ioLock guards
        try {
          f.get();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (java.util.concurrent.ExecutionException e) {
          failed = failed == null ? e.getCause() : failed;
          break;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (failed instanceof Error e) {
      throw e;
    }
    if (failed instanceof RuntimeException e) {
      throw e;
    }
  }

  /**
   * Moves the set's log objects into the set with one insert (the newest version of each key), then
   * unlinks them: a lookup in between finds them in the log, never an older version in the set. Objects
   * that cannot be read make the set drop everything first (one of them may be a newer version).
   */
  private void moveSet(int set, Map<Long, Page> loaded) {
    Map<ByteKey, Entry> newest = new LinkedHashMap<>();
    boolean lost = false;
    int[] chain = locked(() -> index.slots(set, -1));
    for (int id : chain) {
      Entry e = entryAt(id, loaded);
      if (e == null) {
        lost = true;
      } else {
        newest.merge(new ByteKey(e.key()), e, (a, b) -> a.sequence() >= b.sequence() ? a : b);
      }
    }
    if (lost) {
      sets.drop(set);
      newest.clear(); // an unread object may be a newer version of a key read here
    }
    List<Entry> victims = new ArrayList<>();
    if (!newest.isEmpty()) {
      newest.keySet().forEach(k -> relocated(k.bytes()));
      sets.insert(set, new ArrayList<>(newest.values()), victims);
      objectsMoved.add(newest.size());
    }
    unlink(set, Arrays.stream(chain).boxed().toList());
    setMoves.increment();
    victims.removeIf(v -> locked(() -> index.slots(set, index.tag(v.keyHash())).length > 0)); // logged again since
    evicted(victims);
  }

  /** The entries at {@code ids} (slots of {@code set}) that no newer log object of their key shadows. */
  private List<Entry> unshadowed(int set, List<Integer> ids, Map<Long, Page> loaded) {
    List<Entry> out = new ArrayList<>(ids.size());
    for (int id : ids) {
      Entry e = entryAt(id, loaded);
      if (e != null && !shadowed(set, id, e, loaded)) {
        out.add(e);
      }
    }
    return out;
  }

  /**
   * Counts the objects that left the engine for room and queues them for {@link #onEvicted}, which {@link
   * #unlockIo} tells once the log's I/O lock is released (a listener run on the evicting thread may call
   * the cache, whose removes take that lock).
   */
  private void evicted(List<Entry> gone) {
    objectsEvicted.add(gone.size());
    if (tellEvictions) {
      toTell.addAll(gone);
    }
  }

  /** Releases {@link #ioLock}; once this thread holds it no more, tells the evictions queued meanwhile. */
  private void unlockIo() {
    ioLock.unlock();
    if (!ioLock.isHeldByCurrentThread() && !toTell.isEmpty()) {
      java.util.function.Consumer<Entry> sink = onEvicted;
      for (Entry e; (e = toTell.poll()) != null; ) {
        try {
          sink.accept(e);
        } catch (Throwable t) { // the sink hands events to the listener's executor; never the engine's fault
          sinkFailures.increment();
        }
      }
    }
  }


  /**
   * The object in slot {@code id}, from the buffer or its log page (cached in {@code loaded}); null if
   * unreadable. Under {@link #ioLock} (log pages do not change under it).
   */
  private Entry entryAt(int id, Map<Long, Page> loaded) {
    int pos = id / OBJECTS_PER_PAGE;
    int index = id % OBJECTS_PER_PAGE;
    long number;
    lock.lock();
    try {
      if (inBuffer(pos)) {
        return buffer.get(index);
      }
      number = pageNumber(pos);
    } finally {
      lock.unlock();
    }
    Page page = loaded.computeIfAbsent(number, n -> readPage(pos, n));
    return page == null || index >= page.entries().size() ? null : page.entries().get(index);
  }

  /**
   * Under {@link #ioLock}: reads the log pages holding these slots into {@code loaded} at once, on the
   * {@link #ioThreads} (a reclaim's moves read the other pages holding their sets' objects, one device read
   * each: the bulk of its time, and the device serves several at a time). Only a cache: a page it cannot
   * read is left out, and {@link #entryAt} reads it again, counting the error, as without it; every page
   * read is kept, whatever the other reads did. A read that threw other than an IOException (an Error, a
   * RuntimeException: nothing else will see it) is counted in {@link #ioErrors}.
   */
  private void prefetch(List<Integer> ids, Map<Long, Page> loaded) {
    java.util.concurrent.ExecutorService pool = ioThreads;
    if (pool == null) {
      return;
    }
    Map<Long, Integer> wanted = new LinkedHashMap<>(); // page number -> ring position
    locked(() -> {
      for (int id : ids) {
        int pos = id / OBJECTS_PER_PAGE;
        if (!inBuffer(pos)) {
          long number = pageNumber(pos);
          if (!loaded.containsKey(number)) {
            wanted.put(number, pos);
          }
        }
      }
    });
    if (wanted.size() < 2) {
      return;
    }
    List<java.util.concurrent.Callable<Page>> reads = new ArrayList<>();
    wanted.forEach((number, pos) -> reads.add(() -> {
      try {
        return readPageUncounted(pos, number);
      } catch (IOException e) {
        return null; // entryAt reads it again and counts the error
      }
    }));
    List<java.util.concurrent.Future<Page>> done;
    try {
      done = pool.invokeAll(reads);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      return; // a closed pool: entryAt reads what is missing
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    int i = 0;
    for (long number : wanted.keySet()) {
      Page page = prefetched(done.get(i++));
      if (page != null) {
        loaded.put(number, page);
        prefetchedPages.increment();
      }
    }
  }

  /** The page a prefetch read (invokeAll has ended it), or null; a read that threw is counted. */
  private Page prefetched(java.util.concurrent.Future<Page> read) {
    try {
      return read.get();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.CancellationException e) {
      ioErrors.increment(); // entryAt reads the page again
      return null;
    } catch (InterruptedException e) { // not reached: the read has ended
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /**
   * Tells {@code sink} of every object that leaves the engine for room from now on: a log object a reclaim
   * drops (not readmitted, no newer version of its key in the log), a set object a rewrite evicts by RRIP
   * (the key not logged again meanwhile). Called on the thread that reclaimed, after it released every lock
   * of the log; a Throwable of the sink is counted ({@link #sinkFailures}) and goes no further.
   */
  void onEvicted(java.util.function.Consumer<Entry> sink) {
    onEvicted = java.util.Objects.requireNonNull(sink, "sink");
    tellEvictions = true;
  }

  /** Threads for {@link #prefetch} and {@link #moveSets} (null: the reclaim does both on its own thread); the tier owns them. */
  void ioThreads(java.util.concurrent.ExecutorService pool) {
    this.ioThreads = pool;
  }

  /**
   * Page {@code number} at {@code pos}, read into a page buffer of the region's pool held for this read
   * alone (any thread: the reclaim's, a mover's, a prefetch's); null if it is not that page (damaged,
   * overwritten) or no direct memory was left for the buffer (counted by the region).
   */
  private Page readPageUncounted(int pos, long number) throws IOException {
    ByteBuffer buffer = sets.acquireWriterOrNull();
    if (buffer == null) {
      return null;
    }
    try {
      device.read(slotOf(pos), offsetOf(pos), SmallSets.whole(buffer));
      Page page = SmallSetPage.decode(buffer, pos, epoch); // copies the entries out of the buffer
      return page == null || page.generation() != number ? null : page;
    } finally {
      sets.releaseWriter(buffer);
    }
  }

  /** Under {@link #ioLock}: log page {@code number} at ring position {@code pos}, or null (a read error counted). */
  private Page readPage(int pos, long number) {
    try {
      return readPageUncounted(pos, number);
    } catch (IOException e) {
      ioErrors.increment();
      return null;
    }
  }

  private void unlink(int set, List<Integer> ids) {
    locked(() -> {
      for (int id : ids) {
        index.remove(set, id);
      }
      unlinks++;
    });
  }

  /**
   * The page number on flash at ring position {@code pos}: the one of [tailPage, bufferPage) at that
   * position (no DRAM per page: the ring is written in order and a failed write does not advance it).
   */
  private long pageNumber(int pos) {
    return tailPage + Math.floorMod(pos - position(tailPage), pages);
  }

  /**
   * True if ring position {@code pos} is the write buffer's. Not while the ring is full: between a flush
   * and the reclaim it triggers, the position belongs to the oldest page on flash.
   */
  private boolean inBuffer(int pos) {
    return pos == position(bufferPage) && bufferPage - tailPage < pages;
  }

  private int position(long pageNumber) {
    return (int) (pageNumber % pages);
  }

  private int slotOf(int pos) {
    return firstSlot + pos / pagesPerSlot;
  }

  private long offsetOf(int pos) {
    return (long) (pos % pagesPerSlot) * SmallSetPage.PAGE_BYTES;
  }
}
