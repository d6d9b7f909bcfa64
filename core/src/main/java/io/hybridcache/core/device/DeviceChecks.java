package io.hybridcache.core.device;

import java.nio.ByteBuffer;

/**
 * Argument checks shared by the devices, so that code that runs against {@link MemoryDevice} also runs
 * against {@link FileDevice} with O_DIRECT. Thread-safe: stateless. Every violation is a caller bug and
 * throws {@link IllegalArgumentException} (or {@link IndexOutOfBoundsException} for a slot) naming the
 * bad value.
 */
final class DeviceChecks {
  private DeviceChecks() {}

  static void checkSlot(int slot, int slotCount) {
    if (slot < 0 || slot >= slotCount) {
      throw new IndexOutOfBoundsException("slot " + slot + " not in [0, " + slotCount + ")");
    }
  }

  /** Checks a read or write of {@code buf} (position to limit) at {@code offset} of {@code slot}. */
  static void checkIo(int slot, long offset, ByteBuffer buf, int slotCount, long slotBytes) {
    checkSlot(slot, slotCount);
    int length = buf.remaining();
    if (offset < 0 || (offset & (Device.ALIGNMENT - 1)) != 0) {
      throw new IllegalArgumentException(
          "offset must be a non-negative multiple of " + Device.ALIGNMENT + ": " + offset);
    }
    if ((length & (Device.ALIGNMENT - 1)) != 0) {
      throw new IllegalArgumentException(
          "length (buffer remaining) must be a multiple of " + Device.ALIGNMENT + ": " + length);
    }
    if (offset > slotBytes - length) {
      throw new IllegalArgumentException("range [" + offset + ", " + (offset + length)
          + ") exceeds the slot size " + slotBytes);
    }
    if (!buf.isDirect()) {
      throw new IllegalArgumentException("buffer must be direct (see Device.allocateAligned)");
    }
    if (buf.alignmentOffset(buf.position(), Device.ALIGNMENT) != 0) {
      throw new IllegalArgumentException("buffer address at position " + buf.position()
          + " is not aligned to " + Device.ALIGNMENT + " (see Device.allocateAligned)");
    }
  }

  static void checkHint(int hint) {
    if (hint < 0 || hint > 5) {
      throw new IllegalArgumentException("write-life hint must be in [0, 5] (RWH_WRITE_LIFE_*): " + hint);
    }
  }
}
