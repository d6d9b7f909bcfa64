package io.hybridcache.core.engine;

import io.hybridcache.core.api.LifetimeClass;
import io.hybridcache.core.api.VictimPolicy;
import io.hybridcache.core.device.Device;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.LongSupplier;

/**
 * Empties whole segments so their slots can be reused: segment GC and eviction in one mechanism
 * (CaSSanDra paper, section IV: the segment with the most garbage yields the most space; CacheLib navy
 * reinsertion; LFS segment summaries).
 *
 * <p>Not thread-safe: confined to the flash tier's maintenance thread (it appends through the
 * {@link SegmentWriter}, whose lock it shares with evicting threads).
 * Concurrency with callers goes through the index only: every live entry is moved or dropped with a
 * compare-and-set on its index slot, so a caller's concurrent update or removal always wins and the
 * reinserted copy becomes garbage.
 *
 * <p>Reclaim: learn the victim's entries from its {@link SegmentSummary} (a few KiB read from its
 * tail), or, when it has none (sealed before a crash, resumed after a restart) or most entries must be
 * moved anyway, by reading the whole segment sequentially in {@value #CHUNK_BYTES}-byte chunks. For
 * each entry the index still points at: drop it if expired; reinsert it into the SURVIVOR class if it
 * was read since written, or if live bytes are under {@code reinsertAllBelowLiveRatio} of the budget;
 * otherwise evict it (also one too large for today's write buffer: written before a restart with larger
 * ones). Every reinsertion spends a write budget: at most {@code reinsertionBudget} bytes
 * per byte admitted since open, then reclaim evicts what it would have moved (a cache may forget; the
 * flash's endurance is finite: CacheLib navy reinserts nothing by default and bounds it when asked).
 * Without the budget a tier over capacity reinserts most of each victim, or copies every live entry
 * once its live bytes sink below {@code reinsertAllBelowLiveRatio}: workload A at 90% fill wrote 0.5
 * bytes of reinsertion per byte admitted to save 3 points of miss ratio. Only reinserted entries are read and verified (CRC) from the summary path.
 * A reclaim for a key group over its flash cap ({@link #reclaimFor}) moves every other group's live entries
 * whatever the budget and spends none of it (its moves are that group's cost, counted apart; one victim per
 * refused eviction): charged to it, one capped group cycling through flash would take the budget the
 * reclaims for room need to keep every group's hot entries.
 * Reinsertion of one victim is capped at {@value #REINSERT_CAP} of a segment so a segment full of hot
 * entries cannot stall reclaim. Then the slot is freed (and discarded on the device when
 * {@code trimReclaimed} is set).
 */
