package io.hybridcache.core.api;

/**
 * An immutable snapshot of a cache's counters, taken by {@link HybridCache#stats()}. Counters are
 * cumulative since open; gauges (bytes, entries, segments) are as of the snapshot.
 *
 * @param gets lookups
 * @param dramHits lookups served by the DRAM tier
 * @param flashHits lookups served by the flash tier (then promoted to DRAM)
 * @param misses lookups served by neither tier
 * @param flashLookups lookups that reached the log engine's flash index with a candidate entry (the small
 *     engine's are {@link SmallObjectStats#lookups()})
 * @param deviceReads device reads made by lookups (flash hits and flash lookups that failed verification)
 * @param bufferHits flash hits served from an unflushed write buffer (no device read): the log engine's and the
 *     small engine's log buffer
 * @param corruptReads the log engine's flash reads rejected by the magic, CRC, segment or key check (the small
 *     engine's are {@link SmallObjectStats#damagedPages()})
 * @param puts writes by the caller
 * @param removes removals by the caller
 * @param dramEntries entries in the DRAM tier
 * @param dramWeightedBytes bytes the DRAM tier accounts for
 * @param flashEntries entries in the flash index
 * @param flashLiveBytes bytes of live entries on flash
 * @param indexMemoryBytes DRAM the flash index holds
 * @param bytesAdmitted bytes of entries accepted for writing to flash from DRAM evictions (entry size)
 * @param flushBytesWritten bytes written to the device for new entries (FRESH and caller classes)
 * @param reclaimBytesWritten bytes written to the device by reclaim reinsertion (SURVIVOR)
 * @param reinserted entries reclaim moved to a SURVIVOR segment
 * @param reclaimEvicted live entries that left flash for room: those the log engine's reclaim dropped, and the
 *     small engine's {@link SmallObjectStats#evicted()}; each is told to a removal listener as EVICTED
 * @param reclaimedSegments segments emptied by reclaim
 * @param admissionRejected evictions the admission policy refused
 * @param queueRejected evictions refused because the flash writer had no room: no free write buffer
 *     or segment slot (after waiting {@link CacheConfig#cascadeWait()}, if set)
 * @param cascadeWaits flash writes that found no room (a free write buffer, a segment slot, room in the small
 *     engine's log buffer) and waited for it (only with a non-zero {@link CacheConfig#cascadeWait()}; those that
 *     then timed out are in queueRejected too), and removes that waited for the small engine's log device
 * @param tooLargeRejected evictions too large for a flash entry
 * @param degradedRejected evictions dropped because the flash tier was degraded, full or out of index room
 * @param freeSegments segments slots holding no segment
 * @param activeSegments segments accepting appends (one per lifetime class in use)
 * @param sealedSegments full segments serving reads
 * @param ioErrors device errors seen
 * @param degraded true while the flash tier is out of service after an I/O error or a full disk
 * @param writerFaults Throwables from one command of the flash writer (each degrades the tier; the
 *     writer lives on)
 * @param segmentsDropped segments dropped after a read error, or at recovery because they no longer read
 * @param entriesDropped flash entries lost to faults, keys unknown (no removal event): those that left the index
 *     with those segments, and the small engine's {@link SmallObjectStats#objectsLost()}
 * @param indexFullRejected evictions not written because the flash index had no room
 * @param flashIndexDrops bulk invalidations ({@link HybridCache#keys()}) that dropped the whole flash index
 *     because the flash tier could not be scanned (degraded, or a read error mid-scan)
 * @param interruptedReads lookups that missed because the calling thread was interrupted mid-read
 * @param lastFault the newest fault, "time: cause (where)", or "" if none since open
 * @param checkpoints compact-index checkpoints made durable since open (warm restart after a kill)
 * @param checkpointFailures checkpoints that failed (each is retried after a back-off of 1 s doubling to
 *     64 s; until one succeeds, recovery uses the previous one and the journal)
 * @param devicePagesRead 4 KiB pages read by those device reads (an entry of at most 4 KiB is placed
 *     within one page, so a flash hit on it reads one; each small-engine read is one page)
 * @param nextUncleanOpenCold true when a crash of the process now would make the next open cold: the
 *     compact index's invalidation journal overflowed while checkpoints failed (a full disk) or fell
 *     behind, until a checkpoint begun after that is durable; always with the compact index and
 *     durability NONE
 * @param outOfMemoryMisses lookups that missed because the JVM had no direct memory left for a read buffer
 *     (an {@link OutOfMemoryError} there is this miss, never an error out of {@code get}), in either engine
 * @param capRejected evictions refused because their key group (a JCache cache with a {@code flash-bytes} cap) was at
 *     its flash cap ({@link CacheConfig#keyGroups()}); the group pays with its own entries
 * @param smallObjects the small-object engine's own figures ({@link SmallObjectStats#OFF} when it is off);
 *     flashHits, misses, deviceReads, devicePagesRead, bufferHits, flashEntries, indexMemoryBytes, bytesAdmitted,
 *     flushBytesWritten, reclaimEvicted, cascadeWaits, queueRejected, entriesDropped and outOfMemoryMisses above
 *     cover both flash engines (the log engine's own: those less the small engine's)
 */
