package io.hybridcache.bench.smalldesign;

/**
 * Event counts of one simulated design, never reset: a phase's figures are the difference of two
 * {@link #copy}s. Conservation: every inserted version is, at any time, resident (on flash or in a DRAM
 * buffer), superseded by a newer version, evicted, or was dropped on its way in
 * ({@code inserted == resident + superseded + evicted + dropped}). Not thread-safe.
 */
final class Counters implements Cloneable {
  long inserted;
  long superseded;
  long evicted;
  long dropped;
  /** Objects written again without a new version: Nemo's and the page log's hot re-insertion, Kangaroo's readmission and log-to-set moves. */
  long moved;
  long pageWrites;
  /** Live objects in the pages written, summed over page writes. */
  long objectsInWrittenPages;

  Counters copy() {
    try {
      return (Counters) clone();
    } catch (CloneNotSupportedException e) {
      throw new AssertionError(e);
    }
  }

  Counters minus(Counters before) {
    Counters d = copy();
    d.inserted -= before.inserted;
    d.superseded -= before.superseded;
    d.evicted -= before.evicted;
    d.dropped -= before.dropped;
    d.moved -= before.moved;
    d.pageWrites -= before.pageWrites;
    d.objectsInWrittenPages -= before.objectsInWrittenPages;
    return d;
  }
}