final class Reclaimer {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Reclaimer.class);
  static final int CHUNK_BYTES = 4 * 1024 * 1024;
  static final double REINSERT_CAP = 0.75;
  /** Above this share of entries to move, one sequential read beats one read per entry. */
  static final double SCAN_WHEN_MOVING = 0.25;

  private final Device device;
  private final SegmentTable table;
  private final Index index;
  private final SegmentWriter writer;
  private final Counters counters;
  private final VictimPolicy policy;
  private final double reinsertAllBelowLiveRatio;
  private final double reinsertionBudget;
  private final long flashBytes;
  private final LongSupplier sequence;
  private final LongSupplier clock;
  private final boolean trim;
  private final FlashReader entryReader; // its own counters: reclaim reads are not lookups
  private ByteBuffer chunk;
  private long budgetSpent; // bytes reinserted since open
  private java.util.function.LongConsumer onVictim = id -> { };
  private java.util.function.Consumer<EntryFormat.Entry> onEvicted; // null: nobody listens, no extra reads
  private java.util.function.Consumer<byte[]> onEvictedKey; // null: nobody counts; else no read with summary keys
  private GroupBytes groups; // per key group caps, or null
  private Runnable afterMove = () -> { }; // tests: after each move's index update

  /** Per-victim decisions shared by both paths. */
  private final class Pass {
    final Segment victim;
    final boolean reinsertAll;
    final long now;
    long reinsertBudget;
    /** The group over its flash cap this pass is for ({@link #reclaimFor}), or NONE: a pass for room. */
    final long forGroup;

    Pass(Segment victim) {
      this(victim, io.hybridcache.core.api.KeyGroups.NONE);
    }

    Pass(Segment victim, long forGroup) {
      this.forGroup = forGroup;
      this.victim = victim;
      long live = 0;
      for (Segment s : table.segments()) {
        live += s.liveBytes();
      }
      this.reinsertAll = live < reinsertAllBelowLiveRatio * flashBytes;
      long cap = (long) (REINSERT_CAP * victim.writtenBytes());
      this.reinsertBudget = Math.min(cap, budgetLeft());
      this.now = clock.getAsLong();
    }

    boolean wantsToKeep(long packed) {
      return forGroup != io.hybridcache.core.api.KeyGroups.NONE
          || reinsertBudget > 0 && (reinsertAll || IndexEntry.accessed(packed));
    }

    /**
     * Whether the verified entry {@code e} may be reinserted as far as key groups go: never one of the group
     * this pass is for, nor of a group at its flash cap (it pays with its own entries).
     */
    boolean groupAllows(EntryFormat.Entry e) {
      if (groups == null) {
        return true;
      }
      long g = groups.groupOf(e.key());
      if (g == io.hybridcache.core.api.KeyGroups.NONE) {
        return true;
      }
      // the victim's bytes of g are still counted and leave with it once reclaimed: without taking them off, a
      // group under its cap (after this reclaim) would lose entries here to its own bytes counted twice
      return g != forGroup
          && groups.flashAdmits(g, EntryFormat.entryBytes(e.key().length, e.value().length) - victim.groupBytes(g));
    }

    /**
     * Charges a reinsertion of {@code bytes}: a pass for room spends the shared budget; a pass for a group over
     * its cap does not (its moves are that group's cost, at most one victim per refused eviction: charged to
     * the budget, one capped group cycling through flash would cost every other group its hot entries' room).
     */
    void spend(long bytes) {
      reinsertBudget -= bytes;
      if (forGroup == io.hybridcache.core.api.KeyGroups.NONE) {
        budgetSpent += bytes;
      } else {
        counters.groupReclaimMovedBytes.add(bytes);
      }
    }

    /**
     * The original of a moved entry leaves its group's count at once (the copy was counted at its append): a move
     * is a transfer, so a group's count does not rise while its entries are moved.
     */
    void movedOut(EntryFormat.Entry e, long packed) {
      if (groups != null) {
        victim.addGroupBytes(groups, groups.groupOf(e.key()), -IndexEntry.sizeBytes(packed));
      }
    }

    boolean pointsHere(long packed, long offset) {
      return packed != IndexEntry.NONE && IndexEntry.segmentTag(packed) == table.tagOf(victim.id())
          && IndexEntry.offset(packed) == offset;
    }
  }

  /** Bytes reinsertion may still write: the budget earned by admissions since open, less what it spent. */
  private long budgetLeft() {
    if (reinsertionBudget == Double.POSITIVE_INFINITY) {
      return Long.MAX_VALUE;
    }
    return (long) (reinsertionBudget * counters.bytesAdmitted.sum()) - budgetSpent; // saturates, never wraps
  }

  /** Supplies the verified entry on demand (null if it fails verification). */
  @FunctionalInterface
  private interface EntrySource {
    EntryFormat.Entry read(long packed) throws IOException;
  }

  public Reclaimer(Device device, SegmentTable table, Index index, SegmentWriter writer, Counters counters,
      VictimPolicy policy, double reinsertAllBelowLiveRatio, double reinsertionBudget, long flashBytes, boolean trim,
      LongSupplier sequence, LongSupplier clockMillis) {
    this.device = device;
    this.table = table;
    this.index = index;
    this.writer = writer;
    this.counters = counters;
    this.policy = policy;
    this.reinsertAllBelowLiveRatio = reinsertAllBelowLiveRatio;
    this.reinsertionBudget = reinsertionBudget;
    this.flashBytes = flashBytes;
    this.trim = trim;
    this.sequence = sequence;
    this.clock = clockMillis;
    this.entryReader = new FlashReader(device, table, new Counters(), new ReadBuffers(1, writer.bufferBytes()));
  }

  /**
   * Called with the victim's id before reclaim unlinks any of its entries (a crash-consistent index
   * journals it, so that no entry reclaim evicts can come back after a restart).
   */
  public void onVictim(java.util.function.LongConsumer listener) {
    this.onVictim = listener;
  }

  /**
   * Told of each live entry reclaim drops instead of moving (maintenance thread). While set, reclaim reads
   * the key of every entry it drops (from the scan's buffer, or one device read on the summary path).
   */
  void onEvicted(java.util.function.Consumer<EntryFormat.Entry> listener) {
    this.onEvicted = listener;
  }

  /**
   * Told of the key of each live entry reclaim drops (maintenance thread): from the scan's buffer, or the key
   * bytes of the victim's summary ({@link SegmentSummary#keyBytes}) with no device read; only a summary without
   * them costs the read of the entry.
   */
  void onEvictedKey(java.util.function.Consumer<byte[]> hook) {
    this.onEvictedKey = hook;
  }

  /** Tests: called after each entry's move (its index entry updated). */
  void afterMove(Runnable hook) {
    this.afterMove = hook;
  }

  /** Caps reinsertion by key group (see {@link GroupBytes}); null for none. Before the first reclaim. */
  void groups(GroupBytes g) {
    this.groups = g;
  }

  /** The sealed segment holding most bytes of {@code group} (the oldest of equals), or null if none holds any. */
  Segment chooseVictimFor(long group) {
    Segment best = null;
    long bestBytes = 0;
    for (Segment s : table.segments()) {
      if (s.state() != Segment.State.SEALED) {
        continue;
      }
      long b = s.groupBytes(group);
      if (b > bestBytes || b == bestBytes && b > 0 && s.id() < best.id()) {
        best = s;
        bestBytes = b;
      }
    }
    return best;
  }

  /**
   * Reclaims {@code victim} for {@code group}, over its flash cap: the group's live entries there are evicted,
   * every other group's live entries reinserted (whatever the reinsertion budget; one whose own group is at
   * its cap is evicted, as is one no slot is left for), so a group over its cap frees room from its own
   * entries. Reads the whole victim (the keys say the groups).
   */
  void reclaimFor(Segment victim, long group) throws IOException {
    reclaim(victim, new Pass(victim, group));
  }

  /** The best sealed victim, or null if no segment is sealed. */
  public Segment chooseVictim() {
    long now = sequence.getAsLong();
    Segment best = null;
    double bestScore = Double.NEGATIVE_INFINITY;
    for (Segment s : table.segments()) {
      if (s.state() != Segment.State.SEALED) {
        continue;
      }
      double score = policy.score(s, now);
      if (score > bestScore || (score == bestScore && best != null && s.id() < best.id())) {
        best = s;
        bestScore = score;
      }
    }
    return best;
  }

  /**
   * Reclaims {@code victim}: afterwards its slot is free and no index entry points into it.
   *
   * @throws IOException from the device; the victim stays sealed (so does any other Throwable), its
   *     entries not yet handled still indexed
   */
  public void reclaim(Segment victim) throws IOException {
    reclaim(victim, null);
  }

  private void reclaim(Segment victim, Pass forGroup) throws IOException {
    writer.drain(); // the victim's last buffer and summary may still be in flight
    onVictim.accept(victim.id());
    victim.setReclaiming();
    try {
      Pass pass = forGroup != null ? forGroup : new Pass(victim);
      if (forGroup == null && fromSummary(pass)) {
        counters.reclaimedFromSummary.increment();
      } else {
        scan(pass);
      }
    } catch (Throwable e) { // an Error too: never a victim left RECLAIMING (its slot leaked)
      victim.setSealedAgain();
      throw e;
    }
    if (trim) { // before the slot is free: an evicting thread may open a segment in it at once
      writer.recordTrim(victim.slot());
      try {
        device.discard(victim.slot());
      } catch (IOException e) {
        // the slot is freed either way; a failed trim only costs the device some write amplification
      }
    }
    table.release(victim);
    counters.reclaimedSegments.increment();
  }

  /** The summary path; false if the victim has no valid summary or scanning is cheaper. */
  private boolean fromSummary(Pass pass) throws IOException {
    Segment victim = pass.victim;
    SegmentSummary.Read summary = SegmentSummary.read(device, victim.slot(), victim.id());
    if (summary == null) {
      return false;
    }
    int count = summary.count();
    int keyBytes = summary.keyBytes();
    long[] hashes = new long[count];
    long[] offsets = new long[count];
    long[] found = new long[count]; // each key's index entry as first read: handle starts from it
    long[] keys = keyBytes > 0 && onEvictedKey != null ? new long[count] : null;
    if (!SegmentSummary.decode(summary.region(), victim.id(), count, hashes, offsets, keys)) {
      return false;
    }
    int toMove = 0;
    for (int i = 0; i < count; i++) {
      long cur = index.get(hashes[i]);
      found[i] = cur;
      if (pass.pointsHere(cur, offsets[i]) && pass.wantsToKeep(cur)) {
        toMove++;
      }
    }
    if (toMove > SCAN_WHEN_MOVING * count) {
      return false;
    }
    for (int i = 0; i < count; i++) {
      long hash = hashes[i];
      byte[] key = keys == null ? null : SegmentSummary.keyPrefixBytes(keys[i], keyBytes);
      handle(pass, hash, offsets[i], found[i], key, packed -> {
        EntryFormat.Entry e = entryReader.read(packed);
        return e != null && KeyHash.of(e.key()) == hash ? e : null;
      });
    }
    return true;
  }

  /** The scan path: every entry of the victim, read sequentially. */
  private void scan(Pass pass) throws IOException {
    Segment victim = pass.victim;
    long pos = SegmentHeader.FIRST_ENTRY_OFFSET;
    long end = Math.min(device.slotBytes(), Device.roundUp(victim.flushedOffset())); // may end mid-page
    ByteBuffer buf = chunk();
    while (pos < end) {
      long chunkStart = Device.roundDown(pos);
      int chunkLen = (int) Math.min(CHUNK_BYTES, end - chunkStart);
      buf.clear().limit(chunkLen);
      device.read(victim.slot(), chunkStart, buf);
      int p = (int) (pos - chunkStart);
      while (p + EntryFormat.HEADER_BYTES <= chunkLen) {
        int need = EntryFormat.extentAt(buf, p, victim.id()); // CRC checked only for a reinserted entry
        if (need == 0) {
          p += IndexEntry.OFFSET_ALIGNMENT; // padding, or bytes that are not an entry of this segment
          continue;
        }
        if (p + need > chunkLen) {
          if (chunkLen == CHUNK_BYTES && p > 0) {
            break; // straddles the chunk: read the next chunk from here
          }
          p += IndexEntry.OFFSET_ALIGNMENT; // claims to run past the segment's data: not an entry
          continue;
        }
        int at = p;
        int keyLength = Short.toUnsignedInt(buf.duplicate().order(ByteOrder.LITTLE_ENDIAN).getShort(p + 10));
        long hash = KeyHash.of(buf, p + EntryFormat.HEADER_BYTES, keyLength);
        handle(pass, hash, chunkStart + p, index.get(hash), null,
            packed -> EntryFormat.read(buf.duplicate().position(at), victim.id()));
        p += (need + IndexEntry.OFFSET_ALIGNMENT - 1) & -IndexEntry.OFFSET_ALIGNMENT;
      }
      pos = chunkStart + p;
      if (chunkLen < CHUNK_BYTES && p + EntryFormat.HEADER_BYTES > chunkLen) {
        break;
      }
    }
  }

  /**
   * Moves or drops the entry of {@code hash} at {@code offset} of the victim, if it is still live.
   * {@code cur} is the key's index entry as read at some point since the victim's installs completed:
   * if stale, the compare-and-set below fails and the loop reads it again. Nothing can point into the
   * victim after those installs, so an entry that did not point here then does not now.
   */
  private void handle(Pass pass, long hash, long offset, long cur, byte[] summaryKey, EntrySource source)
      throws IOException {
    long moved = IndexEntry.NONE;
    EntryFormat.Entry e = null;
    while (pass.pointsHere(cur, offset)) {
      boolean keep = pass.wantsToKeep(cur);
      if (keep && e == null) {
        e = source.read(cur); // verified before it is copied
        keep = e != null && !e.expired(pass.now) && writer.fits(EntryFormat.entryBytes(e.key().length,
            e.value().length)) // one written with larger write buffers before a restart is evicted
            && pass.groupAllows(e);
      }
      if (keep && moved == IndexEntry.NONE) {
        moved = writer.append(LifetimeClass.SURVIVOR, hash, e.key(), e.value(), e.expiryMillis(), e.sequence());
      }
      if (keep && moved != IndexEntry.NONE) {
        if (index.replace(hash, cur, moved)) {
          counters.reinserted.increment();
          pass.spend(IndexEntry.sizeBytes(moved));
          pass.movedOut(e, cur);
          afterMove.run();
          return;
        }
      } else if (index.remove(hash, cur)) {
        counters.reclaimEvicted.increment();
        if (onEvicted != null) {
          e = e != null ? e : source.read(cur);
          if (e != null) {
            onEvicted.accept(e);
          }
        }
        if (onEvictedKey != null) {
          byte[] key = summaryKey;
          if (key == null) {
            e = e != null ? e : source.read(cur); // the scan's buffer; a device read only without summary keys
            key = e == null ? null : e.key();
          }
          if (key != null) {
            tellEvictedKey(key);
          }
        }
        break;
      }
      cur = index.get(hash); // lost a race: an access bit was set, or the key was updated
    }
    if (moved != IndexEntry.NONE) {
      Segment s = table.byTag(IndexEntry.segmentTag(moved));
      if (s != null) {
        s.addGarbage(IndexEntry.sizeBytes(moved)); // the update won; the copy is garbage
      }
    }
  }

  private void tellEvictedKey(byte[] key) {
    try {
      onEvictedKey.accept(key);
    } catch (RuntimeException ex) {
      LOG.warn("the eviction hook threw; ignored", ex);
    }
  }

  private ByteBuffer chunk() {
    if (chunk == null) {
      chunk = Device.allocateAligned(CHUNK_BYTES);
    }
    return chunk;
  }
}
