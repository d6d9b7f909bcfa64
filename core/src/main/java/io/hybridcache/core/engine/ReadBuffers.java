package io.hybridcache.core.engine;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.device.Device;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The aligned direct buffers flash reads land in, shared by every reading thread and bounded in total:
 * at most {@code count} buffers of {@value #SMALL_BYTES} B (or of the largest read, if smaller) and, where
 * an entry can be larger, at most {@value #LARGE_BUFFERS} of the largest read ({@link #boundBytes}),
 * however many threads read, platform or virtual. A per-thread buffer instead cost each thread that ever
 * read at least 64 KiB, for as long as the thread lived (issue 25, item 11).
 *
 * <p>Thread-safe. Concurrency: lock-free while a buffer is free. A read takes a buffer from its tier's
 * slots with one CAS, probing from a slot picked by the thread's hash, and puts it back there with
 * another, so a thread that reads again mostly finds its own buffer at its first probe and readers rarely
 * touch the same slot. Buffers are made on demand (a count bounds them), so a cache read by few threads
 * holds few. With every buffer in use a reader waits for one under the tier's lock, uninterruptibly (an
 * interrupted caller still reads, as {@code FileDevice} promises); a buffer is held for one device read
 * only, so the wait is about one read.
 *
 * <p>Reclaim: {@link #close} drops every buffer put back (the direct memory goes with the next GC);
 * one put back later is dropped too. An allocation the JVM refuses ({@link OutOfMemoryError}: direct
 * memory exhausted) leaves the pool as it was and reaches the caller, for whom it is a counted miss.
 */
final class ReadBuffers {
  /** The buffer of a read of at most this many bytes (a 4 KiB-aligned span of one entry). */
  static final int SMALL_BYTES = 64 * 1024;
  /** Buffers for reads above {@link #SMALL_BYTES} (large entries: a device read of up to writeBufferBytes). */
  static final int LARGE_BUFFERS = 4;

  private final Tier small;
  private final Tier large; // null when no read exceeds the small buffers

  /**
   * {@code count} buffers for reads up to {@value #SMALL_BYTES} B, and {@link #LARGE_BUFFERS} (at most
   * {@code count}) for reads of entries up to {@code maxEntryBytes}.
   */
  ReadBuffers(int count, int maxEntryBytes) {
    if (count < 1) {
      throw new IllegalArgumentException("read buffers must be >= 1, was " + count);
    }
    int maxRead = maxReadBytes(maxEntryBytes);
    this.small = new Tier(count, Math.min(SMALL_BYTES, maxRead));
    this.large = maxRead > SMALL_BYTES ? new Tier(Math.min(LARGE_BUFFERS, count), maxRead) : null;
  }

  /** The most a read of one entry of {@code maxEntryBytes} spans: its pages, one more if unaligned. */
  static int maxReadBytes(int maxEntryBytes) {
    return Device.roundUp(maxEntryBytes) + Device.ALIGNMENT;
  }

  /**
   * The most direct memory a cache's reads hold (what src/site/faults.md states): the lookups' pool of
   * {@link CacheConfig#readBuffers()} and reclaim's of one, each buffer with its 4 KiB alignment slack.
   */
  static long boundBytes(CacheConfig c) {
    return boundBytes(c.readBuffers(), c.writeBufferBytes()) + boundBytes(1, c.writeBufferBytes());
  }

  static long boundBytes(int count, int maxEntryBytes) {
    int maxRead = maxReadBytes(maxEntryBytes);
    long bytes = (long) count * (Math.min(SMALL_BYTES, maxRead) + Device.ALIGNMENT);
    return maxRead > SMALL_BYTES ? bytes + (long) Math.min(LARGE_BUFFERS, count) * (maxRead + Device.ALIGNMENT)
        : bytes;
  }

  /**
   * A buffer of at least {@code bytes}, cleared with its limit at {@code bytes}; waits while all are in
   * use. Give it back with {@link #release}. A read larger than {@link #maxReadBytes} of the largest entry
   * (one written with a larger {@code writeBufferBytes} before a restart) gets a buffer of its own, not
   * kept, counted among the largest tier's.
   *
   * @throws OutOfMemoryError if a new buffer could not be allocated (direct memory exhausted)
   */
  ByteBuffer acquire(int bytes) {
    ByteBuffer b = tierFor(bytes).take(bytes);
    b.clear().limit(bytes);
    return b;
  }

  /**
   * The small tier, or the large one; a read larger than the large buffers (an entry written with a larger
   * {@code writeBufferBytes} before a restart) counts in the largest tier, with a buffer of its own.
   */
  private Tier tierFor(int bytes) {
    return bytes <= small.bytes || large == null ? small : large;
  }

  /** Puts back a buffer of {@link #acquire}. */
  void release(ByteBuffer b) {
    tierFor(b.capacity()).put(b);
  }

  /** Drops the buffers not in use, and every one put back from now on. */
  void close() {
    small.close();
    if (large != null) {
      large.close();
    }
  }

  /** Direct memory the pool holds now (buffers made and not dropped, with their alignment slack). */
  long retainedBytes() {
    return small.retainedBytes() + (large == null ? 0 : large.retainedBytes());
  }

  /**
   * At most N buffers of one size ({@code made} counts them, an oversize read's own buffer too) in N slots,
   * each slot a buffer put back or empty. Taking and putting back is a CAS on a slot; only a reader that
   * finds none waits, under {@code lock}, for a put to signal it.
   */
  private static final class Tier {
    final int bytes;
    final AtomicReferenceArray<ByteBuffer> slots;
    final AtomicInteger made = new AtomicInteger();
    final AtomicInteger waiters = new AtomicInteger(); // readers in takeSlow: a put signals them
    final ReentrantLock lock = new ReentrantLock();
    final Condition returned = lock.newCondition();
    volatile boolean closed;

    Tier(int count, int bytes) {
      this.bytes = bytes;
      this.slots = new AtomicReferenceArray<>(count);
    }

    ByteBuffer take(int size) {
      ByteBuffer b = tryTake(size);
      return b != null ? b : takeSlow(size);
    }

    /** Waits for a put. A waiter counts itself before it looks, so a put either shows or signals it. */
    private ByteBuffer takeSlow(int size) {
      lock.lock();
      waiters.incrementAndGet();
      try {
        while (true) {
          ByteBuffer b = tryTake(size);
          if (b != null) {
            return b;
          }
          returned.awaitUninterruptibly(); // an interrupted caller still reads, keeping its flag
        }
      } finally {
        waiters.decrementAndGet();
        lock.unlock();
      }
    }

    /**
     * A buffer put back, or a new one while fewer than N exist; null if neither. An oversize read gets a
     * buffer of its own, in place of one put back if N exist.
     */
    private ByteBuffer tryTake(int size) {
      if (size > bytes) {
        return reserve() || poll() != null ? allocate(size) : null;
      }
      ByteBuffer b = poll();
      return b != null ? b : reserve() ? allocate(bytes) : null;
    }

    private ByteBuffer poll() {
      int n = slots.length();
      int start = home(n);
      for (int i = 0; i < n; i++) {
        int s = start + i < n ? start + i : start + i - n;
        ByteBuffer b = slots.get(s);
        if (b != null && slots.compareAndSet(s, b, null)) {
          return b;
        }
      }
      return null;
    }

    /** The slot a thread looks at first and puts back to: a thread that reads again finds its buffer there. */
    private static int home(int n) {
      int h = Thread.currentThread().hashCode();
      return Math.floorMod(h ^ (h >>> 16), n);
    }

    private boolean reserve() {
      for (int m; (m = made.get()) < slots.length(); ) {
        if (made.compareAndSet(m, m + 1)) {
          return true;
        }
      }
      return false;
    }

    private ByteBuffer allocate(int size) {
      try {
        return Device.allocateAligned(size);
      } catch (Throwable e) { // direct memory exhausted: the pool stays as it was
        dropped();
        throw e;
      }
    }

    void put(ByteBuffer b) {
      if (b.capacity() != bytes || closed) {
        dropped(); // an oversize read's own buffer, or the cache closed
        return;
      }
      int n = slots.length();
      int start = home(n);
      for (int i = 0; ; i++) { // a slot is empty: at most N-1 other buffers are in the slots
        int s = (start + i) % n;
        if (slots.get(s) == null && slots.compareAndSet(s, null, b)) {
          if (closed && slots.compareAndSet(s, b, null)) {
            made.decrementAndGet(); // close ran meanwhile
          }
          break;
        }
      }
      signalWaiters();
    }

    private void dropped() {
      made.decrementAndGet();
      signalWaiters();
    }

    private void signalWaiters() {
      if (waiters.get() > 0) {
        lock.lock();
        try {
          returned.signal();
        } finally {
          lock.unlock();
        }
      }
    }

    void close() {
      closed = true;
      for (int s = 0; s < slots.length(); s++) {
        if (slots.getAndSet(s, null) != null) {
          made.decrementAndGet();
        }
      }
    }

    long retainedBytes() {
      return (long) made.get() * (bytes + Device.ALIGNMENT);
    }
  }
}
