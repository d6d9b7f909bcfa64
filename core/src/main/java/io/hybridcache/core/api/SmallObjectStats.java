package io.hybridcache.core.api;

/**
 * The small-object engine's own figures, part of {@link CacheStats#smallObjects()} (all zero, {@code
 * enabled} false, when {@link CacheConfig#smallObjectShare()} is 0). Counters are cumulative since open;
 * {@code entries} and {@code dramBytes} are as of the snapshot. The cache-wide figures of {@link CacheStats}
 * (flashEntries, indexMemoryBytes, bytesAdmitted, flushBytesWritten, flashHits, deviceReads, devicePagesRead,
 * bufferHits, reclaimEvicted, cascadeWaits, entriesDropped, outOfMemoryMisses) already include these.
 *
 * @param enabled the engine is on
 * @param entries objects held: in set pages plus those live in the engine's log (a key logged again over its set
 *     version counts twice)
 * @param dramBytes DRAM of the engine's Bloom filters, hit bits, object counts and log index
 * @param lookups lookups that reached the engine
 * @param hits lookups it served
 * @param logHits of those, served from its log (the rest from a set page)
 * @param bloomFalsePositiveReads set-page reads the Bloom filter allowed for a key the page did not hold
 * @param pageReads set-page reads of lookups
 * @param logPageReads log-page reads of lookups (the reads of the log's reclaim and of removes are not counted);
 *     {@link #deviceReads()} is what the engine adds to {@link CacheStats#deviceReads()}
 * @param setRewrites set pages written (each a read-modify-write of 4 KiB)
 * @param objectsInserted new objects those rewrites carried
 * @param objectsAdmitted DRAM evictions it took
 * @param bytesAdmitted their bytes (entry size: header + key + value, as the log engine counts them)
 * @param bytesWritten device bytes written: log pages and set pages
 * @param damagedPages set pages of the engine's current epoch that failed verification (torn, damaged, another
 *     set's): misses; a page of an earlier epoch (before a {@code clear()}, a cold open) is empty, not counted
 *     (a damaged log page is a miss too, not counted here)
 * @param ioErrors device read errors (misses) and write errors (the set or log page is then unreachable)
 * @param logObjectsDropped log objects reclaim dropped (below the threshold, not moved to a set), older
 *     versions a newer log object shadows included
 * @param faults Throwables out of the engine (each empties it: a new epoch), counted, never thrown
 * @param resets times the engine was emptied: clear(), keys(), faults
 * @param bufferHits of the hits, those served from its log's write buffer in DRAM (no device read): its part of
 *     {@link CacheStats#bufferHits()}
 * @param outOfMemoryMisses lookups that missed because no direct memory was left for a page buffer or its read:
 *     its part of {@link CacheStats#outOfMemoryMisses()} (not I/O errors, not faults)
 * @param cascadeWaits evictions that waited for room in its log's buffer, and removes that waited for its log's
 *     device (a flush or reclaim in progress): its part of {@link CacheStats#cascadeWaits()}
 * @param evicted objects that left it for room, each told to a removal listener as {@code EVICTED} unless DRAM
 *     holds the key: log objects its reclaim dropped (not moved to a set, not readmitted, no newer version of
 *     the key in the log) and set objects a rewrite evicted (RRIP); its part of {@link
 *     CacheStats#reclaimEvicted()}
 * @param objectsLost objects that became unreachable through a fault, keys unknown, so no removal event: those
 *     of a poisoned set (a read or write error, no direct memory) and those of a region a fault emptied; its part
 *     of {@link CacheStats#entriesDropped()}
 */
public record SmallObjectStats(boolean enabled, long entries, long dramBytes, long lookups, long hits,
    long logHits, long bloomFalsePositiveReads, long pageReads, long logPageReads, long setRewrites,
    long objectsInserted, long objectsAdmitted, long bytesAdmitted, long bytesWritten, long damagedPages, long ioErrors,
    long logObjectsDropped, long faults, long resets, long bufferHits, long outOfMemoryMisses, long cascadeWaits,
    long evicted, long objectsLost) {
  /** The figures of a cache whose small-object engine is off. */
  public static final SmallObjectStats OFF =
      new SmallObjectStats(false, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

  /** DRAM per object in set pages. */
  public double dramBytesPerEntry() {
    return entries == 0 ? 0 : (double) dramBytes / entries;
  }

  /** New objects per set-page rewrite (what the log in front is for). */
  public double objectsPerSetRewrite() {
    return setRewrites == 0 ? 0 : (double) objectsInserted / setRewrites;
  }

  /** Device reads of its lookups: set pages and log pages (its part of {@link CacheStats#deviceReads()}). */
  public long deviceReads() {
    return pageReads + logPageReads;
  }

  /** Device reads per hit of this engine (a hit from the log's write buffer reads nothing). */
  public double deviceReadsPerHit() {
    return hits == 0 ? 0 : (double) deviceReads() / hits;
  }

  /** Share of the engine's hits served from its log. */
  public double logHitShare() {
    return hits == 0 ? 0 : (double) logHits / hits;
  }

  /** Device bytes written per byte admitted, this engine alone. */
  public double writeAmplification() {
    return bytesAdmitted == 0 ? 0 : (double) bytesWritten / bytesAdmitted;
  }
}
