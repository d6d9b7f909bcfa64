package io.hybridcache.core.engine;

import java.util.concurrent.atomic.LongAdder;

/**
 * The cumulative counters of one set region ({@link SmallSets}). Thread-safe: {@link LongAdder}s,
 * summed by {@link #snapshot}.
 */
final class SmallSetCounters {
  final LongAdder lookups = new LongAdder();
  /** Lookups the Bloom filter answered with no device read. */
  final LongAdder bloomRejects = new LongAdder();
  /** Page reads of a verified page that did not hold the key: the filter's false positives. */
  final LongAdder bloomFalsePositiveReads = new LongAdder();
  /** Page reads of lookups (the small engine's part of {@code CacheStats.deviceReads}). */
  final LongAdder pageReads = new LongAdder();
  /** Page reads of rewrites and removes (read-modify-write), not counted as lookups' reads. */
  final LongAdder writeReads = new LongAdder();
  final LongAdder hits = new LongAdder();
  /**
   * Pages of the region's epoch that failed verification (torn, damaged, another set's) on a lookup or a
   * rewrite; a page of an earlier epoch (before a clear or a cold open) is empty, not counted.
   */
  final LongAdder damagedPages = new LongAdder();
  final LongAdder readErrors = new LongAdder();
  /**
   * Writers that found no direct memory for a page buffer or its read (the set is dropped); lookups that did
   * are {@link #lookupOutOfMemory}.
   */
  final LongAdder outOfMemory = new LongAdder();
  /** Lookups that missed because no direct memory was left for a page buffer or its read. */
  final LongAdder lookupOutOfMemory = new LongAdder();
  /** Objects that became unreachable with a poisoned set (a fault: a read or write error, no memory). */
  final LongAdder objectsLost = new LongAdder();
  final LongAdder writeErrors = new LongAdder();
  /** Lookups that re-read a page because a rewrite in the same lock stripe overlapped the read. */
  final LongAdder readRetries = new LongAdder();
  final LongAdder setRewrites = new LongAdder();
  /** New objects the rewrites carried (objects per rewrite = this / setRewrites). */
  final LongAdder objectsInserted = new LongAdder();
  /** Objects a rewrite evicted for room (RRIP). */
  final LongAdder evicted = new LongAdder();
  final LongAdder expired = new LongAdder();
  final LongAdder removed = new LongAdder();
  final LongAdder pageBytesWritten = new LongAdder();
  /** Objects the region serves: in pages written in this epoch and not poisoned since. */
  final LongAdder entries = new LongAdder();

  /** A consistent-enough view for stats and tests (each figure summed once). */
  record Snapshot(long lookups, long bloomRejects, long bloomFalsePositiveReads, long pageReads, long hits,
      long damagedPages, long readErrors, long outOfMemory, long writeErrors, long readRetries, long setRewrites,
      long objectsInserted, long evicted, long expired, long removed, long pageBytesWritten, long entries,
      long lookupOutOfMemory, long objectsLost) {
    /** Of the lookups for keys not in the region, the share that cost a page read. */
    double bloomFalsePositiveRate() {
      long negatives = bloomRejects + bloomFalsePositiveReads;
      return negatives == 0 ? 0 : (double) bloomFalsePositiveReads / negatives;
    }

    double objectsPerRewrite() {
      return setRewrites == 0 ? 0 : (double) objectsInserted / setRewrites;
    }
  }

  Snapshot snapshot() {
    return new Snapshot(lookups.sum(), bloomRejects.sum(), bloomFalsePositiveReads.sum(), pageReads.sum(),
        hits.sum(), damagedPages.sum(), readErrors.sum(), outOfMemory.sum(), writeErrors.sum(), readRetries.sum(),
        setRewrites.sum(), objectsInserted.sum(), evicted.sum(), expired.sum(), removed.sum(),
        pageBytesWritten.sum(), entries.sum(), lookupOutOfMemory.sum(), objectsLost.sum());
  }
}
