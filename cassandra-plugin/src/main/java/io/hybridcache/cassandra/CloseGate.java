package io.hybridcache.cassandra;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Admits the row cache's callers until the cache closes, and lets the close wait for the callers
 * already inside, so that no call of Cassandra's ever reaches a closed {@code HybridCache} (which
 * would throw) and every call that arrives after the close began is known.
 *
 * <p>Thread-safe. One counter: bit 62 is "closed", the low bits count callers inside. {@link #enter}
 * is one atomic increment; a caller that finds the bit set backs out and gets {@code false}.
 */
final class CloseGate {
  private static final long CLOSED = 1L << 62;
  private static final long INSIDE = CLOSED - 1;
  private static final long PARK_NANOS = 200_000;

  private final AtomicLong state = new AtomicLong();

  /** True if the caller may go on (pair with {@link #exit} in a finally); false once closing began. */
  boolean enter() {
    if ((state.incrementAndGet() & CLOSED) == 0) {
      return true;
    }
    state.decrementAndGet();
    return false;
  }

  void exit() {
    state.decrementAndGet();
  }

  boolean closed() {
    return (state.get() & CLOSED) != 0;
  }

  /** Shuts the gate; true if this call shut it, false if it was shut already. */
  boolean shut() {
    return (state.getAndUpdate(s -> s | CLOSED) & CLOSED) == 0;
  }

  /**
   * After {@link #shut}: waits until the callers inside have left or {@code deadlineNanos} (a
   * {@link System#nanoTime} value) passed; true if none is left inside.
   */
  boolean awaitEmpty(long deadlineNanos) {
    while ((state.get() & INSIDE) != 0 && System.nanoTime() - deadlineNanos < 0) {
      LockSupport.parkNanos(PARK_NANOS);
    }
    return (state.get() & INSIDE) == 0;
  }
}
