package io.hybridcache.mongo;

/**
 * An immutable snapshot of one {@link CachedCollection}'s counters (cumulative since it was made).
 * {@code writes} over time is the collection's update rate, what lifetime-class placement groups
 * collections by.
 *
 * @param reads documents asked for by {@code findById} and {@code findByIds}
 * @param cacheHits of those, served by the cache (DRAM or flash)
 * @param queries queries sent to MongoDB by reads (one per {@code findById} miss, one per {@code findByIds} batch)
 * @param fetched documents those queries returned
 * @param fills documents put into the cache by reads
 * @param fillsSkipped fetched documents not put because a write to the same key (stripe) overlapped the read
 * @param notCached documents not cached: too large for a cache entry, or not encodable at the time (catalogue error)
 * @param writes inserts, replaces, updates, deletes and invalidations through the bridge
 * @param writesStored writes whose resulting document was stored in the cache (write-through)
 * @param invalidations writes that removed the key instead (deletes, no match, overlapping writes, failures)
 * @param corruptValues cache values that failed to decode (dropped and read from MongoDB instead)
 * @param mongoErrors MongoDB operations that failed
 */
public record CollectionStats(
    long reads,
    long cacheHits,
    long queries,
    long fetched,
    long fills,
    long fillsSkipped,
    long notCached,
    long writes,
    long writesStored,
    long invalidations,
    long corruptValues,
    long mongoErrors) {

  /** cacheHits / reads (NaN before the first read). */
  public double hitRatio() {
    return reads == 0 ? Double.NaN : (double) cacheHits / reads;
  }
}
