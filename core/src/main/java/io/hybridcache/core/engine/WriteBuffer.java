package io.hybridcache.core.engine;

import io.hybridcache.core.device.Device;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The in-memory tail of an active segment: appends land here and reach the device with one aligned
 * sequential write when the buffer is full (the paper's 16 KiB write buffer, size configurable).
 *
 * <p>Concurrency: one writer at a time (under the SegmentWriter's lock) appends and recycles, the
 * flusher thread reads the bytes it writes to the device; any number of readers copy published
 * entries out without locks. Readers are protected by a sequence lock: the writer makes {@code
 * generation} odd while it moves the buffer to a new position and even again after; a reader that
 * sees the generation change during its copy discards the copy and reads the device instead (the
 * bytes were flushed before the buffer moved). Bytes below {@code published} never change while the
 * generation is stable.
 */
final class WriteBuffer {
  private static final byte[] ZEROS = new byte[4096];
  private final ByteBuffer buf;
  private final ByteBuffer appendView; // under the writer's lock: appendSlice repositions it, allocating nothing
  private volatile long generation;
  private volatile int published;
  // Written only while generation is odd (under the writer's lock); readers validate with the generation.
  private long segmentId;
  private long base;
  private int used; // under the writer's lock: bytes appended incl. alignment padding

  public WriteBuffer(int capacity) {
    this.buf = Device.allocateAligned(capacity);
    this.appendView = buf.duplicate().order(ByteOrder.LITTLE_ENDIAN);
  }

  public int capacity() {
    return buf.capacity();
  }

  // ---- under the SegmentWriter's lock ----

  /** Points the empty buffer at {@code base} of segment {@code segmentId}. */
  void reset(long segmentId, long base) {
    generation++; // odd: readers back off
    VarHandle.storeStoreFence();
    this.segmentId = segmentId;
    this.base = base;
    this.used = 0;
    published = 0;
    generation++; // even again
  }

  long base() { return base; }
  int used() { return used; }
  int free() { return buf.capacity() - used; }

  /** Room for the entry in buffer {@code [used, used + bytes)}; caller writes it and then publishes. */
  ByteBuffer appendSlice(int bytes) {
    return appendView.limit(used + bytes).position(used); // valid until the next call
  }

  /**
   * Publishes {@code bytes} appended at the old {@code used}, then zero-pads to {@code alignment}
   * (padding must be zero on the device: reclaim's parser steps over zeros; stale bytes of an earlier
   * use of the buffer could look like an entry).
   */
  void publish(int bytes, int alignment) {
    int end = used + bytes;
    int aligned = Math.min(buf.capacity(), (end + alignment - 1) & -alignment);
    zero(end, aligned);
    published = end;
    used = aligned;
  }

  /** Zero-pads from {@code used} by {@code bytes} (page-aware placement: the next entry starts a page). */
  void pad(int bytes) {
    zero(used, used + bytes);
    used += bytes;
  }

  /** The aligned bytes to write to the device, [0, roundUp(used, 4096)), the tail zeroed. */
  ByteBuffer flushSlice() {
    int len = Device.roundUp(used);
    zero(used, len);
    return buf.duplicate().position(0).limit(len);
  }

  private void zero(int from, int to) {
    for (int i = from; i < to; i += ZEROS.length) { // bulk copies: the put path's padding is up to a page
      buf.put(i, ZEROS, 0, Math.min(ZEROS.length, to - i));
    }
  }

  // ---- any thread ----

  /**
   * Copies up to {@code maxBytes} starting at segment offset {@code offset} of {@code segmentId} if this
   * buffer holds them published; null if not (the caller then reads the device).
   */
  byte[] tryCopy(long segmentId, long offset, int maxBytes) {
    long g = generation;
    if ((g & 1) != 0) {
      return null;
    }
    long b = this.base;
    int p = published;
    if (this.segmentId != segmentId || offset < b || offset >= b + p) {
      return null;
    }
    int from = (int) (offset - b);
    int len = Math.min(maxBytes, p - from);
    byte[] copy = new byte[len];
    buf.get(from, copy, 0, len);
    VarHandle.loadLoadFence();
    return generation == g ? copy : null;
  }
}
