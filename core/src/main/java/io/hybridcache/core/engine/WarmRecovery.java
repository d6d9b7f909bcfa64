package io.hybridcache.core.engine;

import io.hybridcache.core.device.Device;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds the compact index after an unclean stop: the last checkpoint ({@link IndexCheckpoint}), minus
 * the invalidations journaled since it began ({@link InvalidationJournal}), plus the entries appended
 * since it began, read back from the segments (LFS roll-forward; ARIES redo from the checkpoint's start).
 *
 * <p>Not thread-safe: used once by the opening thread, before the writer starts.
 *
 * <p>The journal keeps two halves: the checkpoint's epoch and the next. A half of an epoch two or more
 * above the checkpoint's means a later checkpoint was made durable and the checkpoint's own half recycled,
 * so this checkpoint file is older than the journal (a lost rename): recovery then starts cold. The open's
 * base checkpoint skips an epoch ({@link FlashOpener}) so that its lost rename shows the same way.
 *
 * <p>Why no older version can come back. Every version of a key carries the sequence of its put, drawn
 * inside the DRAM tier's compute for the key, so a key's sequences grow in the order its puts and removes
 * took effect. A put or remove that could leave an older version of its key on flash (the key was
 * indexed, or a write of it was queued) journals (key hash, its sequence) before it returns; recovery
 * drops the checkpoint's entry for every journaled key and replays an entry only if no record of its key
 * has a higher sequence (matched by index identity, stripe and tag, not by full hash: keys that share an
 * identity share a slot, see {@link #killedIdentities}). Entries that leave the index without such a call
 * are those of segments reclaim or fault handling drops (journaled as dropped segments before any entry
 * is unlinked: none of their entries is replayed or kept), entries the index had no room for (journaled
 * as invalidations), entries another key with the same identity replaced (journaled by the install that
 * replaced them), entries a read found corrupt (journaled: the bytes on the device may be intact), and
 * stale or expired ones (which fail the same checks when replayed or read). Of several replayed
 * copies of a key the highest sequence wins (a reclaim copy keeps its original's sequence and content).
 *
 * <p>Scan: every allocated slot's header page is read; a segment opened after the checkpoint began is
 * read whole, an active one from its recorded offset, in chunks of up to {@value #CHUNK_BYTES} bytes; every
 * 16-byte aligned position that holds an intact entry of that segment (magic, segment id, CRC32C) is
 * replayed. Torn or stale bytes are skipped.
 */
final class WarmRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(WarmRecovery.class);
  /** Largest read of the scan; at least twice the largest entry, so an entry never outgrows a chunk. */
  static final int CHUNK_BYTES = 16 * 1024 * 1024;

  /** The recovered index, the highest sequence seen (the counter restarts above it) and the epoch found. */
  record Result(HeapIndex index, long maxSequence, long maxEpoch, long replayed) {}

  private WarmRecovery() {}

  /**
   * The recovered index, or null if the checkpoint is missing, unreadable, not journaled, or the journal
   * cannot be trusted: then the cache starts cold.
   */
  static Result recover(String name, Device device, SegmentTable table, Path checkpoint, Path journal,
      long expectedEntries) {
    long t0 = System.nanoTime();
    IndexCheckpoint.Loaded c = IndexCheckpoint.read(checkpoint, expectedEntries);
    long t1 = System.nanoTime();
    if (c == null || !c.journaled()) {
      LOG.warn("{}: no journaled index checkpoint after an unclean stop; starting cold", name);
      return null;
    }
    InvalidationJournal.Records r = InvalidationJournal.read(journal, c.epoch());
    if (r.untrusted) {
      LOG.warn("{}: the invalidation journal overflowed or cannot be read; starting cold", name);
      return null;
    }
    if (r.maxEpoch > c.epoch() + 1) { // a later checkpoint was durable before that half was recycled
      LOG.warn("{}: the invalidation journal (epoch {}) no longer holds the records of checkpoint epoch {}"
          + " (an OS crash lost a later checkpoint's rename); starting cold", name, r.maxEpoch, c.epoch());
      return null;
    }
    HeapIndex index = c.index();
    long loaded = index.size();
    apply(r, index, table);
    long[] maxSeq = {Math.max(r.maxSequence, c.start().sequence())};
    long replayed;
    long t2 = System.nanoTime();
    try {
      replayed = replay(device, table, c.start(), r, index, maxSeq);
    } catch (IOException | IndexFullException e) {
      LOG.warn("{}: replay of the segments written after the checkpoint failed ({}); starting cold", name,
          e.toString());
      return null;
    }
    LOG.info("{}: index recovered from checkpoint epoch {} ({} entries, {} ms) with {} journal records and {}"
        + " replayed entries ({} ms)", name, c.epoch(), loaded, (t1 - t0) / 1_000_000, r.applied, replayed,
        (System.nanoTime() - t2) / 1_000_000);
    return new Result(index, maxSeq[0], Math.max(c.epoch(), r.maxEpoch), replayed);
  }

  /** Drops every checkpoint entry a record invalidates. */
  private static void apply(InvalidationJournal.Records r, HeapIndex index, SegmentTable table) {
    if (r.clearedBelow > 0) {
      index.clear();
      return;
    }
    for (long hash : r.keys.keySet()) {
      index.remove(hash);
    }
    if (!r.droppedSegments.isEmpty()) {
      Set<Long> tags = new HashSet<>();
      for (long id : r.droppedSegments) {
        tags.add(table.tagOf(id));
      }
      index.forEach((hash, packed) -> {
        if (tags.contains(IndexEntry.segmentTag(packed))) {
          index.remove(hash, packed);
        }
      });
    }
  }

  /** Installs the newest surviving entry of each key written after the checkpoint began; returns how many. */
  private static long replay(Device device, SegmentTable table, IndexCheckpoint.Start start,
      InvalidationJournal.Records r, HeapIndex index, long[] maxSeq) throws IOException {
    Set<Long> dropped = new HashSet<>();
    for (long id : r.droppedSegments) {
      dropped.add(id & 0xFFFF_FFFFL); // headers carry the id's low 32 bits
    }
    Map<Long, long[]> newest = new HashMap<>(); // hash -> {sequence, packed}
    ByteBuffer page = Device.allocateAligned(Device.ALIGNMENT);
    ByteBuffer chunk = null;
    for (int slot = 0; slot < table.slotCount(); slot++) {
      if (!device.allocated(slot)) {
        continue;
      }
      SegmentHeader.Decoded h = SegmentHeader.read(device, slot, page);
      if (h == null || h.segmentId() == 0 || dropped.contains(h.segmentId()) || table.tagOf(h.segmentId()) == 0) {
        continue;
      }
      long from = start.replayFrom(h.segmentId());
      if (from < 0) {
        continue;
      }
      if (chunk == null) {
        chunk = Device.allocateAligned((int) Math.min(CHUNK_BYTES, device.slotBytes()));
      }
      long tag = table.tagOf(h.segmentId());
      scan(device, slot, h.segmentId(), Math.max(from, SegmentHeader.FIRST_ENTRY_OFFSET), chunk,
          (offset, hash, sequence, bytes) -> {
            long packed = IndexEntry.pack(SegmentAddress.of(tag, offset), bytes);
            long[] cur = newest.get(hash);
            if (cur == null) {
              newest.put(hash, new long[] {sequence, packed});
            } else if (sequence >= cur[0]) {
              cur[0] = sequence;
              cur[1] = packed;
            }
            maxSeq[0] = Math.max(maxSeq[0], sequence);
          });
    }
    long installed = 0;
    Map<Long, Long> killed = killedIdentities(r, index);
    index.reserve(newest.size()); // one rehash at most, instead of growing step by step while installing
    for (Map.Entry<Long, long[]> en : newest.entrySet()) {
      long hash = en.getKey();
      long[] v = en.getValue();
      Long k = killed.get(index.identity(hash));
      if (v[0] >= r.clearedBelow && (k == null || k <= v[0])) {
        index.put(hash, v[1]);
        installed++;
      }
    }
    return installed;
  }

  /**
   * Per index identity (stripe and tag, {@link HeapIndex#identity}), the highest sequence of a record of
   * a key with that identity: an entry below it is dead. The index keeps one slot per identity, so a record
   * of one key may stand for another that shared its slot ({@link FlashTier}'s install journals the key
   * it replaced under the installing key's hash); killing by identity costs such keys a miss, never more.
   */
  private static Map<Long, Long> killedIdentities(InvalidationJournal.Records r, HeapIndex index) {
    Map<Long, Long> killed = new HashMap<>();
    r.keys.forEach((hash, seq) -> killed.merge(index.identity(hash), seq, Math::max));
    return killed;
  }

  /** Receives each intact entry of a scanned segment: its offset, key hash, sequence and size. */
  @FunctionalInterface
  interface EntrySink {
    void accept(long offset, long keyHash, long sequence, int bytes);
  }

  /** Reads segment {@code segmentId} in {@code slot} from {@code from} to its end; see the class comment. */
  static void scan(Device device, int slot, long segmentId, long from, ByteBuffer chunk, EntrySink sink)
      throws IOException {
    long end = device.slotBytes();
    int chunkBytes = chunk.capacity();
    long pos = from & -IndexEntry.OFFSET_ALIGNMENT;
    while (true) {
      long chunkStart = Device.roundDown(pos);
      int len = (int) Math.min(chunkBytes, end - chunkStart);
      chunk.clear().limit(len);
      device.read(slot, chunkStart, chunk);
      chunk.flip();
      ByteBuffer b = chunk.duplicate().order(ByteOrder.LITTLE_ENDIAN);
      int p = (int) (pos - chunkStart);
      while (p + EntryFormat.HEADER_BYTES <= len) {
        int extent = EntryFormat.extentAt(b, p, segmentId);
        if (extent == 0) {
          p += IndexEntry.OFFSET_ALIGNMENT;
          continue;
        }
        if (p + extent > len) {
          if (len == chunkBytes && p > 0) {
            break; // straddles the chunk: read the next chunk from here
          }
          p += IndexEntry.OFFSET_ALIGNMENT; // runs past the segment: not an entry
          continue;
        }
        if (!EntryFormat.intact(b, p, extent, segmentId)) { // verified in place: nothing copied
          p += IndexEntry.OFFSET_ALIGNMENT;
          continue;
        }
        sink.accept(chunkStart + p, KeyHash.of(b, p + EntryFormat.HEADER_BYTES, Short.toUnsignedInt(b.getShort(p + 10))),
            EntryFormat.sequenceAt(b, p), extent);
        p += (extent + IndexEntry.OFFSET_ALIGNMENT - 1) & -IndexEntry.OFFSET_ALIGNMENT;
      }
      if (chunkStart + len >= end) {
        return;
      }
      pos = chunkStart + p; // past the chunk's first page: an entry is at most half a chunk
    }
  }
}
