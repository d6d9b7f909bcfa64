package io.hybridcache.bench.jmh;

import java.util.concurrent.ThreadLocalRandom;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A benchmark thread's position in a precomputed key stream (Caffeine's GetPutBenchmark keeps one the
 * same way): each thread starts at a random place and walks the stream in order, wrapping around, so
 * the measured call costs one array read and no random-number generation. Thread-confined (JMH gives
 * each benchmark thread its own).
 */
@State(Scope.Thread)
public class Cursor {
  private int next = -1;

  @Setup
  public void start() {
    next = -1; // placed on the first call, when the stream length is known
  }

  /** The next position in a stream of {@code length} elements. */
  int next(int length) {
    int i = next;
    if (i < 0 || i >= length) {
      i = ThreadLocalRandom.current().nextInt(length);
    }
    next = i + 1 == length ? 0 : i + 1;
    return i;
  }
}
