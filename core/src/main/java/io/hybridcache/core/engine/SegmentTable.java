package io.hybridcache.core.engine;

import io.hybridcache.core.device.AtomicFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.zip.CRC32C;

/**
 * Which segment lives in which slot, and which slots are free. Segment ids grow by one per new
 * segment, are 64-bit and never run out.
 *
 * <p>Tags: the index keeps only a segment's tag, its id's low {@code tagBits} bits (28 by default,
 * {@link IndexEntry#MAX_SEGMENT_TAG}), and the table is keyed by tag. {@link #allocateSegmentId} skips
 * ids whose tag is 0 or held by a live segment, so the tags of live segments are unique and an index
 * value always names one segment; after 2^28 segments ids wrap around the tag space instead of running
 * out. The low 32 bits of the id are written into the segment header and each entry header, so a
 * stale index value that names a reused tag reads as a miss (the generation check). {@link #get} finds
 * a segment by full id, {@link #byTag} by the tag from an index value.
 *
 * <p>Thread-safe for readers: {@link #get} and the counters may be called from any thread (concurrent
 * map, volatile counts). Creating and releasing segments is synchronized: evicting threads open segments under the
 * writer's lock while the maintenance thread releases them.
 *
 * <p>Persistence: on a clean close the table is saved to {@code segments.meta} (written to a temp file,
 * forced, renamed). Format, little-endian: magic "HCT1", version 1, next segment id (8), next sequence
 * (8), count (4), then per segment id (8), slot (4), class id (4), state ordinal (1), written (8),
 * garbage (8), flushed offset (8), sealed sequence (8); then CRC32C (4) of everything before it. A file
 * that fails the check is ignored and the cache recovers from slot headers instead.
 */
final class SegmentTable {
  private static final int MAGIC = 0x31544348;
  private static final int VERSION = 1;
  private static final int RECORD_BYTES = 8 + 4 + 4 + 1 + 8 + 8 + 8 + 8;

  private final ConcurrentMap<Long, Segment> byTag = new ConcurrentHashMap<>();
  /**
   * A direct-mapped front of {@code byTag} for the lookups on every flash read and write: slot
   * {@code tag & (length - 1)} holds the live segment of that tag if no other live segment took the slot
   * first (ids are handed out in order, so recent segments rarely collide); a miss falls back to the map.
   * Written under this table's lock; read racily: a segment's id is final, and a lookup checks it.
   */
  private final AtomicReferenceArray<Segment> recent;
  private final ArrayDeque<Integer> freeSlots = new ArrayDeque<>(); // synchronized
  private final int slotCount;
  private final long tagMask;
  private volatile int freeCount;
  private volatile long nextSegmentId = 1; // written synchronized

  public SegmentTable(int slotCount) {
    this(slotCount, IndexEntry.SEGMENT_TAG_BITS);
  }

  /** With a narrower tag (tests drive ids past the tag space with a few bits). */
  public SegmentTable(int slotCount, int tagBits) {
    if (tagBits < 2 || tagBits > IndexEntry.SEGMENT_TAG_BITS || (1L << tagBits) - 1 <= slotCount) {
      throw new IllegalArgumentException("tagBits " + tagBits + " cannot tag " + slotCount + " slots");
    }
    this.slotCount = slotCount;
    this.tagMask = (1L << tagBits) - 1;
    this.recent = new AtomicReferenceArray<>(Integer.highestOneBit(Math.max(1, slotCount)) * 4);
  }

  public int slotCount() { return slotCount; }

  /** The tag the index stores for segment {@code segmentId}. */
  public long tagOf(long segmentId) {
    return segmentId & tagMask;
  }

  /** The live segment with id {@code segmentId}, or null. */
  public Segment get(long segmentId) {
    Segment s = byTag(tagOf(segmentId));
    return s != null && s.id() == segmentId ? s : null;
  }

  /** The live segment an index value's tag names ({@link IndexEntry#segmentTag}), or null. */
  public Segment byTag(long tag) {
    Segment s = recent.getAcquire((int) tag & (recent.length() - 1));
    return s != null && tagOf(s.id()) == tag ? s : byTag.get(tag);
  }

  public Collection<Segment> segments() {
    return byTag.values();
  }

  public int freeSlots() {
    return freeCount;
  }

  public long nextSegmentIdPeek() {
    return nextSegmentId;
  }

  // ---- synchronized: evicting threads and the maintenance thread ----

  /** Marks every slot not used by a known segment free. Call once after loading or recovering. */
  public synchronized void rebuildFreeList() {
    BitSet used = new BitSet(slotCount);
    for (Segment s : byTag.values()) {
      used.set(s.slot());
    }
    freeSlots.clear();
    for (int i = 0; i < slotCount; i++) {
      if (!used.get(i)) {
        freeSlots.add(i);
      }
    }
    freeCount = freeSlots.size();
  }

  /** Takes a free slot for a new segment, or returns -1 when none is free. */
  public synchronized int takeFreeSlot() {
    Integer slot = freeSlots.pollFirst();
    freeCount = freeSlots.size();
    return slot == null ? -1 : slot;
  }

