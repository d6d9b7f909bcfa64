package io.hybridcache.core.engine;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Lets calls into the cache in until it closes, and lets close wait for the calls in flight, so no call
 * ever runs against a closed index or device (a closed Chronicle map unmaps its memory).
 *
 * <p>Concurrency: one counter holds the closed bit (bit 62) and the number of calls in flight.
 * {@link #enter} adds one and backs out if the closed bit was set; {@link #close} sets the bit and then
 * waits (parking in short slices, bounded by its deadline) until the count is zero. A call that entered
 * before the bit was set is waited for; one that increments after sees the bit and throws
 * {@link IllegalStateException}. One CAS-free increment per call.
 */
final class CallGate {
  private static final long CLOSED = 1L << 62;
  private static final long WAIT_SLICE_NANOS = 100_000;

  private final String name;
  private final AtomicLong state = new AtomicLong();

  CallGate(String name) {
    this.name = name;
  }

  /** Enters a call; pair with {@link #exit} in a finally. */
  void enter() {
    if ((state.incrementAndGet() & CLOSED) != 0) {
      state.decrementAndGet();
      throw new IllegalStateException("cache " + name + " is closed");
    }
  }

  void exit() {
    state.decrementAndGet();
  }

  /** Throws {@link IllegalStateException} once closed (a call that holds nothing open across it). */
  void ensureOpen() {
    if (closed()) {
      throw new IllegalStateException("cache " + name + " is closed");
    }
  }

  boolean closed() {
    return (state.get() & CLOSED) != 0;
  }

  /**
   * Closes the gate; returns false if it was closed already. Then waits until the calls in flight have
   * left or {@code deadlineNanos} passed (see {@link #drained}).
   */
  boolean close(long deadlineNanos) {
    long s;
    do {
      s = state.get();
      if ((s & CLOSED) != 0) {
        return false;
      }
    } while (!state.compareAndSet(s, s | CLOSED));
    while ((state.get() & ~CLOSED) != 0 && System.nanoTime() - deadlineNanos < 0) {
      LockSupport.parkNanos(WAIT_SLICE_NANOS);
    }
    return true;
  }

  /** After {@link #close}: waits, however long it takes, until no call is in flight (none can enter). */
  void awaitDrained() {
    while (!drained()) {
      LockSupport.parkNanos(WAIT_SLICE_NANOS);
    }
  }

  /** True when no call is in flight. */
  boolean drained() {
    return (state.get() & ~CLOSED) == 0;
  }
}
