package io.hybridcache.core.engine;

import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The DRAM half of RRIParoo (Kangaroo, SOSP 2021): one hit bit per slot position of each set, 32 per set
 * (4 B). A hit marks the position of the entry read; the next rewrite of the set takes the bits and
 * promotes those entries ({@link SmallSetEviction}). Entries past position 31 get no hit bit: in a full
 * page those are the newest arrivals, which cannot be promoted before their page's next rewrite (a page
 * holds 31 objects of 100 B with 24 B keys, more of smaller ones).
 *
 * <p><b>Concurrency.</b> Thread-safe, lock-free: marks are atomic ORs from any reader; {@link #takeLocked}
 * is an atomic swap by the holder of the set's lock. A mark that races a rewrite may land on the entry
 * that took the position: an eviction hint gone astray, never a wrong value.
 */
final class SmallSetHits {
  private final AtomicIntegerArray bits;

  SmallSetHits(int sets) {
    this.bits = new AtomicIntegerArray(sets);
  }

  void mark(int set, int position) {
    if (position >= 0 && position < Integer.SIZE) {
      int bit = 1 << position;
      if ((bits.get(set) & bit) == 0) {
        bits.getAndUpdate(set, b -> b | bit);
      }
    }
  }

  /** The set's hit bits, cleared. Caller holds the set's lock (the page is about to be rewritten). */
  int takeLocked(int set) {
    return bits.getAndSet(set, 0);
  }

  long bytes() {
    return (long) bits.length() * Integer.BYTES;
  }
}