  public synchronized void returnFreeSlot(int slot) {
    freeSlots.addFirst(slot);
    freeCount = freeSlots.size();
  }

  /** The next segment id whose tag is neither 0 nor held by a live segment. */
  public synchronized long allocateSegmentId() {
    while (true) {
      long id = nextSegmentId++;
      long tag = tagOf(id);
      if (tag != 0 && !byTag.containsKey(tag)) {
        return id;
      }
    }
  }

  /** Ids below this are never handed out again (recovery raises it past every id seen). */
  public synchronized void raiseNextSegmentId(long atLeast) {
    nextSegmentId = Math.max(nextSegmentId, atLeast);
  }

  /** Adds {@code s}; its tag must not be live (ids come from {@link #allocateSegmentId}). */
  public synchronized void add(Segment s) {
    Segment other = byTag.putIfAbsent(tagOf(s.id()), s);
    int i = (int) tagOf(s.id()) & (recent.length() - 1);
    if (other == null && recent.get(i) == null) {
      recent.set(i, s);
    }
    if (other != null && other != s) {
      throw new IllegalStateException("segment tag " + tagOf(s.id()) + " of " + s + " is held by " + other);
    }
  }

  private void forgetAll() {
    for (Segment s : byTag.values()) {
      s.forgetGroupBytes();
    }
    byTag.clear();
    for (int i = 0; i < recent.length(); i++) {
      recent.set(i, null);
    }
  }

  private void forgetRecent(Segment s) {
    recent.compareAndSet((int) tagOf(s.id()) & (recent.length() - 1), s, null);
  }

  /** Forgets {@code s}; its slot becomes free. */
  public synchronized void release(Segment s) {
    forgetRecent(s);
    if (byTag.remove(tagOf(s.id()), s)) {
      s.forgetGroupBytes();
      returnFreeSlot(s.slot());
    }
  }

  /** Forgets {@code s} without freeing its slot (the caller reuses or frees it). */
  public synchronized void forget(Segment s) {
    forgetRecent(s);
    if (byTag.remove(tagOf(s.id()), s)) {
      s.forgetGroupBytes();
    }
  }

  public synchronized void clear() {
    forgetAll();
    rebuildFreeList();
  }

  // ---- persistence ----

  public void save(Path file, long nextSequence) throws IOException {
    List<Segment> all = new ArrayList<>(byTag.values());
    ByteBuffer b = ByteBuffer.allocate(4 + 4 + 8 + 8 + 4 + all.size() * RECORD_BYTES + 4)
        .order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(MAGIC).putInt(VERSION).putLong(nextSegmentId).putLong(nextSequence).putInt(all.size());
    for (Segment s : all) {
      b.putLong(s.id()).putInt(s.slot()).putInt(s.lifetimeClass().id()).put((byte) s.state().ordinal())
          .putLong(s.writtenBytes()).putLong(s.garbageBytes()).putLong(s.flushedOffset())
          .putLong(s.sealedSequence());
    }
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, b.position());
    b.putInt((int) crc.getValue());
    b.flip();
    AtomicFile.replace(file, ch -> AtomicFile.writeFully(ch, b));
  }

  /**
   * Loads a table saved by {@link #save}; returns the saved next sequence, or -1 (table left empty) if
   * the file is missing, corrupt, or names slots outside {@code slotCount}.
   */
  public long load(Path file, LifetimeClasses classes) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      return -1;
    }
    if (bytes.length < 32) {
      return -1;
    }
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    if ((int) crc.getValue() != b.getInt(bytes.length - 4) || b.getInt() != MAGIC || b.getInt() != VERSION) {
      return -1;
    }
    long nextId = b.getLong();
    long nextSeq = b.getLong();
    int count = b.getInt();
    if (count < 0 || count > slotCount || bytes.length != 32 + count * RECORD_BYTES) {
      return -1;
    }
    List<Segment> loaded = new ArrayList<>(count);
    BitSet slots = new BitSet(slotCount);
    for (int i = 0; i < count; i++) {
      long id = b.getLong();
      int slot = b.getInt();
      int classId = b.getInt();
      int state = b.get();
      long written = b.getLong();
      long garbage = b.getLong();
      long flushed = b.getLong();
      long sealedSeq = b.getLong();
      if (slot < 0 || slot >= slotCount || slots.get(slot) || id <= 0 || id >= nextId
          || state < 0 || state >= Segment.State.values().length) {
        return -1;
      }
      slots.set(slot);
      Segment.State st = Segment.State.values()[state];
      Segment s = new Segment(id, slot, classes.byId(classId),
          st == Segment.State.RECLAIMING ? Segment.State.SEALED : st);
      s.restore(written, garbage, flushed, sealedSeq);
      loaded.add(s);
    }
    java.util.Set<Long> tags = new java.util.HashSet<>();
    for (Segment s : loaded) {
      if (!tags.add(tagOf(s.id()))) {
        return -1; // two segments with one tag: not a table this code saved
      }
    }
    forgetAll();
    loaded.forEach(this::add);
    nextSegmentId = nextId;
    rebuildFreeList();
    return nextSeq;
  }
}
