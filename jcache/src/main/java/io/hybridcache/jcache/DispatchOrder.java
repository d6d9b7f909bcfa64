package io.hybridcache.jcache;

/**
 * Hands each write's events to the synchronous listeners after the key's lock is released, in the order the
 * writes took that lock, per lock stripe (so per key). Thread-safe.
 *
 * <p>Concurrency: a write that made events takes a ticket of its stripe while it holds the stripe's lock
 * ({@link #ticket}: {@code issued} is guarded by that lock, {@link KeyLocks}), so tickets follow the writes'
 * order; after the unlock it waits for its turn ({@link #deliver}: {@code served} and {@code serving} are
 * guarded by the stripe's monitor), delivers, and passes the turn on, even if a listener throws. Readers never
 * wait here; writers of the stripe wait only for the listeners of earlier writes, not under the lock. A write
 * made by a listener during its own stripe's delivery (a listener that writes the cache) is delivered at once,
 * nested, as before this class: waiting for its turn would wait for itself. Lock order: a stripe's monitor is
 * taken with or without its key lock held, and no lock is taken while holding a monitor.
 */
final class DispatchOrder {
  /** No events: nothing to deliver. */
  static final long NONE = Long.MIN_VALUE;
  /** Events of a write made during its stripe's delivery, on the delivering thread: delivered at once. */
  static final long NESTED = -1;

  private final long[] issued = new long[KeyLocks.STRIPES];
  private final long[] served = new long[KeyLocks.STRIPES];
  private final Thread[] serving = new Thread[KeyLocks.STRIPES];
  private final Object[] monitors = new Object[KeyLocks.STRIPES];

  DispatchOrder() {
    for (int i = 0; i < monitors.length; i++) {
      monitors[i] = new Object();
    }
  }

  /** The ticket of the events a write just made; called with the stripe's key lock held. */
  long ticket(int stripe) {
    synchronized (monitors[stripe]) {
      if (serving[stripe] == Thread.currentThread()) {
        return NESTED;
      }
    }
    return issued[stripe]++;
  }

  /** Runs {@code delivery} in its ticket's turn (at once for {@link #NESTED}); called with no key lock held. */
  void deliver(int stripe, long ticket, Runnable delivery) {
    if (ticket == NONE) {
      return;
    }
    if (ticket == NESTED) {
      delivery.run();
      return;
    }
    Object m = monitors[stripe];
    synchronized (m) {
      boolean interrupted = false;
      while (served[stripe] != ticket) {
        try {
          m.wait();
        } catch (InterruptedException e) {
          interrupted = true; // the turn must be taken and passed on, or the stripe's later events never go
        }
      }
      serving[stripe] = Thread.currentThread();
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    try {
      delivery.run();
    } finally {
      synchronized (m) {
        serving[stripe] = null;
        served[stripe]++;
        m.notifyAll();
      }
    }
  }
}
