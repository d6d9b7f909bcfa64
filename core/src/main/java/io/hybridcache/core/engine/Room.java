package io.hybridcache.core.engine;

/**
 * A version that grows whenever room may have appeared for waiting writes (reclaim freed a slot, a
 * fault was handled, close began), so a waiter never misses a wake-up between its check and its wait.
 *
 * <p>Concurrency: a monitor. {@link #advance} is called by the maintenance thread; {@link #await} by
 * evicting threads, in slices so that each wait rechecks its own conditions.
 */
final class Room {
  private long version;

  synchronized long version() {
    return version;
  }

  synchronized void advance() {
    version++;
    notifyAll();
  }

  /**
   * Waits until the version moves past {@code seen}, {@code deadlineNanos} passes or {@code sliceNanos}
   * elapse; returns the version then. An interrupt ends the wait with the flag set.
   */
  synchronized long await(long seen, long deadlineNanos, long sliceNanos) {
    long left = Math.min(sliceNanos, deadlineNanos - System.nanoTime());
    if (version == seen && left > 0) {
      try {
        wait(left / 1_000_000, (int) (left % 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return version;
  }
}
