package io.hybridcache.core.engine;

import io.hybridcache.core.device.Device;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the segments a device holds by reading each allocated slot's header: the first step of every
 * recovery (the flash tier's and a {@link RecordLog}'s).
 *
 * <p>Design note (CaSSanDra paper, section V: a segment file is self-describing). Headers carry a
 * segment id's low 32 bits, so two headers may share a tag: a live segment and the stale header of a
 * released one left in a free slot. The one with the higher sequence (written later) is the live one.
 *
 * <p>Concurrency: a scan runs on one thread before the device is shared. Reclaim: none.
 */
final class SlotScan {
  private SlotScan() {}

  /** A segment's header as found in {@code slot}. */
  record Found(int slot, long segmentId, int lifetimeClass, long sequence) {}

  /** Called for a slot whose header cannot be read (the slot is then free for reuse). */
  @FunctionalInterface
  interface Unreadable {
    void slot(int slot, IOException e);
  }

  /**
   * One header per segment tag of {@code table} (the newest where two share a tag), in ascending
   * segment id order. Slots that are unallocated, unreadable or hold no valid header are left out.
   */
  static List<Found> headers(Device device, SegmentTable table, Unreadable unreadable) {
    ByteBuffer page = Device.allocateAligned(Device.ALIGNMENT);
    Map<Long, Found> byTag = new HashMap<>();
    for (int slot = 0; slot < table.slotCount(); slot++) {
      if (!device.allocated(slot)) {
        continue;
      }
      SegmentHeader.Decoded h;
      try {
        h = SegmentHeader.read(device, slot, page);
      } catch (IOException e) {
        unreadable.slot(slot, e);
        continue;
      }
      long tag = h == null || h.segmentId() == 0 ? 0 : table.tagOf(h.segmentId());
      if (tag == 0) {
        continue;
      }
      Found f = new Found(slot, h.segmentId(), h.lifetimeClass(), h.sequence());
      byTag.merge(tag, f, (a, b) -> a.sequence() >= b.sequence() ? a : b);
    }
    List<Found> found = new ArrayList<>(byTag.values());
    found.sort(Comparator.comparingLong(Found::segmentId));
    return found;
  }
}
