package io.hybridcache.core.engine;

import java.util.concurrent.atomic.LongAdder;

/**
 * The cache's cumulative counters. Thread-safe: each is a {@link LongAdder}, incremented from any
 * thread without contention and summed when a snapshot is taken.
 */
final class Counters {
  public final LongAdder dramHits = new LongAdder();
  public final LongAdder flashHits = new LongAdder();
  public final LongAdder misses = new LongAdder();
  public final LongAdder flashLookups = new LongAdder();
  public final LongAdder deviceReads = new LongAdder();
  /** 4 KiB pages those device reads covered. */
  public final LongAdder devicePagesRead = new LongAdder();
  /** Zero bytes skipped so that an entry of at most a page never straddles two (page-aware placement). */
  public final LongAdder placementPadBytes = new LongAdder();
  public final LongAdder bufferHits = new LongAdder();
  /** Evictions refused because their key group was at its flash cap ({@link GroupBytes}). */
  public final LongAdder groupCapRejected = new LongAdder();
  /** Bytes reclaims for a group over its flash cap moved of other groups' entries (not charged to the reinsertion budget). */
  public final LongAdder groupReclaimMovedBytes = new LongAdder();
  public final LongAdder corruptReads = new LongAdder();
  public final LongAdder puts = new LongAdder();
  public final LongAdder removes = new LongAdder();
  public final LongAdder bytesAdmitted = new LongAdder();
  public final LongAdder flushBytesWritten = new LongAdder();
  public final LongAdder reclaimBytesWritten = new LongAdder();
  public final LongAdder reinserted = new LongAdder();
  public final LongAdder reclaimEvicted = new LongAdder();
  public final LongAdder reclaimedSegments = new LongAdder();
  /** Of those, segments whose live entries were learnt from their summary (the rest were scanned whole). */
  public final LongAdder reclaimedFromSummary = new LongAdder();
  public final LongAdder queueRejected = new LongAdder();
  public final LongAdder cascadeWaits = new LongAdder();
  public final LongAdder tooLargeRejected = new LongAdder();
  public final LongAdder degradedRejected = new LongAdder();
  public final LongAdder ioErrors = new LongAdder();
  /** Throwables from one command of the flash writer (each degrades the tier). */
  public final LongAdder writerFaults = new LongAdder();
  /** Segments dropped after a read error (their entries left the index). */
  public final LongAdder segmentsDropped = new LongAdder();
  /** Index entries dropped with those segments. */
  public final LongAdder entriesDropped = new LongAdder();
  /** Evictions not written because the index had no room. */
  public final LongAdder indexFullRejected = new LongAdder();
  /** Bulk invalidations that dropped the whole flash index because the tier could not be scanned. */
  public final LongAdder flashIndexDrops = new LongAdder();
  /** Lookups that missed because the calling thread was interrupted during its device read. */
  public final LongAdder interruptedReads = new LongAdder();
  /** Lookups that missed because no direct memory was left for a read buffer (an OutOfMemoryError). */
  public final LongAdder outOfMemoryMisses = new LongAdder();
  /** Index checkpoints made durable (compact index). */
  public final LongAdder checkpoints = new LongAdder();
  /** Index checkpoints that failed (each is retried; recovery uses the previous one). */
  public final LongAdder checkpointFailures = new LongAdder();
}
