package io.hybridcache.core.device;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The storage under the flash tier: a fixed number of equally sized slots, each a preallocated segment
 * file (or its equivalent). A slot holds one segment at a time; segment ids live above this layer.
 *
 * <p>Implementations are thread-safe: reads may run concurrently with each other and with writes to
 * other slots; the flash tier never writes a range while reading it (see {@code FlashTier}).
 * Positions, lengths and buffer addresses passed in are multiples of {@link #ALIGNMENT}, and buffers
 * are direct, so the same calls work with O_DIRECT. Every call to {@link #read} is one device read.
 */
public interface Device extends Closeable {
  /** Alignment of positions, lengths and buffer addresses (the 4 KiB page of O_DIRECT). */
  int ALIGNMENT = 4096;

  int slotCount();

  long slotBytes();

  /** True when reads and writes bypass the page cache (O_DIRECT). */
  boolean directIo();

  /** Writes {@code src} (position to limit) at {@code offset} of {@code slot}; fully, or throws. */
  void write(int slot, long offset, ByteBuffer src) throws IOException;

  /**
   * Fills {@code dst} (position to limit) from {@code offset} of {@code slot}: one device read.
   * Reading a slot that is not {@link #allocated} throws an IOException.
   */
  void read(int slot, long offset, ByteBuffer dst) throws IOException;

  /**
   * Tells the device the slot's contents are garbage (trim / punch hole); contents become undefined
   * (zeros or old data), the slot stays allocated. A no-op on a slot that is not allocated.
   */
  void discard(int slot) throws IOException;

  /**
   * True when the slot has its full {@link #slotBytes} of storage (for files: the slot file exists with
   * the full size), which the first write to a slot arranges. Recovery inspects only allocated slots.
   */
  boolean allocated(int slot);

  /** The live counters of this device (reads, writes, bytes, discards). */
  DeviceCounters counters();

  /** Makes completed writes durable. */
  void sync() throws IOException;

  /** Passes a Linux write-life hint (RWH_WRITE_LIFE_*, 0..5) for the slot; false where unsupported. */
  default boolean setWriteLifeHint(int slot, int hint) {
    return false;
  }

  /** Allocates a direct buffer of {@code bytes} (rounded up to ALIGNMENT) aligned to ALIGNMENT. */
  static ByteBuffer allocateAligned(int bytes) {
    int size = roundUp(bytes);
    return ByteBuffer.allocateDirect(size + ALIGNMENT).alignedSlice(ALIGNMENT).limit(size);
  }

  static int roundUp(int bytes) {
    return (bytes + ALIGNMENT - 1) & -ALIGNMENT;
  }

  static long roundUp(long bytes) {
    return (bytes + ALIGNMENT - 1) & -ALIGNMENT;
  }

  static long roundDown(long bytes) {
    return bytes & -ALIGNMENT;
  }
}
