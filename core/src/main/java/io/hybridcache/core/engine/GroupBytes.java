package io.hybridcache.core.engine;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.KeyGroups;
import io.hybridcache.core.device.Device;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes each key group ({@link KeyGroups}: a JCache cache's namespace) holds in the DRAM tier and on the log
 * engine's flash, and the admission decisions against the group's caps. A group at its cap pays with its own
 * entries: in DRAM its oldest entries are evicted (its write order: {@link DramOrder}), and on flash its
 * evictions are refused, reclaim does not reinsert it, and a reclaim of the segment holding most of its bytes is
 * asked for ({@link FlashTier}). No other group's entry is evicted or refused for it (a group without a cap, or
 * under it, is decided as before; only a full flash, shared by all, still reclaims by the victim policy).
 *
 * <p>Thread-safe. Concurrency: a group's counts are atomics. DRAM is counted by the DRAM tier inside the key's
 * atomic change (its {@code compute} function, or Caffeine's eviction listener, which runs inside the atomic
 * removal, expired entries found by a compute included), so the count moves exactly with the map. A DRAM change
 * is never refused: a put installs its entry, then (outside the key's change) evicts the group's oldest entries
 * while the group is over its cap ({@link DramGroups}), so a group's DRAM bytes exceed its cap by at most one
 * entry per thread putting into it at that moment. Flash is counted per segment ({@link Segment#addGroupBytes}) at
 * each append (under the writer's lock) and taken off, per segment, when the segment leaves the segment table
 * (reclaimed, dropped, cleared), except that an entry reclaim moves is taken off its victim as soon as its
 * copy is indexed (a move is a transfer: the count does not rise while a reclaim moves a group's entries):
 * what a group holds on flash is the sum of what it appended to the segments that still exist, superseded
 * entries included (they take room until their segment is reclaimed), less what was moved out of them. Flash
 * admission is a check before the append, not a reservation: the count may pass the cap by one entry per
 * thread appending at that moment (the slack); it never passes it by more.
 *
 * <p>Format: nothing on the device. A group is a {@code long} the {@link KeyGroups} derives from the key's
 * first bytes, so reclaim and a warm open can attribute an entry from the key bytes a segment summary keeps.
 *
 * <p>DRAM order: a group with a DRAM cap keeps a {@link DramOrder} (its entries' write order) in its counts,
 * dropped with them; an uncapped group, and an engine without key groups, keeps none.
 *
 * <p>Reclaim: reclaim never reinserts an entry of a group over its flash cap (it is evicted), and a refused
 * eviction asks (once, until it is handled) for a reclaim of the sealed segment holding most of the group's
 * bytes, in which that group's live entries are evicted and every other group's live entries reinserted
 * ({@link Reclaimer#reclaimFor}), whose moves do not spend the shared reinsertion budget; a group with a flash cap
 * of 0 asks for none (its entries leave as reclaim frees their segments: never reinserted). A write-back (flush,
 * close) is not checked against the cap (an acknowledged put is never lost to a cap at close). After an open
 * (clean or after a crash) the flash counts are rebuilt ({@link #rebuild}): each live entry (the index still
 * points at it) counted to its group, from its segment's summary or, for a segment without one (being written
 * at the close or the crash), from the entry's own key bytes; superseded bytes of the earlier run to none
 * ({@link FlashOpener}); DRAM starts empty.
 */
final class GroupBytes {
  private final KeyGroups groups;
  private final ConcurrentHashMap<Long, Held> held = new ConcurrentHashMap<>();

  /** One group's counts. */
  static final class Held {
    final AtomicLong dram = new AtomicLong();
    final AtomicLong flash = new AtomicLong();
    /** A reclaim for this group is queued and not yet handled. */
    final AtomicBoolean reclaimAsked = new AtomicBoolean();
    /** The write order of the group's DRAM entries (a group with a DRAM cap), or null until the first. */
    volatile DramOrder order;
  }

  GroupBytes(KeyGroups groups) {
    this.groups = groups;
  }

  /** The group of {@code key} (or its first bytes); {@link KeyGroups#NONE} if it has none or the groups throw. */
  long groupOf(byte[] key) {
    try {
      long g = groups.groupOf(key);
      return g < 0 ? KeyGroups.NONE : g;
    } catch (RuntimeException e) {
      return KeyGroups.NONE;
    }
  }

  private Held held(long group) {
    Held h = held.get(group);
    return h != null ? h : held.computeIfAbsent(group, g -> new Held());
  }

  /** Adds {@code delta} DRAM bytes to {@code group} (never refused: see the class note); inside the key's change. */
  void dramAdd(long group, long delta) {
    if (group != KeyGroups.NONE && delta != 0) {
      add(group, false, delta, Long.MAX_VALUE);
    }
  }

  /**
   * The write order of {@code group}'s DRAM entries, made on first use; null for no group or one without a DRAM
   * cap. With {@code make} false, null also if the group has no counts now (an entry leaving a dropped group).
   */
  DramOrder dramOrder(long group, boolean make) {
    if (group == KeyGroups.NONE || groups.dramCap(group) == Long.MAX_VALUE) {
      return null;
    }
    Held h = make ? held(group) : held.get(group);
    if (h == null || h.order != null || !make) {
      return h == null ? null : h.order;
    }
    synchronized (h) {
      if (h.order == null) {
        h.order = new DramOrder();
      }
      return h.order;
    }
  }

  /** Whether {@code group} holds more DRAM bytes than its cap. */
  boolean dramOver(long group) {
    Held h = group == KeyGroups.NONE ? null : held.get(group);
    return h != null && count(h.dram) > groups.dramCap(group);
  }

  /** A count of a group dropped by {@link #prune}: a change that meets it is made on the group's new counts. */
  private static final long DEAD = Long.MIN_VALUE;

  /**
   * Adds {@code delta} to {@code group}'s flash or DRAM count, a positive one only within {@code cap} (false:
   * refused, nothing added); a count this takes to zero may drop the group ({@link #prune}).
   */
  private boolean add(long group, boolean flash, long delta, long cap) {
    while (true) {
      Held h = held(group);
      AtomicLong c = flash ? h.flash : h.dram;
      long cur = c.get();
      if (cur == DEAD) { // being dropped (then gone from the map) or kept (then restored): look again
        Thread.onSpinWait();
        continue;
      }
      if (delta > 0 && cur + delta > cap) {
        return false;
      }
      if (c.compareAndSet(cur, cur + delta)) {
        if (cur + delta == 0) {
          prune(group);
        }
        return true;
      }
    }
  }

  /**
   * Drops {@code group}'s counts if both are zero and no reclaim is asked for it: a group (a JCache namespace
   * epoch: a new one per clear) leaves nothing behind once it holds nothing. Each count is taken from 0 to
   * {@link #DEAD} by compare-and-set, so a change racing the drop either lands before it (no drop) or waits and
   * is made on the group's new counts.
   */
  private void prune(long group) {
    held.computeIfPresent(group, (g, h) -> {
      if (h.reclaimAsked.get() || !h.dram.compareAndSet(0, DEAD)) {
        return h;
      }
      if (!h.flash.compareAndSet(0, DEAD)) {
        h.dram.set(0);
        return h;
      }
      return null;
    });
  }

  private static long count(AtomicLong c) {
    long v = c.get();
    return v == DEAD ? 0 : v;
  }

  /** How many groups have counts now (tests: a group that holds nothing is dropped). */
  int groupsCounted() {
    return held.size();
  }

  /** True if {@code bytes} more on flash keep {@code group} within its flash cap (a check, not a reservation). */
  boolean flashAdmits(long group, long bytes) {
    if (group == KeyGroups.NONE) {
      return true;
    }
    long cap = groups.flashCap(group);
    if (cap == Long.MAX_VALUE) {
      return true;
    }
    Held h = held.get(group);
    return (h == null ? 0 : count(h.flash)) + bytes <= cap;
  }

  /** Whether {@code group} may hold flash bytes at all (its flash cap is not 0: see {@link KeyGroups#flashCap}). */
  boolean flashRoomAllowed(long group) {
    return group == KeyGroups.NONE || groups.flashCap(group) > 0;
  }

  /** A segment took (positive) or let go of (negative) {@code bytes} of {@code group}. */
  void flashAdd(long group, long bytes) {
    if (group != KeyGroups.NONE && bytes != 0) {
      add(group, true, bytes, Long.MAX_VALUE);
    }
  }

  /** Marks a reclaim for {@code group} asked for; false if one is asked for already (not yet handled). */
  boolean askReclaim(long group) {
    return held(group).reclaimAsked.compareAndSet(false, true);
  }

  /** The reclaim asked for {@code group} was handled (another may be asked for). */
  void reclaimHandled(long group) {
    Held h = held.get(group);
    if (h != null) {
      h.reclaimAsked.set(false);
      if (count(h.dram) == 0 && count(h.flash) == 0) {
        prune(group);
      }
    }
  }

  /** Whether {@code group} holds more flash bytes than its cap. */
  boolean flashOver(long group) {
    Held h = group == KeyGroups.NONE ? null : held.get(group);
    return h != null && count(h.flash) > groups.flashCap(group);
  }

  /**
   * Counts the live entries of the segments an open found (the index points at them) to their groups: from the
   * key bytes each sealed segment's summary keeps (one read of a few KiB per segment), and for a segment without
   * a summary (resumed active after a clean close, or being written at a crash) from its entries' own key bytes
   * ({@link #scan}: a read of the segment, in chunks of at most {@link #SCAN_CHUNK_BYTES}). A summary without key
   * bytes (written with {@code evictionKeyBytes} 0) counts its segment to no group, as do the superseded bytes of
   * the earlier run: they leave as reclaim frees their segments. An unreadable segment counts to no group (reclaim
   * finds the fault).
   */
  void rebuild(Device device, SegmentTable table, Index index) {
    Map<Long, Segment> unsummarized = new HashMap<>(); // by tag
    for (Segment s : table.segments()) {
      boolean summarized = false;
      try {
        summarized = s.state() == Segment.State.SEALED && rebuild(device, table, index, s);
      } catch (java.io.IOException | RuntimeException e) {
        summarized = true; // counted to no group: reclaim meets the fault when it takes the segment
      }
      if (!summarized && s.state() != Segment.State.RECLAIMING) {
        unsummarized.put(table.tagOf(s.id()), s);
      }
    }
    if (!unsummarized.isEmpty()) {
      scan(device, index, unsummarized);
    }
  }

  /** Counts {@code s}'s live entries from its summary; false if it has none (nothing counted). */
  private boolean rebuild(Device device, SegmentTable table, Index index, Segment s) throws java.io.IOException {
    SegmentSummary.Read summary = SegmentSummary.read(device, s.slot(), s.id());
    if (summary == null || summary.count() == 0) {
      return false; // none (or an empty one): the entries' own key bytes tell
    }
    int count = summary.count();
    int keyBytes = summary.keyBytes();
    if (keyBytes == 0) {
      return true; // written without key bytes: counted to no group
    }
    long[] hashes = new long[count];
    long[] offsets = new long[count];
    long[] keys = new long[count];
    if (!SegmentSummary.decode(summary.region(), s.id(), count, hashes, offsets, keys)) {
      return false;
    }
    long tag = table.tagOf(s.id());
    for (int i = 0; i < count; i++) {
      long packed = index.get(hashes[i]);
      if (packed != IndexEntry.NONE && IndexEntry.segmentTag(packed) == tag
          && IndexEntry.offset(packed) == offsets[i]) {
        s.addGroupBytes(this, groupOf(SegmentSummary.keyPrefixBytes(keys[i], keyBytes)), IndexEntry.sizeBytes(packed));
      }
    }
    return true;
  }

  /** The largest read of a segment without a summary at an open. */
  static final int SCAN_CHUNK_BYTES = 1 << 20;

  /**
   * Counts the live entries of {@code segments} (by tag) from their own headers and key bytes: one pass over the
   * index finds them, then each segment is read once in address order, in chunks.
   */
  private void scan(Device device, Index index, Map<Long, Segment> segments) {
    Map<Long, List<long[]>> live = new HashMap<>(); // by tag: {offset, size} of each entry the index points at
    index.forEach((hash, packed) -> {
      long tag = IndexEntry.segmentTag(packed);
      if (segments.containsKey(tag)) {
        live.computeIfAbsent(tag, t -> new ArrayList<>()).add(new long[] {IndexEntry.offset(packed),
            IndexEntry.sizeBytes(packed)});
      }
    });
    ByteBuffer chunk = Device.allocateAligned((int) Math.min(device.slotBytes(), SCAN_CHUNK_BYTES));
    for (Map.Entry<Long, List<long[]>> e : live.entrySet()) {
      try {
        scan(device, segments.get(e.getKey()), e.getValue(), chunk);
      } catch (java.io.IOException | RuntimeException ex) {
        // the rest of this segment counted to no group: reclaim meets the fault when it takes the segment
      }
    }
  }

  private void scan(Device device, Segment s, List<long[]> entries, ByteBuffer chunk) throws java.io.IOException {
    entries.sort(java.util.Comparator.comparingLong(en -> en[0]));
    long start = -1;
    for (long[] en : entries) {
      long offset = en[0];
      if (start < 0 || offset + KEY_AT + CacheConfig.MAX_EVICTION_KEY_BYTES > start + chunk.limit()) {
        start = offset & -Device.ALIGNMENT;
        chunk.clear().limit((int) Math.min(chunk.capacity(), device.slotBytes() - start));
        device.read(s.slot(), start, chunk);
        chunk.flip();
      }
      byte[] prefix = keyPrefixAt(chunk, (int) (offset - start), s.id());
      if (prefix != null) {
        s.addGroupBytes(this, groupOf(prefix), en[1]);
      }
    }
  }

  private static final int KEY_AT = EntryFormat.HEADER_BYTES;

  /**
   * The first bytes of the key of the entry at {@code p} (zero-padded to {@link CacheConfig#MAX_EVICTION_KEY_BYTES},
   * as a summary keeps them), or null if the header there is not an entry of {@code segmentId}.
   */
  private static byte[] keyPrefixAt(ByteBuffer chunk, int p, long segmentId) {
    ByteBuffer b = chunk.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    if (p + KEY_AT > b.limit() || b.getInt(p) != EntryFormat.MAGIC
        || (b.getInt(p + 16) & 0xFFFF_FFFFL) != (segmentId & 0xFFFF_FFFFL)) {
      return null;
    }
    int n = Math.min(Math.min(Short.toUnsignedInt(b.getShort(p + 10)), CacheConfig.MAX_EVICTION_KEY_BYTES),
        b.limit() - p - KEY_AT);
    byte[] prefix = new byte[CacheConfig.MAX_EVICTION_KEY_BYTES];
    b.get(p + KEY_AT, prefix, 0, n);
    return prefix;
  }

  long dramBytes(long group) {
    Held h = held.get(group);
    return h == null ? 0 : count(h.dram);
  }

  long flashBytes(long group) {
    Held h = held.get(group);
    return h == null ? 0 : count(h.flash);
  }
}
