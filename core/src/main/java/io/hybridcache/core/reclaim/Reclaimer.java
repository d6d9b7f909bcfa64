package io.hybridcache.core.reclaim;

import io.hybridcache.core.device.Device;
import io.hybridcache.core.format.EntryFormat;
import io.hybridcache.core.format.SegmentHeader;
import io.hybridcache.core.index.Index;
import io.hybridcache.core.index.IndexEntry;
import io.hybridcache.core.index.KeyHash;
import io.hybridcache.core.placement.LifetimeClass;
import io.hybridcache.core.segment.Segment;
import io.hybridcache.core.segment.SegmentTable;
import io.hybridcache.core.segment.SegmentWriter;
import io.hybridcache.core.stats.Counters;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.LongSupplier;

/**
 * Empties whole segments so their slots can be reused: segment GC and eviction in one mechanism
 * (CaSSanDra paper, section IV: the segment with the most garbage yields the most space; CacheLib navy
 * reinsertion).
 *
 * <p>Not thread-safe: confined to the flash writer thread (it appends through the {@link SegmentWriter}).
 * Concurrency with callers goes through the index only: every live entry is moved or dropped with a
 * compare-and-set on its index slot, so a caller's concurrent update or removal always wins and the
 * reinserted copy becomes garbage.
 *
 * <p>Reclaim: read the victim sequentially in {@value #CHUNK_BYTES}-byte chunks, parse its entries,
 * and for each entry the index still points at: drop it if expired; reinsert it into the SURVIVOR
 * class if it was read since written, or if live bytes are under
 * {@code reinsertAllBelowLiveRatio} of the budget; otherwise evict it. Reinsertion of one victim is
 * capped at {@value #REINSERT_CAP} of a segment so a segment full of hot entries cannot stall reclaim.
 * Then the slot is freed (and discarded on the device when {@code trimReclaimed} is set).
 */
public final class Reclaimer {
  static final int CHUNK_BYTES = 4 * 1024 * 1024;
  static final double REINSERT_CAP = 0.75;

  private final Device device;
  private final SegmentTable table;
  private final Index index;
  private final SegmentWriter writer;
  private final Counters counters;
  private final VictimPolicy policy;
  private final double reinsertAllBelowLiveRatio;
  private final long flashBytes;
  private final LongSupplier sequence;
  private final LongSupplier clock;
  private final boolean trim;
  private ByteBuffer chunk;

