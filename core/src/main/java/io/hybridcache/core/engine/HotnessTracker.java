package io.hybridcache.core.engine;

import io.hybridcache.core.api.LifetimeClass;
import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts invalidated bytes per lifetime class and segment group, the input of every mapper's notion
 * of hotness (DSM: invalidated 4 KiB pages per unit of time; FileStream: modifications per byte).
 * Thread-safe: {@link #invalidated} runs on any thread that unlinks an entry (caller threads on
 * put/remove, the writer on install and reclaim) and costs two volatile reads, an array load and one
 * {@link LongAdder#add}: no per-entry state, the entry's segment names its class. Draining and the
 * epoch boundary run under the segment writer's lock.
 *
 * <p>Groups: a class's segments are <i>young</i> while active or opened since the last epoch ended,
 * <i>old</i> afterwards (DSM's two regions of a file). Counters live in an array indexed by class
 * id, grown copy-on-write to the largest id seen.
 */
final class HotnessTracker {
  /** The young and old invalidation counters of one class. */
  private static final class Counts {
    final LongAdder young = new LongAdder();
    final LongAdder old = new LongAdder();
  }

  private volatile Counts[] counts = new Counts[LifetimeClass.FIRST_CALLER_ID * 2];
  /** Segment ids at or above this are young (set by the writer at each epoch boundary). */
  private volatile long youngFrom = 1;

  /** {@code bytes} of an entry in {@code s} stopped being live (update, removal, expiry, eviction). */
  public void invalidated(Segment s, long bytes) {
    int id = s.lifetimeClass().id();
    Counts[] c = counts;
    Counts k = id < c.length ? c[id] : null;
    if (k == null) {
      k = counts(id);
    }
    (young(s) ? k.young : k.old).add(bytes);
  }

  /** True if {@code s} is in its class's young group. */
  public boolean young(Segment s) {
    return s.state() == Segment.State.ACTIVE || s.id() >= youngFrom;
  }

  /** Writer thread, at an epoch boundary: segments from {@code firstYoungId} on are young. */
  void startEpoch(long firstYoungId) {
    youngFrom = firstYoungId;
  }

  /** Writer thread: {young, old} bytes invalidated in {@code classId} since the last drain; resets them. */
  long[] drain(int classId) {
    Counts[] c = counts;
    Counts k = classId < c.length ? c[classId] : null;
    return k == null ? new long[2] : new long[] {k.young.sumThenReset(), k.old.sumThenReset()};
  }

  /** Class ids that have counters. */
  int[] classIds() {
    Counts[] c = counts;
    int n = 0;
    int[] ids = new int[c.length];
    for (int i = 0; i < c.length; i++) {
      if (c[i] != null) {
        ids[n++] = i;
      }
    }
    return Arrays.copyOf(ids, n);
  }

  private synchronized Counts counts(int id) {
    Counts[] c = counts;
    if (id >= c.length) {
      c = Arrays.copyOf(c, Math.max(id + 1, c.length * 2));
    } else if (c[id] != null) {
      return c[id];
    } else {
      c = c.clone();
    }
    Counts k = new Counts();
    c[id] = k;
    counts = c;
    return k;
  }
}