public record CacheStats(
    long gets,
    long dramHits,
    long flashHits,
    long misses,
    long flashLookups,
    long deviceReads,
    long bufferHits,
    long corruptReads,
    long puts,
    long removes,
    long dramEntries,
    long dramWeightedBytes,
    long flashEntries,
    long flashLiveBytes,
    long indexMemoryBytes,
    long bytesAdmitted,
    long flushBytesWritten,
    long reclaimBytesWritten,
    long reinserted,
    long reclaimEvicted,
    long reclaimedSegments,
    long admissionRejected,
    long queueRejected,
    long cascadeWaits,
    long tooLargeRejected,
    long degradedRejected,
    int freeSegments,
    int activeSegments,
    int sealedSegments,
    long ioErrors,
    boolean degraded,
    long writerFaults,
    long segmentsDropped,
    long entriesDropped,
    long indexFullRejected,
    long flashIndexDrops,
    long interruptedReads,
    String lastFault,
    long devicePagesRead,
    long checkpoints,
    long checkpointFailures,
    boolean nextUncleanOpenCold,
    long outOfMemoryMisses,
    long capRejected,
    SmallObjectStats smallObjects) {

  /**
   * DRAM evictions that left the cache because flash refused them: the sum of the refusals by reason
   * (admission, queue, too large, degraded, index full, cap).
   */
  public long refusedEvictions() {
    return admissionRejected + queueRejected + tooLargeRejected + degradedRejected + indexFullRejected + capRejected;
  }

  public double hitRatioDram() {
    return gets == 0 ? 0 : (double) dramHits / gets;
  }

  public double hitRatioFlash() {
    return gets == 0 ? 0 : (double) flashHits / gets;
  }

  public double hitRatio() {
    return gets == 0 ? 0 : (double) (dramHits + flashHits) / gets;
  }

  /** Device reads per flash hit served from the device (buffer hits excluded): the paper's "one seek". */
  public double deviceReadsPerFlashHit() {
    long deviceHits = flashHits - bufferHits;
    return deviceHits <= 0 ? 0 : (double) deviceReads / deviceHits;
  }

  /** Device pages read per flash hit served from the device (buffer hits excluded). */
  public double pagesPerFlashHit() {
    long deviceHits = flashHits - bufferHits;
    return deviceHits <= 0 ? 0 : (double) devicePagesRead / deviceHits;
  }

  /** (bytes written by flushes + by reclaim) / bytes admitted. */
  public double appWriteAmplification() {
    return bytesAdmitted == 0 ? 0 : (double) (flushBytesWritten + reclaimBytesWritten) / bytesAdmitted;
  }

  /** Entries of the log engine alone (flashEntries less the small-object engine's). */
  public long logEngineEntries() {
    return flashEntries - smallObjects.entries();
  }

  /** DRAM of the log engine's index alone (indexMemoryBytes less the small-object engine's DRAM). */
  public long logEngineIndexMemoryBytes() {
    return indexMemoryBytes - smallObjects.dramBytes();
  }

  /** DRAM the log engine's index costs per entry of the log engine. */
  public double logEngineDramBytesPerEntry() {
    long n = logEngineEntries();
    return n == 0 ? 0 : (double) logEngineIndexMemoryBytes() / n;
  }

  /** {@link SmallObjectStats#enabled()}. */
  public boolean smallObjectEngineEnabled() {
    return smallObjects.enabled();
  }

  /** {@link SmallObjectStats#entries()}. */
  public long smallObjectEntries() {
    return smallObjects.entries();
  }

  /** {@link SmallObjectStats#dramBytesPerEntry()}. */
  public double smallObjectDramBytesPerEntry() {
    return smallObjects.dramBytesPerEntry();
  }

  /** {@link SmallObjectStats#bloomFalsePositiveReads()}. */
  public long smallObjectBloomFalsePositiveReads() {
    return smallObjects.bloomFalsePositiveReads();
  }

  /** {@link SmallObjectStats#setRewrites()}. */
  public long smallObjectSetRewrites() {
    return smallObjects.setRewrites();
  }

  /** {@link SmallObjectStats#objectsPerSetRewrite()}. */
  public double smallObjectsPerSetRewrite() {
    return smallObjects.objectsPerSetRewrite();
  }

  /** {@link SmallObjectStats#logHitShare()}. */
  public double smallObjectLogHitShare() {
    return smallObjects.logHitShare();
  }

  /** {@link SmallObjectStats#writeAmplification()}. */
  public double smallObjectWriteAmplification() {
    return smallObjects.writeAmplification();
  }

  /** {@link SmallObjectStats#faults()}. */
  public long smallObjectFaults() {
    return smallObjects.faults();
  }

  /** DRAM the flash index costs per flash-resident entry (both engines). */
  public double dramBytesPerFlashEntry() {
    return flashEntries == 0 ? 0 : (double) indexMemoryBytes / flashEntries;
  }
}
