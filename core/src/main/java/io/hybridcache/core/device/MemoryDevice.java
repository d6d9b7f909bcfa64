package io.hybridcache.core.device;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A {@link Device} in memory, one direct buffer per slot, for tests and benchmarks that want the
 * flash tier without a disk. Thread-safe: reads and writes of any slots may run concurrently; the same
 * argument checks, allocation rule and counters as {@link FileDevice}, so code tested here runs there.
 *
 * <p><b>Slots.</b> A slot's buffer ({@link #slotBytes}, zeroed) is allocated by its first write, which
 * makes it {@link #allocated}; {@link #discard} zero-fills it (it stays allocated). Reading a slot
 * never written throws an IOException, as reading a missing slot file does. Nothing survives
 * {@link #close}. {@link #sync} does nothing. {@link #setWriteLifeHint} records the hint (see
 * {@link #writeLifeHint}) and returns true, so placement code can be tested against it.
 *
 * <p><b>Concurrency.</b> Buffers are published through an {@link AtomicReferenceArray} (a racing
 * allocator drops its copy) and accessed only with absolute bulk get/put, which touch no shared
 * buffer position. The bytes themselves are plain memory: a reader sees a writer's bytes when the
 * caller orders the two (as the flash tier does by publishing an address only after its write returns),
 * exactly as for a file.
 *
 * <p><b>Errors.</b> Argument violations throw IllegalArgumentException / IndexOutOfBoundsException
 * (aligned offsets, lengths and direct aligned buffers are required, as with O_DIRECT); calls after
 * {@link #close} throw ClosedChannelException. There is no other failure; use the test-only
 * {@code FaultInjectingDevice} to inject some.
 */
public final class MemoryDevice implements Device {
  private static final int ZERO_CHUNK = 64 * 1024;
  private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(ZERO_CHUNK).asReadOnlyBuffer();

  private final int slotCount;
  private final long slotBytes;
  private final AtomicReferenceArray<ByteBuffer> slots;
  private final AtomicIntegerArray hints;
  private final DeviceCounters counters = new DeviceCounters();
  private volatile boolean closed;

  /**
   * @throws IllegalArgumentException if slotCount is not positive or slotBytes is not a positive
   *     multiple of {@link Device#ALIGNMENT} of at most 1 GiB
   */
  public MemoryDevice(int slotCount, long slotBytes) {
    if (slotCount <= 0) {
      throw new IllegalArgumentException("slotCount must be > 0: " + slotCount);
    }
    if (slotBytes <= 0 || slotBytes % ALIGNMENT != 0 || slotBytes > (1L << 30)) {
      throw new IllegalArgumentException(
          "slotBytes must be a positive multiple of " + ALIGNMENT + " up to 1 GiB: " + slotBytes);
    }
    this.slotCount = slotCount;
    this.slotBytes = slotBytes;
    this.slots = new AtomicReferenceArray<>(slotCount);
    this.hints = new AtomicIntegerArray(slotCount);
    for (int i = 0; i < slotCount; i++) {
      hints.set(i, -1);
    }
  }

  @Override
  public int slotCount() {
    return slotCount;
  }

  @Override
  public long slotBytes() {
    return slotBytes;
  }

  @Override
  public boolean directIo() {
    return false;
  }

  @Override
  public DeviceCounters counters() {
    return counters;
  }

  @Override
  public boolean allocated(int slot) {
    DeviceChecks.checkSlot(slot, slotCount);
    return slots.get(slot) != null;
  }

  @Override
  public void write(int slot, long offset, ByteBuffer src) throws IOException {
    DeviceChecks.checkIo(slot, offset, src, slotCount, slotBytes);
    ByteBuffer buffer = slots.get(slot);
    if (buffer == null) {
      ensureOpen();
      ByteBuffer fresh = Device.allocateAligned((int) slotBytes);
      buffer = slots.compareAndSet(slot, null, fresh) ? fresh : slots.get(slot);
    }
    ensureOpen();
    int length = src.remaining();
    buffer.put((int) offset, src, src.position(), length);
    src.position(src.position() + length);
    counters.recordWrite(length);
  }

  @Override
  public void read(int slot, long offset, ByteBuffer dst) throws IOException {
    DeviceChecks.checkIo(slot, offset, dst, slotCount, slotBytes);
    ensureOpen();
    ByteBuffer buffer = slots.get(slot);
    if (buffer == null) {
      throw new IOException("slot " + slot + " is not allocated (never written)");
    }
    int length = dst.remaining();
    dst.put(dst.position(), buffer, (int) offset, length);
    dst.position(dst.position() + length);
    counters.recordRead(length);
  }

  @Override
  public void discard(int slot) throws IOException {
    DeviceChecks.checkSlot(slot, slotCount);
    ensureOpen();
    ByteBuffer buffer = slots.get(slot);
    if (buffer != null) {
      for (int at = 0; at < buffer.capacity(); at += ZERO_CHUNK) {
        buffer.put(at, ZEROS, 0, Math.min(ZERO_CHUNK, buffer.capacity() - at));
      }
    }
    counters.recordDiscard(false);
  }

  @Override
  public void sync() throws IOException {
    ensureOpen();
  }

  /** Records the hint; always true (there is no kernel to refuse it). */
  @Override
  public boolean setWriteLifeHint(int slot, int hint) {
    DeviceChecks.checkSlot(slot, slotCount);
    DeviceChecks.checkHint(hint);
    hints.set(slot, hint);
    return true;
  }

  /** The last hint set on {@code slot}, or -1. */
  public int writeLifeHint(int slot) {
    DeviceChecks.checkSlot(slot, slotCount);
    return hints.get(slot);
  }

  /** Drops every slot's buffer; later calls throw ClosedChannelException. */
  @Override
  public void close() {
    closed = true;
    for (int i = 0; i < slotCount; i++) {
      slots.set(i, null);
    }
  }

  private void ensureOpen() throws ClosedChannelException {
    if (closed) {
      throw new ClosedChannelException();
    }
  }

  @Override
  public String toString() {
    return "MemoryDevice{slots=" + slotCount + " x " + slotBytes + " B}";
  }
}
