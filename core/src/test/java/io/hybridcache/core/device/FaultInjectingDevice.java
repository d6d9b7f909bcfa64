package io.hybridcache.core.device;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * TEST-ONLY fault-injection fake: a {@link Device} that wraps any other and, on command, makes writes
 * fail as a full disk or an I/O error, makes reads or syncs fail, flips one random bit in the bytes a read
 * returns, or holds writes until released (a stalled device). Never use it outside tests. Thread-safe: every switch is an atomic reference to an
 * immutable arming with an atomic countdown, so "fail the next N writes" fails exactly N writes
 * however many threads race, and {@link #heal()} takes effect for every call that starts after it.
 *
 * <p><b>Concurrency.</b> No locks. A call decides whether to fail by consuming one unit of the armed
 * countdown ({@link Long#MAX_VALUE} stands for "all"); arming replaces the previous arming of that
 * switch. The delegate's own thread-safety applies to the calls passed through.
 *
 * <p><b>Held writes.</b> {@link #holdWrites()} closes a gate: every write that starts afterwards parks
 * (before any fault is injected) until {@link #releaseWrites()} or {@link #heal()} opens it;
 * {@link #awaitHeldWrite} tells a test that some write is parked. An interrupted parked write throws
 * {@link InterruptedIOException} with the interrupt flag restored.
 *
 * <p><b>Errors.</b> An injected write failure throws before the delegate is called (nothing is
 * written, nothing is allocated), with the message {@link #DISK_FULL_MESSAGE} (what the kernel's ENOSPC
 * says) or {@link #IO_ERROR_MESSAGE}; an injected read failure throws {@link #IO_ERROR_MESSAGE} before
 * reading; a corruption happens after a successful delegate read. Injected faults are counted here
 * ({@link #injectedFaults()}); {@link #counters()} are the delegate's and count only what reached it.
 */
public final class FaultInjectingDevice extends ForwardingDevice {
  /** What the kernel says for ENOSPC, so code matching on it treats an injected full disk as real. */
  public static final String DISK_FULL_MESSAGE = "No space left on device";
  public static final String IO_ERROR_MESSAGE = "Input/output error";

  /** How an injected write fails. */
  public enum WriteFault {
    DISK_FULL,
    IO_ERROR
  }

  private static final long ALL = Long.MAX_VALUE;

  private final Random random; // java.util.Random is thread-safe
  private final Switch<WriteFault> writes = new Switch<>();
  private final Switch<Boolean> readFailures = new Switch<>();
  private final Switch<Boolean> readCorruptions = new Switch<>();
  private final LongAdder writeFaults = new LongAdder();
  private final LongAdder readFaults = new LongAdder();
  private final LongAdder corruptions = new LongAdder();
  private final AtomicReference<Hold> hold = new AtomicReference<>();
  private final AtomicReference<Hold> readHold = new AtomicReference<>();
  private volatile Error writeError;
  private volatile boolean ignoreDiscards;
  private volatile Error readError;
  private volatile ReadAround readAround;
  private volatile SlowSyncs slowSyncs;
  private volatile boolean failSyncs;
  private final LongAdder syncFaults = new LongAdder();
  private volatile boolean closed;

  /** Syncs by the threads {@code who} accepts take {@code delay} more (a slow device, not a hung one). */
  private record SlowSyncs(java.time.Duration delay, java.util.function.Predicate<Thread> who) {}

  /** A closed write gate: {@code open} releases the parked writes, {@code parked} counts down at the first. */
  private record Hold(CountDownLatch open, CountDownLatch parked) {}

  public FaultInjectingDevice(Device delegate) {
    this(delegate, 0x5eed);
  }

  /** With a seed for the corrupted bit positions, so a failing test replays. */
  public FaultInjectingDevice(Device delegate, long seed) {
    super(delegate);
    this.random = new Random(seed);
  }

  public Device delegate() {
    return delegate;
  }

  /** The next {@code count} writes fail with {@code fault}. */
  public FaultInjectingDevice failNextWrites(long count, WriteFault fault) {
    writes.arm(Objects.requireNonNull(fault), requirePositive(count));
    return this;
  }

  /** Every write fails with {@code fault} until {@link #heal()}. */
  public FaultInjectingDevice failAllWrites(WriteFault fault) {
    writes.arm(Objects.requireNonNull(fault), ALL);
    return this;
  }

  /** The next {@code count} reads fail with an I/O error. */
  public FaultInjectingDevice failNextReads(long count) {
    readFailures.arm(Boolean.TRUE, requirePositive(count));
    return this;
  }

  public FaultInjectingDevice failAllReads() {
    readFailures.arm(Boolean.TRUE, ALL);
    return this;
  }

  /** The next {@code count} reads each return their bytes with one random bit flipped. */
  public FaultInjectingDevice corruptNextReads(long count) {
    readCorruptions.arm(Boolean.TRUE, requirePositive(count));
    return this;
  }

  public FaultInjectingDevice corruptAllReads() {
    readCorruptions.arm(Boolean.TRUE, ALL);
    return this;
  }

  /** Writes from now on park until {@link #releaseWrites()} (a device that stops answering). */
  public FaultInjectingDevice holdWrites() {
    hold.compareAndSet(null, new Hold(new CountDownLatch(1), new CountDownLatch(1)));
    return this;
  }

  /** Every write from now on throws {@code error} (an Error, as an unsafe access fault raises) until heal. */
  public FaultInjectingDevice throwOnWrites(Error error) {
    writeError = Objects.requireNonNull(error);
    return this;
  }

  /**
   * Every read from now on throws {@code error} until heal: an Error, as an unsafe access fault raises, or
   * the {@link OutOfMemoryError} of a direct buffer the JDK could not reserve.
   */
  public FaultInjectingDevice throwOnReads(Error error) {
    readError = Objects.requireNonNull(error);
    return this;
  }

  /**
   * Every sync from now on by a thread {@code who} accepts takes {@code delay} longer, until heal: a slow
   * device (its fsync), not a hung one. The delay is the fault; no test waits on it.
   */
  public FaultInjectingDevice slowSyncs(java.time.Duration delay, java.util.function.Predicate<Thread> who) {
    slowSyncs = new SlowSyncs(Objects.requireNonNull(delay), Objects.requireNonNull(who));
    return this;
  }

  /** A test's probe around each read ({@link #aroundReads}). */
  @FunctionalInterface
  public interface ReadAround {
    /** Runs {@code read} (the read itself: the delegate's, then any corruption) once, or throws instead. */
    void read(int slot, ByteBuffer dst, ReadCall read) throws IOException;
  }

  /** The read a {@link ReadAround} runs. */
  @FunctionalInterface
  public interface ReadCall {
    void run() throws IOException;
  }

  /**
   * Every read from now on that no other switch failed runs through {@code around} until heal: a probe
   * that orders reads, checks their buffers or fails some of them.
   */
  public FaultInjectingDevice aroundReads(ReadAround around) {
    readAround = Objects.requireNonNull(around);
    return this;
  }

  /** Every sync from now on fails with {@link #IO_ERROR_MESSAGE} (nothing is synced), until heal. */
  public FaultInjectingDevice failSyncs() {
    failSyncs = true;
    return this;
  }

  /** Reads from now on park until {@link #releaseReads()}. */
  public FaultInjectingDevice holdReads() {
    readHold.compareAndSet(null, new Hold(new CountDownLatch(1), new CountDownLatch(1)));
    return this;
  }

  /** True once a read is parked by {@link #holdReads()}, false if none parks within the timeout. */
  public boolean awaitHeldRead(long timeout, TimeUnit unit) throws InterruptedException {
    return readHold.get().parked().await(timeout, unit);
  }

  public void releaseReads() {
    Hold h = readHold.getAndSet(null);
    if (h != null) {
      h.open().countDown();
    }
  }

  /** True once a write is parked by {@link #holdWrites()}, false if none parks within the timeout. */
  public boolean awaitHeldWrite(long timeout, TimeUnit unit) throws InterruptedException {
    Hold h = hold.get();
    if (h == null) {
      throw new IllegalStateException("writes are not held");
    }
    return h.parked().await(timeout, unit);
  }

  /** Opens the write gate: parked writes proceed, new ones pass. */
  public void releaseWrites() {
    Hold h = hold.getAndSet(null);
    if (h != null) {
      h.open().countDown();
    }
  }

  /**
   * Disarms every switch and releases held writes: calls from now on pass through untouched. Counts
   * are kept.
   */
  public void heal() {
    releaseWrites();
    releaseReads();
    writeError = null;
    readError = null;
    readAround = null;
    slowSyncs = null;
    failSyncs = false;
    writes.disarm();
    readFailures.disarm();
    readCorruptions.disarm();
  }

  public long injectedFaults() {
    return writeFaults.sum() + readFaults.sum() + corruptions.sum() + syncFaults.sum();
  }

  public long injectedWriteFaults() {
    return writeFaults.sum();
  }

  public long injectedReadFaults() {
    return readFaults.sum();
  }

  public long injectedCorruptions() {
    return corruptions.sum();
  }

  @Override
  public void write(int slot, long offset, ByteBuffer src) throws IOException {
    park(hold.get(), "write");
    Error error = writeError;
    if (error != null) {
      writeFaults.increment();
      throw error;
    }
    WriteFault fault = writes.fire();
    if (fault != null) {
      writeFaults.increment();
      throw new IOException(fault == WriteFault.DISK_FULL
          ? DISK_FULL_MESSAGE + " (injected)" : IO_ERROR_MESSAGE + " (injected write fault)");
    }
    delegate.write(slot, offset, src);
  }

  @Override
  public void read(int slot, long offset, ByteBuffer dst) throws IOException {
    park(readHold.get(), "read");
    Error error = readError;
    if (error != null) {
      readFaults.increment();
      throw error;
    }
    if (readFailures.fire() != null) {
      readFaults.increment();
      throw new IOException(IO_ERROR_MESSAGE + " (injected read fault)");
    }
    ReadAround around = readAround;
    if (around == null) {
      readThrough(slot, offset, dst);
    } else {
      around.read(slot, dst, () -> readThrough(slot, offset, dst));
    }
  }

  /** The delegate's read, then an armed corruption. */
  private void readThrough(int slot, long offset, ByteBuffer dst) throws IOException {
    int start = dst.position();
    delegate.read(slot, offset, dst);
    int length = dst.position() - start;
    if (length > 0 && readCorruptions.fire() != null) {
      corruptions.increment();
      int at = start + random.nextInt(length);
      dst.put(at, (byte) (dst.get(at) ^ (1 << random.nextInt(8))));
    }
  }

  /** Parks the calling I/O at a closed gate {@code h} (null: none) until it opens. */
  private static void park(Hold h, String what) throws InterruptedIOException {
    if (h != null) {
      h.parked().countDown();
      try {
        h.open().await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("held " + what + " interrupted");
      }
    }
  }

  @Override
  public void discard(int slot) throws IOException {
    if (!ignoreDiscards) {
      delegate.discard(slot);
    }
  }

  /** Discards become no-ops from now on, as on a file system without punch-hole (a discard is advice). */
  public FaultInjectingDevice ignoreDiscards() {
    ignoreDiscards = true;
    return this;
  }

  @Override
  public void sync() throws IOException {
    if (failSyncs) {
      syncFaults.increment();
      throw new IOException(IO_ERROR_MESSAGE);
    }
    SlowSyncs slow = slowSyncs;
    if (slow != null && slow.who().test(Thread.currentThread())) {
      try {
        Thread.sleep(slow.delay().toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("slow sync interrupted");
      }
    }
    delegate.sync();
  }

  @Override
  public void close() throws IOException {
    closed = true;
    delegate.close();
  }

  /** True once {@link #close} was called. */
  public boolean closed() {
    return closed;
  }

  private static long requirePositive(long count) {
    if (count <= 0) {
      throw new IllegalArgumentException("count must be > 0: " + count);
    }
    return count;
  }

  /** One fault switch: an immutable arming (what to inject, how many times left), swapped atomically. */
  private static final class Switch<K> {
    private final AtomicReference<Armed<K>> armed = new AtomicReference<>();

    void arm(K kind, long count) {
      armed.set(new Armed<>(kind, new AtomicLong(count)));
    }

    void disarm() {
      armed.set(null);
    }

    /** The fault to inject on this call, or null. */
    K fire() {
      Armed<K> current = armed.get();
      if (current == null) {
        return null;
      }
      long before = current.remaining.getAndUpdate(r -> r == ALL ? ALL : Math.max(0, r - 1));
      return before > 0 ? current.kind : null;
    }

    private record Armed<K>(K kind, AtomicLong remaining) {}
  }
}