  public Reclaimer(Device device, SegmentTable table, Index index, SegmentWriter writer, Counters counters,
      VictimPolicy policy, double reinsertAllBelowLiveRatio, long flashBytes, boolean trim,
      LongSupplier sequence, LongSupplier clockMillis) {
    this.trim = trim;
    this.device = device;
    this.table = table;
    this.index = index;
    this.writer = writer;
    this.counters = counters;
    this.policy = policy;
    this.reinsertAllBelowLiveRatio = reinsertAllBelowLiveRatio;
    this.flashBytes = flashBytes;
    this.sequence = sequence;
    this.clock = clockMillis;
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
   * @throws IOException from the device; the victim stays sealed and intact
   */
  public void reclaim(Segment victim) throws IOException {
    writer.awaitFlushes(); // the victim's last buffer may still be in flight
    victim.setReclaiming();
    try {
      long live = 0;
      for (Segment s : table.segments()) {
        live += s.liveBytes();
      }
      boolean reinsertAll = live < reinsertAllBelowLiveRatio * flashBytes;
      long reinsertBudget = (long) (REINSERT_CAP * victim.writtenBytes());
      long now = clock.getAsLong();
      long pos = SegmentHeader.FIRST_ENTRY_OFFSET;
      long end = victim.flushedOffset();
      ByteBuffer buf = chunk();
      while (pos < end) {
        long chunkStart = Device.roundDown(pos);
        int chunkLen = (int) Math.min(CHUNK_BYTES, end - chunkStart);
        buf.clear().limit(chunkLen);
        device.read(victim.slot(), chunkStart, buf);
        int p = (int) (pos - chunkStart);
        while (p + EntryFormat.HEADER_BYTES <= chunkLen) {
          int need = entryExtent(buf, p, victim.id());
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
          reinsertBudget -= handle(victim, buf, p, chunkStart + p, now, reinsertAll, reinsertBudget > 0);
          p += (need + IndexEntry.OFFSET_ALIGNMENT - 1) & -IndexEntry.OFFSET_ALIGNMENT;
        }
        pos = chunkStart + p;
        if (chunkLen < CHUNK_BYTES && p + EntryFormat.HEADER_BYTES > chunkLen) {
          break;
        }
      }
    } catch (IOException | RuntimeException e) {
      victim.setSealedAgain();
      throw e;
    }
    table.release(victim);
    counters.reclaimedSegments.increment();
    if (trim) {
      writer.recordTrim(victim.slot());
      try {
        device.discard(victim.slot());
      } catch (IOException e) {
        // the slot is free either way; a failed trim only costs the device some write amplification
      }
    }
  }

  /**
   * Bytes the entry at {@code p} claims to span, or 0 if its header is not plausibly an entry of
   * this segment. Only the header is checked here: the CRC is verified when an entry is reinserted;
   * an entry that is only unlinked needs none (a damaged key hashes elsewhere, and unlinking is safe).
   */
  private static int entryExtent(ByteBuffer buf, int p, long segmentId) {
    ByteBuffer b = buf.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    if (b.getInt(p) != EntryFormat.MAGIC || b.get(p + 8) != EntryFormat.FORMAT_VERSION
        || (b.getInt(p + 16) & 0xFFFF_FFFFL) != segmentId) {
      return 0;
    }
    int keyLength = Short.toUnsignedInt(b.getShort(p + 10));
    long len = EntryFormat.HEADER_BYTES + (long) keyLength + b.getInt(p + 12);
    return keyLength == 0 || len <= EntryFormat.HEADER_BYTES || len > IndexEntry.MAX_ENTRY_BYTES ? 0 : (int) len;
  }

  /** Moves or drops the entry at {@code p} of {@code buf}; returns the bytes reinserted. */
  private long handle(Segment victim, ByteBuffer buf, int p, long offset, long now, boolean reinsertAll,
      boolean mayReinsert) throws IOException {
    int keyLength = Short.toUnsignedInt(buf.duplicate().order(ByteOrder.LITTLE_ENDIAN).getShort(p + 10));
    long hash = KeyHash.of(buf, p + EntryFormat.HEADER_BYTES, keyLength);
    long cur = index.get(hash);
    long moved = IndexEntry.NONE;
    EntryFormat.Entry e = null;
    while (cur != IndexEntry.NONE && IndexEntry.segmentId(cur) == victim.id() && IndexEntry.offset(cur) == offset) {
      boolean keep = mayReinsert && (reinsertAll || IndexEntry.accessed(cur));
      if (keep && e == null) {
        e = EntryFormat.read(buf.duplicate().position(p), victim.id()); // verify before copying it
        keep = e != null && !e.expired(now);
      }
      if (keep && moved == IndexEntry.NONE) {
        moved = writer.append(LifetimeClass.SURVIVOR, e.key(), e.value(), e.expiryMillis(), e.sequence());
      }
      if (keep && moved != IndexEntry.NONE) {
        if (index.replace(hash, cur, moved)) {
          counters.reinserted.increment();
          return IndexEntry.sizeBytes(moved);
        }
      } else if (index.remove(hash, cur)) {
        counters.reclaimEvicted.increment();
        break;
      }
      cur = index.get(hash); // lost a race: an access bit was set, or the key was updated
    }
    if (moved != IndexEntry.NONE) {
      Segment s = table.get(IndexEntry.segmentId(moved));
      if (s != null) {
        s.addGarbage(IndexEntry.sizeBytes(moved)); // the update won; the copy is garbage
      }
    }
    return 0;
  }

  private ByteBuffer chunk() {
    if (chunk == null) {
      chunk = Device.allocateAligned(CHUNK_BYTES);
    }
    return chunk;
  }
}
