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
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * The set region of the small-object engine: a set-associative flash cache in which a key's hash names
 * one 4 KiB page (its set) over a range of {@link Device} slots, and DRAM keeps only a Bloom filter, 32
 * hit bits and an object count per set (25 B by default), no per-object pointer (Kangaroo's KSet, SOSP
 * 2021; CacheLib navy's BigHash). A lookup is a filter check and at most one aligned page read; an insert
 * is a read-modify-write of one page that carries a batch of new objects and evicts by RRIP
 * ({@link SmallSetEviction}).
 *
 * <p>Contract: {@link #get} returns the newest value a completed {@link #insert} or {@link #put} wrote for
 * the key, or null (a miss is always allowed: evicted, damaged page, read error, contention). Once
 * {@link #put} or {@link #remove} of a key returns, no older version of it is served, even if the device
 * write failed (the set is then poisoned: empty until its next successful rewrite). A region opens with
 * a new epoch and treats pages of earlier epochs as empty (a cold but correct start), or, after a clean
 * close, with the epoch and DRAM state {@link #save}d then ({@link SmallTier}).
 *
 * <p><b>Concurrency.</b> Thread-safe. Writers of a set hold its stripe lock ({@code locks[set % stripes]};
 * one lock at a time, no lock order to keep). Lookups take no lock: each stripe has a sequence counter
 * (a seqlock) that writers make odd for the page write and the filter rebuild and even after; a lookup
 * serves what it read only if the counter was even and unchanged across its read, else it reads again (up
 * to {@value #READ_ATTEMPTS} times, then misses). So a lookup never returns a version that a
 * rewrite completed before the lookup's page read returned had replaced or removed. Page buffers come from
 * one bounded {@link ReadBuffers} pool (a thread holds one at a time, writers take theirs before the lock);
 * with no direct memory left a lookup misses and a writer drops the set, counted.
 *
 * <p><b>Format.</b> {@link SmallSetPage}. Set {@code s} lives in slot {@code firstSlot + s / setsPerSlot}
 * at offset {@code (s % setsPerSlot) * 4096}.
 *
 * <p><b>Reclaim.</b> None: a set evicts inside its own page on every rewrite (RRIP), so the region never
 * grows and needs no garbage collection; expired entries leave at the next rewrite.
 */
final class SmallSets implements SmallStore {
  static final int READ_ATTEMPTS = 4;

  /** Where a test may stop a thread ({@link Probe}). */
  enum Point {
    /** A lookup has read its page and not yet checked it. */
    LOOKUP_READ,
    /** A writer holds the set's lock and has built the new page, not yet written. */
    BEFORE_PAGE_WRITE,
    /** A log reclaim has chosen the objects it readmits, not yet relinked (set = their count). */
    RECLAIM_READMIT
  }

  /** Test seam, in the style of CacheLib's SeqPoints: called at each {@link Point}. */
  @FunctionalInterface
  interface Probe {
    Probe NONE = (point, set) -> { };

    void at(Point point, int set);
  }

  /**
   * Immutable options; {@link #validate} names the bad field.
   *
   * @param bloomBitsPerSet Bloom filter bits per set, a multiple of 32 (default 160: 20 B per set, in
   *     theory a false-positive read for 8.5% of absent keys at the 31 objects of 100 B with 24 B keys a
   *     page holds; 128 bits: 14%)
   * @param bloomHashes hash functions of each filter (default 4, the best k for 160 bits and 31 objects)
   * @param lockStripes writer locks and seqlock counters (default 1024)
   * @param readBuffers page buffers shared by every thread (default 16), each 8 KiB of direct memory
   * @param clock epoch milliseconds, for expiry
   */
  record Options(int bloomBitsPerSet, int bloomHashes, int lockStripes, int readBuffers, LongSupplier clock) {
    static final Options DEFAULT = new Options(160, 4, 1024, 16, System::currentTimeMillis);

    Options validate() {
      if (bloomBitsPerSet <= 0 || bloomBitsPerSet % Integer.SIZE != 0) {
        throw new IllegalArgumentException("bloomBitsPerSet must be a positive multiple of 32: " + bloomBitsPerSet);
      }
      if (bloomHashes < 1 || bloomHashes > 16) {
        throw new IllegalArgumentException("bloomHashes must be 1..16: " + bloomHashes);
      }
      if (lockStripes < 1) {
        throw new IllegalArgumentException("lockStripes must be > 0: " + lockStripes);
      }
      if (readBuffers < 1) {
        throw new IllegalArgumentException("readBuffers must be > 0: " + readBuffers);
      }
      if (clock == null) {
        throw new IllegalArgumentException("clock must not be null");
      }
      return this;
    }
  }

  private final Device device;
  private final int firstSlot;
  private final int setsPerSlot;
  private final int sets;
  private final long epoch;
  private final LongSupplier clock;
  private final SmallSetBloom bloom;
  private final SmallSetHits hitBits;
  /** Writer locks; a thread holds at most one. */
  private final ReentrantLock[] locks;
  /** Seqlock counters, one per lock stripe: odd while a writer of the stripe publishes a page. */
  private final AtomicLongArray versions;
  /**
   * Objects in each set's page (at most {@link SmallSetPage#MAX_ENTRIES}, which merges keep to), guarded by
   * the set's lock: exact entry counts.
   */
  private final byte[] counts;
  /** Sets whose last write failed: empty (lookups miss, the next insert starts from nothing). */
  private final Set<Integer> poisoned = ConcurrentHashMap.newKeySet();
  private final SmallSetCounters counters = new SmallSetCounters();
  /** Page buffers for lookups and key scans, bounded in total; a thread holds at most one at a time. */
  private final ReadBuffers buffers;
  /**
   * Page buffers of the writers (set rewrites and removes) and of the log's reads for its reclaim, moves,
   * prefetches and removes: {@value #WRITER_BUFFERS}, one for each thread that does them (the reclaimer,
   * its {@value SmallTier#IO_THREADS} I/O threads, the remover), so the reclaim never waits behind lookups.
   */
  private final ReadBuffers writerBuffers;
  static final int WRITER_BUFFERS = SmallTier.IO_THREADS + 2;
  /** Per slot of the region, true once its file is known to be allocated ({@link #allocated}). */
  private final boolean[] slotsAllocated;
  private volatile Probe probe = Probe.NONE;

  /**
   * A region of every set page in slots {@code [firstSlot, firstSlot + slotCount)} of {@code device}, with
   * a fresh epoch: whatever those slots hold from an earlier open reads as empty.
   */
  SmallSets(Device device, int firstSlot, int slotCount, Options options) {
    this(device, firstSlot, slotCount, options, null);
  }

  /**
   * The DRAM state of a region saved at a clean close ({@link #writeTo}) and read back ({@link #readFrom}) for
   * a warm open: the epoch its pages carry, the filters, the object counts and the poisoned sets (their pages
   * may hold superseded versions). The region adopts the filters and counts (no copy).
   */
  record Saved(long epoch, SmallSetBloom bloom, byte[] counts, int[] poisoned) {}

  /**
   * As above; with {@code restored} non-null the region takes over that saved state (the same slots of the
   * same device, unchanged since the save) instead of drawing a new epoch.
   */
  SmallSets(Device device, int firstSlot, int slotCount, Options options, Saved restored) {
    options.validate();
    if (firstSlot < 0 || slotCount <= 0 || (long) firstSlot + slotCount > device.slotCount()) {
      throw new IllegalArgumentException("slot range [" + firstSlot + ", " + firstSlot + "+" + slotCount
          + ") must lie within the device's " + device.slotCount() + " slots");
    }
    long perSlot = device.slotBytes() / SmallSetPage.PAGE_BYTES;
    long total = perSlot * slotCount;
    if (perSlot == 0 || total > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("the region must hold 1..2^31-1 sets: " + total);
    }
    this.device = device;
    this.firstSlot = firstSlot;
    this.setsPerSlot = (int) perSlot;
    this.sets = (int) total;
    this.epoch = restored == null ? new SecureRandom().nextLong() : restored.epoch();
    this.clock = options.clock();
    if (restored != null && (restored.counts().length != sets || restored.bloom().sets() != sets
        || restored.bloom().bitsPerSet() != options.bloomBitsPerSet() || restored.bloom().hashes() != options.bloomHashes())) {
      throw new IllegalArgumentException("saved state of " + restored.counts().length + " sets (filters of "
          + restored.bloom().sets() + " sets, " + restored.bloom().bitsPerSet() + " bits, "
          + restored.bloom().hashes() + " hashes) does not fit a region of " + sets + " sets, " + options);
    }
    this.bloom = restored != null ? restored.bloom()
        : new SmallSetBloom(sets, options.bloomBitsPerSet(), options.bloomHashes());
    this.hitBits = new SmallSetHits(sets);
    this.counts = restored != null ? restored.counts() : new byte[sets];
    int stripes = Math.min(options.lockStripes(), sets);
    this.locks = new ReentrantLock[stripes];
    for (int i = 0; i < stripes; i++) {
      locks[i] = new ReentrantLock();
    }
    this.versions = new AtomicLongArray(stripes);
    this.buffers = new ReadBuffers(options.readBuffers(), SmallSetPage.PAGE_BYTES);
    this.writerBuffers = new ReadBuffers(WRITER_BUFFERS, SmallSetPage.PAGE_BYTES);
    this.slotsAllocated = new boolean[slotCount];
    if (restored != null) {
      long entries = 0;
      for (byte c : counts) {
        entries += Byte.toUnsignedInt(c);
      }
      counters.entries.add(entries);
      for (int set : restored.poisoned()) {
        poisoned.add(set);
      }
    }
  }

  /**
   * Writes the region's DRAM state for a warm open, streamed from the live filters and counts: the epoch
   * (long), the filter words ({@link SmallSetBloom#writeTo}), the counts (int count, bytes) and the poisoned
   * sets (int count, ints). Call with no other call running (close): the state is then that of the pages on
   * the device. Hit bits are not kept (eviction hints: the first rewrite of each set after the open ranks
   * its objects as unread).
   */
  void writeTo(SmallCheckpoint.Out out) throws IOException {
    out.writeLong(epoch);
    bloom.writeTo(out);
    out.writeInt(counts.length);
    out.write(counts);
    Integer[] bad = poisoned.toArray(new Integer[0]); // at most one per set, almost always none
    out.writeInt(bad.length);
    for (int set : bad) {
      out.writeInt(set);
    }
  }

  /** Reads what {@link #writeTo} wrote for a region of {@code sets} sets, validating every count and set. */
  static Saved readFrom(SmallCheckpoint.In in, int sets, int bloomBitsPerSet, int bloomHashes) throws IOException {
    long epoch = in.readLong();
    SmallSetBloom bloom = SmallSetBloom.readFrom(in, sets, bloomBitsPerSet, bloomHashes);
    int n = in.readInt();
    if (n != sets) {
      throw new IOException("counts of " + n + " sets, the region has " + sets);
    }
    byte[] counts = new byte[sets];
    in.readFully(counts);
    int bad = in.readInt();
    if (bad < 0 || bad > sets) {
      throw new IOException(bad + " poisoned sets of " + sets);
    }
    int[] poisoned = new int[bad];
    for (int i = 0; i < bad; i++) {
      poisoned[i] = in.readInt();
      if (poisoned[i] < 0 || poisoned[i] >= sets) {
        throw new IOException("poisoned set " + poisoned[i] + " out of 0.." + (sets - 1));
      }
    }
    return new Saved(epoch, bloom, counts, poisoned);
  }

  /** The region's page buffers, for the log in front of it. */
  ReadBuffers buffers() {
    return buffers;
  }

  /** {@code b}'s first page, cleared: what a page read or write transfers (pool buffers are larger). */
  static ByteBuffer whole(ByteBuffer b) {
    return b.clear().limit(SmallSetPage.PAGE_BYTES);
  }

  int sets() {
    return sets;
  }

  int setOf(long keyHash) {
    return (int) Long.remainderUnsigned(keyHash, sets);
  }

  long nowMillis() {
    return clock.getAsLong();
  }

  /** False if no version of the key can be in its set (the filter has no false negatives). */
  boolean mightContain(long keyHash) {
    return bloom.mightContain(setOf(keyHash), keyHash);
  }

  /** Makes every object of {@code set} unreachable (poisons it) without I/O: for callers that lost track. */
  void drop(int set) {
    ReentrantLock lock = locks[set % locks.length];
    lock.lock();
    try {
      publishPoisonLocked(set);
    } finally {
      lock.unlock();
    }
  }

  SmallSetBloom bloom() {
    return bloom;
  }

  SmallSetCounters.Snapshot stats() {
    return counters.snapshot();
  }

  /** DRAM that grows with the region: filters, hit bits, object counts (locks are a constant). */
  long dramBytes() {
    return bloom.bytes() + hitBits.bytes() + counts.length;
  }

  void probe(Probe p) {
    probe = p;
  }

  /** Sets per slot file: {@link #keysOf} reads at most these in one call. */
  int setsPerSlot() {
    return setsPerSlot;
  }

  /**
   * Adds to {@code out} the keys of the unexpired objects in sets {@code [from, to)} (within one slot;
   * {@code chunk} holds them all), read with one device read. A page a writer published meanwhile (its
   * stripe's seqlock moved) is read again alone, as a lookup would; a poisoned set or a page that does
   * not verify adds nothing (it serves nothing either).
   *
   * @throws IOException if a read fails: the caller cannot know these sets' keys
   */
  void keysOf(int from, int to, ByteBuffer chunk, List<byte[]> out) throws IOException {
    int slot = firstSlot + from / setsPerSlot;
    if (from < 0 || to > sets || from >= to || (to - 1) / setsPerSlot != from / setsPerSlot
        || (long) (to - from) * SmallSetPage.PAGE_BYTES > chunk.capacity()) {
      throw new IllegalArgumentException("sets [" + from + ", " + to + ") are not within one slot and the chunk");
    }
    if (!allocated(slot)) {
      return; // never written
    }
    long[] before = new long[to - from];
    for (int set = from; set < to; set++) {
      before[set - from] = versions.get(set % locks.length);
    }
    chunk.clear().limit((to - from) * SmallSetPage.PAGE_BYTES);
    device.read(slot, (long) (from % setsPerSlot) * SmallSetPage.PAGE_BYTES, chunk);
    long now = clock.getAsLong();
    for (int set = from; set < to; set++) {
      long v = before[set - from];
      Page page;
      if ((v & 1) == 0 && versions.get(set % locks.length) == v) {
        page = SmallSetPage.decode(chunk.slice((set - from) * SmallSetPage.PAGE_BYTES, SmallSetPage.PAGE_BYTES),
            set, epoch);
      } else {
        page = pageAgain(set);
      }
      if (page != null && !poisoned.contains(set)) {
        for (Entry e : page.entries()) {
          if (!e.expired(now)) {
            out.add(e.key());
          }
        }
      }
    }
  }

  /** The set's page read alone under its seqlock (a writer published it during a chunk read), or null. */
  private Page pageAgain(int set) throws IOException {
    ByteBuffer page = acquireOrNull(counters.outOfMemory);
    if (page == null) {
      throw new IOException("no direct memory for a page buffer");
    }
    try {
      return switch (readStable(set, page, counters.writeReads, counters.outOfMemory, READ_ATTEMPTS * 4)) {
        case STABLE -> SmallSetPage.decode(page, set, epoch);
        case POISONED -> null;
        case ERROR -> throw new IOException("cannot read set " + set);
        case UNSTABLE -> throw new IOException("set " + set + " kept being rewritten during the key scan");
      };
    } finally {
      buffers.release(page);
    }
  }


  /** The newest value of {@code key} in its set, or null. One device read at most per attempt. */
  @Override
  public Entry lookup(byte[] key) {
    counters.lookups.increment();
    long hash = KeyHash.of(key);
    int set = setOf(hash);
    if (!bloom.mightContain(set, hash)) {
      counters.bloomRejects.increment();
      return null;
    }
    ByteBuffer page = acquireOrNull(counters.lookupOutOfMemory);
    if (page == null) {
      return null;
    }
    try {
      return lookUp(set, key, page);
    } finally {
      buffers.release(page);
    }
  }

  private Entry lookUp(int set, byte[] key, ByteBuffer page) {
    return readStable(set, page, counters.pageReads, counters.lookupOutOfMemory, READ_ATTEMPTS) == Read.STABLE
        ? served(set, SmallSetPage.find(page, set, epoch, key), page) : null;
  }

  /** What {@link #readStable} did. */
  private enum Read { STABLE, POISONED, ERROR, UNSTABLE }

  /**
   * Reads the set's page into {@code page} (a buffer of the caller's) inside its stripe's seqlock: STABLE
   * if no writer of the stripe published during the read, else it reads again, up to {@code attempts}
   * times (UNSTABLE); POISONED and ERROR (counted: a read error, or in {@code oom} no direct memory for the
   * read) read nothing usable.
   */
  private Read readStable(int set, ByteBuffer page, java.util.concurrent.atomic.LongAdder reads,
      java.util.concurrent.atomic.LongAdder oom, int attempts) {
    int stripe = set % locks.length;
    for (int attempt = 0; attempt < attempts; attempt++) {
      long before = versions.get(stripe);
      if (poisoned.contains(set)) {
        return Read.POISONED;
      }
      if (!readPage(set, page, reads, oom)) {
        return Read.ERROR;
      }
      probe.at(Point.LOOKUP_READ, set);
      if ((before & 1) == 0 && versions.get(stripe) == before) {
        return Read.STABLE;
      }
      counters.readRetries.increment();
    }
    return Read.UNSTABLE;
  }


  /**
   * A page buffer of the writers' pool ({@link #writerBuffers}: give it back with {@link #releaseWriter}), or
   * null (counted as a writer's out-of-memory) if direct memory is exhausted. The log in front of the region
   * reads its pages for reclaim, moves, prefetches and removes into these too: the reclaim, which holds the
   * log's I/O lock, never waits behind the lookups for a buffer.
   */
  ByteBuffer acquireWriterOrNull() {
    try {
      return writerBuffers.acquire(SmallSetPage.PAGE_BYTES);
    } catch (OutOfMemoryError e) {
      counters.outOfMemory.increment();
      return null;
    }
  }

  void releaseWriter(ByteBuffer b) {
    writerBuffers.release(b);
  }

  /** A page buffer of the lookups' pool, or null (counted in {@code oom}) if direct memory is exhausted. */
  private ByteBuffer acquireOrNull(java.util.concurrent.atomic.LongAdder oom) {
    try {
      return buffers.acquire(SmallSetPage.PAGE_BYTES);
    } catch (OutOfMemoryError e) {
      oom.increment();
      return null;
    }
  }

  private Entry served(int set, Found found, ByteBuffer page) {
    if (found == SmallSetPage.DAMAGED) {
      countIfDamaged(page);
      return null;
    }
    if (found == null) {
      counters.bloomFalsePositiveReads.increment();
      return null;
    }
    if (found.entry().expired(clock.getAsLong())) {
      return null;
    }
    hitBits.mark(set, found.position());
    counters.hits.increment();
    return found.entry();
  }

  /**
   * True if the slot's file holds its pages (it was written). Asked of the device (a file-size check, a
   * system call) only until it first says so: a slot stays allocated, so lookups pay nothing for it after.
   */
  private boolean allocated(int slot) {
    int i = slot - firstSlot;
    if (slotsAllocated[i]) {
      return true;
    }
    boolean now = device.allocated(slot);
    if (now) {
      slotsAllocated[i] = true; // a racy publication is fine: another thread at worst asks the device again
    }
    return now;
  }

  /**
   * Fills {@code page} with set {@code set}'s page, counted in {@code reads}; false (counted) on a read error,
   * or (counted in {@code oom}) when the read found no direct memory (the JDK's own buffer for it).
   */
  private boolean readPage(int set, ByteBuffer page, java.util.concurrent.atomic.LongAdder reads,
      java.util.concurrent.atomic.LongAdder oom) {
    int slot = firstSlot + set / setsPerSlot;
    if (!allocated(slot)) { // never written: nothing to read
      page.clear();
      page.putInt(0, 0);
      return true;
    }
    try {
      reads.increment();
      device.read(slot, (long) (set % setsPerSlot) * SmallSetPage.PAGE_BYTES, whole(page));
      return true;
    } catch (IOException e) {
      counters.readErrors.increment();
      return false;
    } catch (OutOfMemoryError e) { // no direct memory for the read: the device is fine
      oom.increment();
      return false;
    }
  }

  /** Inserts one object (a batch of one); see {@link #insert}. */
  @Override
  public boolean put(byte[] key, byte[] value, long sequence, long expiryMillis) {
    Entry e = Entry.of(key, value, sequence, expiryMillis);
    return insert(setOf(e.keyHash()), List.of(e));
  }

  /**
   * Merges {@code batch} (entries of set {@code set}, distinct keys) into the set's page with one
   * read-modify-write, evicting by RRIP what does not fit. True if the page was written; false if the
   * write failed, in which case the set is empty until its next successful rewrite (no older version of a
   * batch key stays reachable either way).
   */
  boolean insert(int set, List<Entry> batch) {
    return insert(set, batch, new ArrayList<>());
  }

  /** As {@link #insert(int, List)}, adding to {@code victims} the entries the rewrite evicted for room. */
  boolean insert(int set, List<Entry> batch, List<Entry> victims) {
    for (Entry e : batch) {
      if (setOf(e.keyHash()) != set) {
        throw new IllegalArgumentException("entry of set " + setOf(e.keyHash()) + " in a batch for set " + set);
      }
    }
    ByteBuffer page = acquireWriterOrNull();
    if (page == null) {
      drop(set); // no rewrite possible: no older version of a batch key may stay reachable
      counters.objectsLost.add(batch.size());
      return false;
    }
    ReentrantLock lock = locks[set % locks.length];
    lock.lock();
    try {
      for (Entry e : batch) {
        bloom.addLocked(set, e.keyHash()); // before the page holds them: no false negative at any time
      }
      Page old = currentPageLocked(set, page);
      SmallSetEviction.Result merged = SmallSetEviction.merge(
          old.entries(), hitBits.takeLocked(set), batch, clock.getAsLong(), SmallSetPage.CAPACITY_BYTES);
      boolean written = rewriteLocked(set, old, merged.kept(), page);
      if (written) {
        counters.objectsInserted.add(batch.size() - merged.stale());
        counters.evicted.add(merged.evicted());
        counters.expired.add(merged.expired());
        victims.addAll(merged.victims());
      } else {
        counters.objectsLost.add(batch.size() - merged.stale()); // the set's own objects: poisonLocked
      }
      return written;
    } finally {
      lock.unlock();
      writerBuffers.release(page);
    }
  }

  /**
   * Makes {@code key} unreachable in its set: rewrites the page without it, or, if the page cannot be
   * read, fails its check (a damaged page, counted) or cannot be written, poisons the set. True if a
   * version was found and removed.
   */
  @Override
  public boolean remove(byte[] key) {
    long hash = KeyHash.of(key);
    int set = setOf(hash);
    if (!bloom.mightContain(set, hash)) {
      return false;
    }
    ByteBuffer page = acquireWriterOrNull();
    if (page == null) {
      drop(set);
      return false;
    }
    ReentrantLock lock = locks[set % locks.length];
    lock.lock();
    try {
      if (poisoned.contains(set)) {
        return false;
      }
      if (!readPage(set, page, counters.writeReads, counters.outOfMemory)) { // the key may be there: drop the set
        publishPoisonLocked(set);
        return false;
      }
      Page old = SmallSetPage.decode(page, set, epoch);
      if (old == null) { // bytes that fail their check (CRC, epoch, set id): a clean read may still serve the key
        counters.damagedPages.increment();
        publishPoisonLocked(set);
        return false;
      }
      List<Entry> kept = new ArrayList<>(old.entries().size());
      for (Entry e : old.entries()) {
        if (e.keyHash() != hash || !Arrays.equals(e.key(), key)) {
          kept.add(e);
        }
      }
      if (kept.size() == old.entries().size()) {
        return false;
      }
      hitBits.takeLocked(set);
      rewriteLocked(set, old, kept, page);
      counters.removed.increment();
      return true;
    } finally {
      lock.unlock();
      writerBuffers.release(page);
    }
  }

  /** The set's verified page of this epoch, or an empty one (never written, poisoned, unreadable, damaged). */
  private Page currentPageLocked(int set, ByteBuffer page) {
    if (poisoned.contains(set) || !readPage(set, page, counters.writeReads, counters.outOfMemory)) {
      return Page.EMPTY;
    }
    Page old = SmallSetPage.decode(page, set, epoch);
    if (old == null) {
      countIfDamaged(page);
      return Page.EMPTY;
    }
    return old;
  }

  /**
   * Counts a page that failed verification as damaged if it is of this region's epoch: a page of an earlier
   * one (before a clear, a cold open) is simply empty, as is a slot's never-written zeros.
   */
  private void countIfDamaged(ByteBuffer page) {
    if (SmallSetPage.ofEpoch(page, epoch)) {
      counters.damagedPages.increment();
    }
  }

  /**
   * Writes {@code entries} as the set's page and publishes it (filter rebuild) inside the stripe's
   * seqlock; on a write error poisons the set. True if written.
   */
  private boolean rewriteLocked(int set, Page old, List<Entry> entries, ByteBuffer page) {
    SmallSetPage.encode(page, set, epoch, old.generation() + 1, entries);
    probe.at(Point.BEFORE_PAGE_WRITE, set);
    int stripe = set % locks.length;
    versions.incrementAndGet(stripe); // odd: lookups of this stripe that overlap retry
    try {
      int slot = firstSlot + set / setsPerSlot;
      device.write(slot, (long) (set % setsPerSlot) * SmallSetPage.PAGE_BYTES, whole(page));
      long[] hashes = new long[entries.size()];
      for (int i = 0; i < hashes.length; i++) {
        hashes[i] = entries.get(i).keyHash();
      }
      bloom.rebuildLocked(set, hashes, hashes.length);
      poisoned.remove(set);
      counters.setRewrites.increment();
      counters.pageBytesWritten.add(SmallSetPage.PAGE_BYTES);
      counters.entries.add(entries.size() - Byte.toUnsignedInt(counts[set]));
      counts[set] = (byte) entries.size();
      return true;
    } catch (IOException e) {
      counters.writeErrors.increment();
      poisonLocked(set);
      return false;
    } finally {
      versions.incrementAndGet(stripe);
    }
  }

  /** {@link #poisonLocked} inside the stripe's seqlock, so overlapping lookups retry and see it. */
  private void publishPoisonLocked(int set) {
    int stripe = set % locks.length;
    versions.incrementAndGet(stripe);
    try {
      poisonLocked(set);
    } finally {
      versions.incrementAndGet(stripe);
    }
  }

  /**
   * The set serves nothing until its next successful rewrite, which starts from an empty page. Caller
   * holds the set's lock and has made the stripe's seqlock counter odd.
   */
  private void poisonLocked(int set) {
    counters.objectsLost.add(Byte.toUnsignedInt(counts[set]));
    poisoned.add(set);
    bloom.clearLocked(set);
    counters.entries.add(-Byte.toUnsignedInt(counts[set]));
    counts[set] = 0;
  }
}
