package io.hybridcache.core.engine;

import io.hybridcache.core.device.Device;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * The keys of live flash entries, found by reading every segment sequentially in large aligned reads
 * and keeping the entries the index still points at (the exact segment and offset).
 *
 * <p>Not thread-safe: one caller iterates. It runs beside lookups, the writer and reclaim without
 * locks. Reclaim may move an entry the scan has not reached yet into bytes it has already passed (the
 * tail of an older active segment, or a new segment). So the scan works in rounds: each round first
 * flushes the write buffers, then reads the bytes flushed since the previous round (new segments and
 * the grown tails of old ones). Entries written before the scan started keep their sequence number
 * when reclaim moves them, so a round that finds none in its new bytes, live or dead, proves nothing
 * was moved past the scan since the previous flush: every entry on flash when the scan started has
 * then been seen. A key reclaim moves after the scan read it is seen twice.
 *
 * <p>Never partial: a scan that cannot finish (a read error, a flush that did not happen, reclaim
 * outrunning it for {@value #MAX_ROUNDS} rounds) calls {@code onFailure} with the reason, which drops
 * the whole flash index, and ends. The sequence argument holds across crashes because recovery
 * restarts the sequence above every entry on flash ({@link SequenceLease}).
 */
final class FlashKeyScan implements Iterator<byte[]> {
  private static final int CHUNK = 1 << 20;
  private static final int MAX_ROUNDS = 100;

  private final Index index;
  private final SegmentTable table;
  private final Device device;
  private final int window;
  private final int maxEntryBytes;
  private final long startSequence;
  private final java.util.function.BooleanSupplier flush;
  private final java.util.function.Consumer<String> onFailure;
  private final Map<Long, Long> scannedTo = new HashMap<>(); // segment id -> offset read up to
  private final ArrayDeque<Segment> todo = new ArrayDeque<>();
  private boolean sawOlder; // this round read an entry written before the scan started
  private final ArrayDeque<byte[]> ready = new ArrayDeque<>();
  private final ByteBuffer buffer;
  private int rounds;
  private Segment current;
  private long position;

  /**
   * @param startSequence the cache's sequence when the scan starts: entries below it existed before
   * @param flush makes every queued and buffered write readable from the device; false if it could not
   * @param onFailure called once with the reason when the scan cannot see every key
   */
  FlashKeyScan(Index index, SegmentTable table, Device device, int maxEntryBytes, long startSequence,
      java.util.function.BooleanSupplier flush, java.util.function.Consumer<String> onFailure) {
    this.startSequence = startSequence;
    this.flush = flush;
    this.onFailure = onFailure;
    this.index = index;
    this.table = table;
    this.device = device;
    this.maxEntryBytes = maxEntryBytes;
    this.window = Device.roundUp(CHUNK + maxEntryBytes + Device.ALIGNMENT);
    this.buffer = Device.allocateAligned(window);
  }

  @Override
  public boolean hasNext() {
    while (ready.isEmpty()) {
      if (!advance()) {
        return false;
      }
    }
    return true;
  }

  @Override
  public byte[] next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return ready.poll();
  }

  /** Reads the next window; false when every segment has been read. */
  private boolean advance() {
    if (current == null) {
      if (todo.isEmpty() && !nextRound()) {
        return false;
      }
      current = todo.poll();
      position = scannedTo.getOrDefault(current.id(), (long) SegmentHeader.FIRST_ENTRY_OFFSET);
    }
    long end = Math.min(current.flushedOffset(), device.slotBytes());
    if (position >= end || table.get(current.id()) != current) {
      current = null;
      return true;
    }
    long start = Device.roundDown(position);
    int length = (int) Math.min(window, Device.roundUp(end) - start);
    buffer.clear().limit(length);
    try {
      device.read(current.slot(), start, buffer);
    } catch (IOException e) {
      return fail("flash key scan of segment " + current.id() + " failed: " + e);
    }
    position = parse(buffer.flip().order(ByteOrder.LITTLE_ENDIAN), start, Math.min(end, start + length), end);
    scannedTo.put(current.id(), position);
    return true;
  }

  /** Parses entries from {@code position}; returns where the next read starts ({@code end}: done). */
  private long parse(ByteBuffer b, long start, long windowEnd, long end) {
    long id = current.id();
    long off = position;
    while (true) {
      if (off >= start + CHUNK && windowEnd < end) {
        return off; // the rest comes with the next window
      }
      if (off + EntryFormat.HEADER_BYTES > windowEnd) {
        return windowEnd >= end ? end : off;
      }
      int rel = (int) (off - start);
      long total = EntryFormat.HEADER_BYTES + (long) Short.toUnsignedInt(b.getShort(rel + 10)) + b.getInt(rel + 12);
      if (b.getInt(rel) != EntryFormat.MAGIC || total > maxEntryBytes || total <= EntryFormat.HEADER_BYTES) {
        off += IndexEntry.OFFSET_ALIGNMENT; // padding, a torn entry or garbage
        continue;
      }
      if (off + total > windowEnd && windowEnd < end) {
        return off; // the entry runs past this window: read again from it
      }
      EntryFormat.Entry e = EntryFormat.read(b.duplicate().position(rel), id);
      if (e == null) {
        off += IndexEntry.OFFSET_ALIGNMENT;
        continue;
      }
      boolean older = e.sequence() < startSequence;
      sawOlder |= older;
      long packed = index.get(KeyHash.of(e.key()));
      if (IndexEntry.segmentTag(packed) == table.tagOf(id) && IndexEntry.offset(packed) == off && (rounds == 1 || older)
          && !e.expired(System.currentTimeMillis())) { // an expired entry is not held: a read would miss it
        ready.add(e.key());
      }
      off = (off + e.bytes() + IndexEntry.OFFSET_ALIGNMENT - 1) & -IndexEntry.OFFSET_ALIGNMENT;
    }
  }

  /** Ends the scan after dropping every flash key (see the class comment); returns false. */
  private boolean fail(String reason) {
    todo.clear();
    ready.clear();
    current = null;
    rounds = MAX_ROUNDS + 1;
    sawOlder = false;
    onFailure.accept(reason);
    return false;
  }

  /** Flushes and queues every segment with bytes not read yet, oldest first; false when done. */
  private boolean nextRound() {
    if (rounds > 0 && !sawOlder) {
      return false; // nothing written before the start moved past the scan: every such entry was seen
    }
    if (rounds >= MAX_ROUNDS) {
      return fail("flash key scan stopped after " + rounds + " rounds while reclaim kept moving entries");
    }
    rounds++;
    sawOlder = false;
    if (!flush.getAsBoolean()) {
      return fail("the write buffers could not be flushed for the flash key scan");
    }
    table.segments().stream()
        .filter(s -> s.flushedOffset() > scannedTo.getOrDefault(s.id(), (long) SegmentHeader.FIRST_ENTRY_OFFSET))
        .sorted(Comparator.comparingLong(Segment::id))
        .forEach(todo::add);
    return !todo.isEmpty();
  }
}
