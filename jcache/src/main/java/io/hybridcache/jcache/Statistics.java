package io.hybridcache.jcache;

import java.util.concurrent.atomic.LongAdder;

/**
 * One cache's JCache statistics (the spec's table: a get that finds an entry is a hit, one that does
 * not a miss; puts count entries stored, removals entries removed), exposed as
 * {@code javax.cache:type=CacheStatistics}. Times are kept in nanoseconds and reported as average
 * microseconds. {@link #getUndecodableValues()}, {@link #getOversizedEntries()}, the hits by tier
 * ({@link #getDramHits()}, {@link #getFlashHits()}), {@link #getEvictedEntries()}, {@link #getRejectedEntries()} and
 * {@link #getBackgroundFailures()} are counted whether statistics are on or not, and also as totals that
 * {@link #clear()} does not reset ({@link HybridCacheCounts}: each MXBean figure is its total less the total at the
 * last clear, a {@link ClearableCount}). Thread-safe (adders: a hit adds to one striped cell, no lock).
 */
final class Statistics implements HybridCacheStatisticsMXBean, HybridCacheCounts {
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder puts = new LongAdder();
  private final LongAdder removals = new LongAdder();
  private final LongAdder evictions = new LongAdder();
  private final LongAdder getNanos = new LongAdder();
  private final LongAdder putNanos = new LongAdder();
  private final LongAdder removeNanos = new LongAdder();
  private final ClearableCount undecodable = new ClearableCount();
  private final ClearableCount oversized = new ClearableCount();
  private final ClearableCount dramHits = new ClearableCount();
  private final ClearableCount flashHits = new ClearableCount();
  private final ClearableCount evicted = new ClearableCount();
  private final ClearableCount rejected = new ClearableCount();
  private final ClearableCount background = new ClearableCount();

  void hits(long n) { hits.add(n); }
  void misses(long n) { misses.add(n); }
  void puts(long n) { puts.add(n); }
  void removals(long n) { removals.add(n); }
  void evictions(long n) { evictions.add(n); }
  void getTime(long nanos) { getNanos.add(nanos); }
  /** {@code n} entries stored in {@code nanos}. */
  void puts(long n, long nanos) { puts.add(n); putNanos.add(nanos); }
  /** {@code n} entries removed in {@code nanos}. */
  void removals(long n, long nanos) { removals.add(n); removeNanos.add(nanos); }
  void putTime(long nanos) { putNanos.add(nanos); }
  void removeTime(long nanos) { removeNanos.add(nanos); }
  void undecodable() { undecodable.increment(); }

  private volatile java.util.function.LongSupplier dramHeld = () -> -1;
  private volatile java.util.function.LongSupplier flashHeld = () -> -1;

  /** Where {@link #getDramBytesHeld} and {@link #getFlashBytesHeld} read (a capped cache's engine counts). */
  void held(java.util.function.LongSupplier dram, java.util.function.LongSupplier flash) {
    dramHeld = dram;
    flashHeld = flash;
  }

  @Override
  public long getDramBytesHeld() { return dramHeld.getAsLong(); }

  @Override
  public long getFlashBytesHeld() { return flashHeld.getAsLong(); }
  void oversized() { oversized.increment(); }
  /** A hit served by flash ({@code fromFlash}) or by DRAM (a store-by-reference cache's: always DRAM). */
  void served(boolean fromFlash) { (fromFlash ? flashHits : dramHits).increment(); }
  /** An entry the engine evicted; {@code refused}: one it refused to keep (also a rejection). */
  void evicted(boolean refused) {
    evicted.increment();
    if (refused) {
      rejected.increment();
    }
  }
  /** An entry the engine would not store at all (a put no tier can hold, a key over the engine's limit). */
  void rejected() { rejected.increment(); }
  /** A Throwable on a background thread that no caller hears of ({@link #getBackgroundFailures()}). */
  void backgroundFailure() { background.increment(); }

  @Override
  public void clear() {
    for (LongAdder a : new LongAdder[] {hits, misses, puts, removals, evictions, getNanos, putNanos, removeNanos}) {
      a.reset();
    }
    clearOwnCounts();
  }

  /** Starts the MXBean's readings of the provider's own counts anew; their totals go on. */
  private void clearOwnCounts() {
    for (ClearableCount c : new ClearableCount[] {undecodable, oversized, dramHits, flashHits, evicted, rejected,
        background}) {
      c.clear();
    }
  }

  @Override
  public long undecodableValues() { return undecodable.total(); }

  @Override
  public long oversizedEntries() { return oversized.total(); }

  @Override
  public long dramHits() { return dramHits.total(); }

  @Override
  public long flashHits() { return flashHits.total(); }

  @Override
  public long evictedEntries() { return evicted.total(); }

  @Override
  public long rejectedEntries() { return rejected.total(); }

  @Override
  public long getOversizedEntries() { return oversized.sinceClear(); }

  @Override
  public long getDramHits() { return dramHits.sinceClear(); }

  @Override
  public long getFlashHits() { return flashHits.sinceClear(); }

  @Override
  public long getEvictedEntries() { return evicted.sinceClear(); }

  @Override
  public long getRejectedEntries() { return rejected.sinceClear(); }

  @Override
  public long getUndecodableValues() { return undecodable.sinceClear(); }

  @Override
  public long getBackgroundFailures() { return background.sinceClear(); }

  @Override
  public long backgroundFailures() { return background.total(); }

  @Override
  public long getCacheHits() { return hits.sum(); }

  @Override
  public float getCacheHitPercentage() {
    long gets = getCacheGets();
    return gets == 0 ? 0f : getCacheHits() * 100f / gets;
  }

  @Override
  public long getCacheMisses() { return misses.sum(); }

  @Override
  public float getCacheMissPercentage() {
    long gets = getCacheGets();
    return gets == 0 ? 0f : getCacheMisses() * 100f / gets;
  }

  @Override
  public long getCacheGets() { return hits.sum() + misses.sum(); }

  @Override
  public long getCachePuts() { return puts.sum(); }

  @Override
  public long getCacheRemovals() { return removals.sum(); }

  @Override
  public long getCacheEvictions() { return evictions.sum(); }

  @Override
  public float getAverageGetTime() { return average(getNanos.sum(), getCacheGets()); }

  @Override
  public float getAveragePutTime() { return average(putNanos.sum(), getCachePuts()); }

  @Override
  public float getAverageRemoveTime() { return average(removeNanos.sum(), getCacheRemovals()); }

  private static float average(long nanos, long count) {
    return count == 0 ? 0f : nanos / 1000f / count;
  }
}
