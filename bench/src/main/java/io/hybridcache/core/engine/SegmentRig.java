package io.hybridcache.core.engine;

import io.hybridcache.bench.jmh.Fixtures;
import io.hybridcache.core.api.LifetimeClass;
import io.hybridcache.core.device.Device;
import io.hybridcache.core.device.FileDevice;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The flash tier's write path without the engine, assembled from core's public segment classes the way
 * {@code FlashTier} assembles it: a device, its {@link SegmentTable} and a {@link SegmentWriter}, with
 * no write trace and no placement. Not thread-safe: like the flash writer thread, one thread appends.
 */
final class SegmentRig {
  final Counters counters = new Counters();
  final SegmentTable table;
  final SegmentWriter writer;
  private final AtomicLong sequence = new AtomicLong();

  /**
   * A writer over {@code device} with {@code bufferBytes} write buffers. With {@code recycle}, a new
   * segment that finds no free slot takes the slot of the oldest sealed segment (dropping it unread),
   * so appends go on forever; without, {@link #append} returns {@link IndexEntry#NONE} when slots run out.
   */
  SegmentRig(Device device, int bufferBytes, boolean recycle) {
    table = new SegmentTable(device.slotCount());
    table.rebuildFreeList();
    writer = new SegmentWriter(device, table, counters, null, bufferBytes, sequence::get);
    writer.slotSource(recycle ? this::recycledSlot : table::takeFreeSlot);
  }

  /** Slot files of {@code segmentBytes} in {@code dir}, read and written with O_DIRECT (fails without it). */
  static Device fileDevice(Path dir, int slots, int segmentBytes) throws IOException {
    Fixtures.requireDirectIo(dir);
    return FileDevice.open(dir, slots, segmentBytes, true);
  }

  /** Appends a FRESH entry that never expires; its packed index entry (NONE if no slot was free). */
  long append(long hash, byte[] key, byte[] value) throws IOException {
    return writer.append(LifetimeClass.FRESH, hash, key, value, 0, sequence.incrementAndGet());
  }

  long sequence() {
    return sequence.get();
  }

  /** Writes every buffer to the device, waits for it, and stops the flusher thread. */
  void close() throws IOException {
    try {
      writer.flushAll();
    } finally {
      writer.close();
    }
  }

  private int recycledSlot() {
    int slot = table.takeFreeSlot();
    if (slot >= 0) {
      return slot;
    }
    try {
      writer.awaitFlushes(); // nothing may still be writing to the slot handed out
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Segment oldest = table.segments().stream()
        .filter(s -> s.state() == Segment.State.SEALED)
        .min(Comparator.comparingLong(Segment::id))
        .orElse(null);
    if (oldest == null) {
      return -1;
    }
    table.release(oldest);
    return table.takeFreeSlot();
  }
}
