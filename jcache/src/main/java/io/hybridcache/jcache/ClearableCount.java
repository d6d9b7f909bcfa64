package io.hybridcache.jcache;

import java.util.concurrent.atomic.LongAdder;

/**
 * A count that only grows ({@link #total()}, what a monitoring system's counter reads) and a reading of it since the
 * last {@link #clear()} ({@link #sinceClear()}, what the JCache statistics MXBean shows: the spec's {@code clear()}
 * resets its figures). {@code clear()} moves the reading's start, never the total. Thread-safe: a striped adder (an
 * increment touches one cell, no lock) and a volatile start; a reading concurrent with a clear is one of the two
 * sides, never below 0.
 */
final class ClearableCount {
  private final LongAdder total = new LongAdder();
  private volatile long atClear;

  void increment() {
    total.increment();
  }

  long total() {
    return total.sum();
  }

  long sinceClear() {
    return Math.max(0, total.sum() - atClear);
  }

  void clear() {
    atClear = total.sum();
  }
}
