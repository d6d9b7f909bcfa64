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
 * version is served. Cold at every open (a new epoch; log pages of earlier opens are never read).
 *
 * <p><b>Index (DRAM).</b> Per set a chain, newest first, of the log objects for that set: {@code head[set]}
 * (4 B a set) and, per log object slot, a 32-bit tag of the key hash, the next slot and a live flag (9 B).
 * A slot id is {@code ringPosition * OBJECTS_PER_PAGE + index in page}; a page holds at most
 * {@value #OBJECTS_PER_PAGE} objects. A tag match is confirmed by the full key of the entry at that index
 * (a log page may hold several versions of a key: it is never searched by key). Bigger than Kangaroo's
 * partitioned index; measured in {@code SmallLogTest}.
 *
 * <p><b>Reclaim.</b> When the ring is full, the oldest page is reclaimed: for each set with live objects
 * in it, if the set's chain holds at least {@code threshold} objects, the whole chain moves to the set
 * with one {@link SmallSets#insert} (the newest version of each key); otherwise its objects in that page
 * are dropped, except that a key whose set may hold an older version (the set's filter says maybe) forces
 * the move, so dropping never uncovers an older version. Objects are never re-logged yet. A log page that
 * cannot be read at reclaim drops the sets its objects belong to (found by walking every chain: a rare,
 * slow path); a log page that cannot be written moves its objects' sets at once.
 *
 * <p><b>Concurrency.</b> Thread-safe. One lock guards the index, the write buffer and the ring, and is held
 * across the I/O of flushes, reclaims and removes (a first step: simple and correct, not fast). A lookup
 * holds it only to walk its set's chain and reads the log page outside it; a counter of unlinks lets it
 * notice that a move or remove overlapped its read, and it then looks again. Lock order: this log's lock,
 * then a set's stripe lock (inside {@link SmallSets}).
 *
 * <p><b>Format.</b> Log pages are {@link SmallSetPage} pages whose set id is the ring position and whose
 * generation is the page number (monotonic), so a page overwritten by a later lap reads as another page.
 */
final class SmallLog implements SmallStore {
  static final int OBJECTS_PER_PAGE = 32;
  private static final int NONE = -1;
  private static final int LOOKUP_ATTEMPTS = 4;

  private final Device device;
  private final int firstSlot;
  private final int pagesPerSlot;
  private final int pages;
  private final long epoch;
  private final SmallSets sets;
  private final int threshold;

  /** Guards every field below; held across log and set I/O. Taken before any set lock. */
  private final ReentrantLock lock = new ReentrantLock();
  private final int[] head;
  private final int[] tags;
  private final int[] next;
  /** Per slot: true while the object is linked in its set's chain. */
  private final boolean[] live;
  /** Per ring position: the page number written there. */
  private final long[] pageNumbers;
  /** Page number of the page being filled in DRAM (its position is {@code bufferPage % pages}). */
  private long bufferPage;
  /** Oldest page number on flash; pages [tailPage, bufferPage) are on flash. */
  private long tailPage;
  private final List<Entry> buffer = new ArrayList<>();
  private int bufferBytes;
  private final ByteBuffer io = Device.allocateAligned(SmallSetPage.PAGE_BYTES);
  /** Bumped under the lock by every unlink: a lookup that saw it change looks again. */
  private volatile long unlinks;
  private volatile SmallSets.Probe probe = SmallSets.Probe.NONE;

  final LongAdder bytesAdmitted = new LongAdder();
  final LongAdder logPagesWritten = new LongAdder();
  final LongAdder logHits = new LongAdder();
  final LongAdder setMoves = new LongAdder();
  final LongAdder forcedMoves = new LongAdder();
  final LongAdder objectsMoved = new LongAdder();
  final LongAdder objectsDropped = new LongAdder();
  final LongAdder ioErrors = new LongAdder();

  /** A log of every page in slots {@code [firstSlot, firstSlot + slotCount)} in front of {@code sets}. */
  SmallLog(Device device, int firstSlot, int slotCount, SmallSets sets, int threshold) {
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
    this.epoch = new SecureRandom().nextLong();
    this.sets = sets;
    this.threshold = threshold;
    this.head = new int[sets.sets()];
    Arrays.fill(head, NONE);
    this.tags = new int[pages * OBJECTS_PER_PAGE];
    this.next = new int[pages * OBJECTS_PER_PAGE];
    this.live = new boolean[pages * OBJECTS_PER_PAGE];
    this.pageNumbers = new long[pages];
  }

  /** Test seam: {@link SmallSets.Point#LOOKUP_READ} after a lookup read a log page (set = ring position). */
  void probe(SmallSets.Probe p) {
    probe = p;
  }

  /** DRAM of the log's index (chains, tags, page numbers); the write buffer is one page. */
  long dramBytes() {
    return 4L * head.length + 9L * tags.length + 8L * pageNumbers.length;
  }

  /** Appends one object; its set is rewritten later, with others, when the log reclaims its page. */
  @Override
  public boolean put(byte[] key, byte[] value, long sequence, long expiryMillis) {
    Entry e = Entry.of(key, value, sequence, expiryMillis);
    lock.lock();
    try {
      if (buffer.size() == OBJECTS_PER_PAGE || bufferBytes + e.bytes() > SmallSetPage.CAPACITY_BYTES) {
        flushLocked();
      }
      int id = position(bufferPage) * OBJECTS_PER_PAGE + buffer.size();
      buffer.add(e);
      bufferBytes += e.bytes();
      int set = sets.setOf(e.keyHash());
      tags[id] = tag(e.keyHash());
      next[id] = head[set];
      live[id] = true;
      head[set] = id;
      bytesAdmitted.add(key.length + value.length);
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** The newest value of {@code key}: from the log if it holds one, else from its set. */
  @Override
  public byte[] get(byte[] key) {
    long hash = KeyHash.of(key);
    int set = sets.setOf(hash);
    for (int attempt = 0; attempt < LOOKUP_ATTEMPTS; attempt++) {
      List<long[]> candidates = new ArrayList<>(); // {slot id, page number}, newest first
      long seen;
      lock.lock();
      try {
        seen = unlinks;
        for (int id = head[set]; id != NONE; id = next[id]) {
          if (tags[id] != tag(hash)) {
            continue;
          }
          if (inBuffer(id / OBJECTS_PER_PAGE)) {
            Entry e = buffer.get(id % OBJECTS_PER_PAGE);
            if (Arrays.equals(e.key(), key)) {
              logHits.increment();
              return e.expired(sets.nowMillis()) ? null : e.value().clone(); // the buffer's array stays ours
            }
          } else {
            candidates.add(new long[] {id, pageNumbers[id / OBJECTS_PER_PAGE]});
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
        return found.value;
      }
      return sets.get(key);
    }
    return null;
  }

  /** What a log lookup found: a value (possibly null for expired or unreadable), or AGAIN. */
  private record Lookup(byte[] value) {
    static final Lookup AGAIN = new Lookup(null);
    static final Lookup MISS = new Lookup(null);
  }

  /** Null if no candidate holds the key (look in the set), else the answer. */
  private Lookup lookInLog(List<long[]> candidates, byte[] key, long seen) {
    if (candidates.isEmpty()) {
      return null;
    }
    ByteBuffer page;
    try {
      page = sets.buffers().acquire(SmallSetPage.PAGE_BYTES);
    } catch (OutOfMemoryError e) {
      ioErrors.increment();
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
        device.read(slotOf(pos), offsetOf(pos), SmallSets.whole(page));
      } catch (IOException e) {
        ioErrors.increment();
        return Lookup.MISS; // it may be the newest version: never fall back to an older one
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
        return new Lookup(f.entry().expired(sets.nowMillis()) ? null : f.entry().value());
      }
    }
    return null; // the tags matched other keys only
  }

  /** Makes every version of {@code key} unreachable, in the log and in its set. True if one was found. */
  @Override
  public boolean remove(byte[] key) {
    long hash = KeyHash.of(key);
    int set = sets.setOf(hash);
    lock.lock();
    try {
      boolean found = false;
      boolean lost = false;
      Map<Long, Page> loaded = new HashMap<>();
      for (int id = head[set]; id != NONE; id = next[id]) {
        if (tags[id] == tag(hash)) {
          Entry e = loadLocked(id, loaded);
          if (e == null || Arrays.equals(e.key(), key)) {
            unlinkLocked(set, id);
            found |= e != null;
            lost |= e == null;
          }
        }
      }
      if (lost) {
        sets.drop(set); // an unreadable object may have been this key or shadowed another's older version
      }
      return sets.remove(key) || found;
    } finally {
      lock.unlock();
    }
  }

  /** Writes the buffer as the next log page, then reclaims the oldest page if the ring is full. */
  private void flushLocked() {
    if (buffer.isEmpty()) {
      return;
    }
    int pos = position(bufferPage);
    SmallSetPage.encode(io, pos, epoch, bufferPage, buffer);
    try {
      device.write(slotOf(pos), offsetOf(pos), io.clear());
      logPagesWritten.increment();
      pageNumbers[pos] = bufferPage;
      bufferPage++;
    } catch (IOException e) {
      ioErrors.increment();
      drainBufferLocked(pos); // the page stays in DRAM no longer: its objects go to their sets now
    }
    buffer.clear();
    bufferBytes = 0;
    while (bufferPage - tailPage >= pages) {
      reclaimLocked();
    }
  }

  /** After a failed log write: moves every set with an object in the buffer (whole chains). */
  private void drainBufferLocked(int pos) {
    Map<Long, Page> loaded = new HashMap<>();
    for (int i = 0; i < buffer.size(); i++) {
      int id = pos * OBJECTS_PER_PAGE + i;
      if (live[id]) {
        moveSetLocked(sets.setOf(buffer.get(i).keyHash()), loaded);
      }
    }
  }

  /** Empties the oldest log page: moves the sets that reached the threshold, drops the rest. */
  private void reclaimLocked() {
    int pos = position(tailPage);
    Map<Long, Page> loaded = new HashMap<>();
    Map<Integer, List<Integer>> bySet = new LinkedHashMap<>();
    List<Integer> unreadable = new ArrayList<>();
    for (int i = 0; i < OBJECTS_PER_PAGE; i++) {
      int id = pos * OBJECTS_PER_PAGE + i;
      if (!live[id]) {
        continue;
      }
      Entry e = loadLocked(id, loaded);
      if (e == null) {
        unreadable.add(id);
      } else {
        bySet.computeIfAbsent(sets.setOf(e.keyHash()), s -> new ArrayList<>()).add(id);
      }
    }
    for (Map.Entry<Integer, List<Integer>> group : bySet.entrySet()) {
      int set = group.getKey();
      if (chainLength(set) >= threshold || needsMoveLocked(set, group.getValue(), loaded)) {
        moveSetLocked(set, loaded);
      } else {
        for (int id : group.getValue()) {
          unlinkLocked(set, id);
          objectsDropped.increment();
        }
      }
    }
    if (!unreadable.isEmpty()) { // keys unknown, so sets unknown: one pass over every chain (a rare path)
      for (int set = 0; set < head.length; set++) {
        for (int id : unreadable) {
          if (live[id] && inChain(set, id)) {
            unlinkLocked(set, id);
            sets.drop(set); // it may have shadowed an older version of its key
          }
        }
      }
    }
    tailPage++;
  }

  /** True if dropping these objects could uncover an older version of one of their keys in the set. */
  private boolean needsMoveLocked(int set, List<Integer> ids, Map<Long, Page> loaded) {
    for (int id : ids) {
      Entry e = loadLocked(id, loaded);
      if (!shadowedLocked(set, id, e, loaded) && sets.mightContain(e.keyHash())) {
        forcedMoves.increment();
        return true;
      }
    }
    return false;
  }

  /** True if a newer log object of the set holds the same key as {@code e} (slot {@code id}). */
  private boolean shadowedLocked(int set, int id, Entry e, Map<Long, Page> loaded) {
    for (int other = head[set]; other != id && other != NONE; other = next[other]) {
      if (tags[other] == tags[id]) {
        Entry newer = loadLocked(other, loaded);
        if (newer != null && Arrays.equals(newer.key(), e.key())) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Moves the set's whole chain into the set with one insert: the newest version of each key. Objects
   * that cannot be read make the set drop everything first (one of them may be a newer version).
   */
  private void moveSetLocked(int set, Map<Long, Page> loaded) {
    Map<ByteKey, Entry> newest = new LinkedHashMap<>();
    List<Integer> chain = new ArrayList<>();
    boolean lost = false;
    for (int id = head[set]; id != NONE; id = next[id]) {
      chain.add(id);
      Entry e = loadLocked(id, loaded);
      if (e == null) {
        lost = true;
      } else {
        newest.merge(new ByteKey(e.key()), e, (a, b) -> a.sequence() >= b.sequence() ? a : b);
      }
    }
    for (int id : chain) {
      unlinkLocked(set, id);
    }
    if (lost) {
      sets.drop(set);
      newest.clear(); // an unread object may be a newer version of a key read here
    }
    if (!newest.isEmpty()) {
      sets.insert(set, new ArrayList<>(newest.values()));
      objectsMoved.add(newest.size());
    }
    setMoves.increment();
  }

  /** The object in slot {@code id}, from the buffer or its log page (cached in {@code loaded}); null if unreadable. */
  private Entry loadLocked(int id, Map<Long, Page> loaded) {
    int pos = id / OBJECTS_PER_PAGE;
    if (inBuffer(pos)) {
      return buffer.get(id % OBJECTS_PER_PAGE);
    }
    long number = pageNumbers[pos];
    Page page = loaded.computeIfAbsent(number, n -> readLocked(pos, n));
    int index = id % OBJECTS_PER_PAGE;
    return page == null || index >= page.entries().size() ? null : page.entries().get(index);
  }

  private Page readLocked(int pos, long number) {
    try {
      device.read(slotOf(pos), offsetOf(pos), io.clear());
    } catch (IOException e) {
      ioErrors.increment();
      return null;
    }
    Page page = SmallSetPage.decode(io, pos, epoch);
    return page == null || page.generation() != number ? null : page;
  }

  private void unlinkLocked(int set, int id) {
    if (head[set] == id) {
      head[set] = next[id];
    } else {
      for (int p = head[set]; p != NONE; p = next[p]) {
        if (next[p] == id) {
          next[p] = next[id];
          break;
        }
      }
    }
    live[id] = false;
    unlinks++;
  }

  private boolean inChain(int set, int id) {
    for (int p = head[set]; p != NONE; p = next[p]) {
      if (p == id) {
        return true;
      }
    }
    return false;
  }

  private int chainLength(int set) {
    int n = 0;
    for (int p = head[set]; p != NONE; p = next[p]) {
      n++;
    }
    return n;
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

  private static int tag(long hash) {
    return (int) (hash ^ (hash >>> 32));
  }
}
