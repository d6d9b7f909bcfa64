package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Path;
import java.util.Properties;
import javax.cache.Cache;
import javax.cache.CacheManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live-entry estimate a scan-free {@code removeAll()} counts as removals ({@link Population}): its evictions
 * and its memory bound. Population's own clock is the {@code now} its callers pass, so the unit cases need no wait.
 */
class RemovalEstimateTest {
  private static final long T0 = 1_700_000_000_000L;

  @TempDir Path dir;

  /**
   * A manager declaring store-by-reference cache {@code name} of at most 10 String entries, statistics on, with
   * {@code expireAfterWrite} (null: eternal).
   */
  private CacheManager referenceCache(String name, String expireAfterWrite) {
    Properties p = TestManagers.small(dir);
    String prefix = "cache." + name + ".";
    p.setProperty(prefix + "store-by-reference", "true");
    p.setProperty(prefix + "max-entries", "10");
    p.setProperty(prefix + "statistics", "true");
    p.setProperty(prefix + "key-type", "java.lang.String");
    p.setProperty(prefix + "value-type", "java.lang.String");
    if (expireAfterWrite != null) {
      p.setProperty(prefix + "expire-after-write", expireAfterWrite);
    }
    return new HybridCachingProvider().getCacheManager(URI.create("test:" + name),
        RemovalEstimateTest.class.getClassLoader(), p);
  }

  /** Asserts that {@code removeAll()} of {@code c} adds to CacheRemovals the entries its iterator finds. */
  private static void assertRemoveAllCountsTheLiveEntries(Cache<String, String> c, String expectedKeyPrefix) {
    HybridCacheStatisticsMXBean stats = c.unwrap(HybridCacheStatisticsMXBean.class);
    int live = 0;
    for (Cache.Entry<String, String> e : c) {
      assertTrue(e.getKey().startsWith(expectedKeyPrefix), "an entry outlived its expiry: " + e.getKey());
      live++;
    }
    long before = stats.getCacheRemovals();
    c.removeAll();
    assertEquals(live, stats.getCacheRemovals() - before, "CacheRemovals of removeAll() over " + live + " entries");
  }

  /** A store-by-reference cache of at most 10 eternal entries, statistics on: 20 puts, about 10 evicted. */
  @Test
  void removeAllCountsTheLiveEternalEntriesAfterEvictions() {
    try (CacheManager m = referenceCache("e", null)) {
      Cache<String, String> c = m.getCache("e", String.class, String.class);
      for (int i = 0; i < 20; i++) {
        c.put("k" + i, "v");
      }
      assertTrue(c.unwrap(HybridCacheStatisticsMXBean.class).getCacheEvictions() > 0, "the bound evicted");
      assertRemoveAllCountsTheLiveEntries(c, "k");
    }
  }

  /**
   * A store-by-reference cache of at most 10 entries, 2 s expiry after write: 10 entries written, then, a second
   * later, 10 more (about 10 evicted, whichever Caffeine picks: it tends to refuse the newest). Once the first
   * ten's expiry second is over and the second ten are still live, removeAll() counts exactly those live: each
   * eviction was taken off its own entry's expiry second (the store hands the evicted entry's expiry over),
   * not off the earliest second counted, which would count an evicted newer entry until its own time.
   */
  @Test
  void removeAllCountsTheLiveEntriesWhateverOrderTheStoreEvictedThemIn() {
    try (CacheManager m = referenceCache("w", "2s")) {
      Cache<String, String> c = m.getCache("w", String.class, String.class);
      long first = System.currentTimeMillis();
      for (int i = 0; i < 10; i++) {
        c.put("first" + i, "v");
      }
      long firstOver = (first + 2_000 + 999) / 1000 * 1000; // the end of the first ten's expiry second
      waitUntil(first / 1000 * 1000 + 1_500); // the next second's middle: the second ten expire a second later
      long second = System.currentTimeMillis();
      for (int i = 0; i < 10; i++) {
        c.put("second" + i, "v");
      }
      assertTrue(c.unwrap(HybridCacheStatisticsMXBean.class).getCacheEvictions() > 0, "the bound evicted");
      waitUntil(firstOver);
      assertRemoveAllCountsTheLiveEntries(c, "second");
      assertTrue(System.currentTimeMillis() < second + 2_000, "the machine stalled past the second ten's expiry");
    }
  }

  /** Time passing, not synchronization: expiry is by the wall clock. */
  private static void waitUntil(long millis) {
    while (System.currentTimeMillis() < millis) {
      Thread.onSpinWait();
    }
  }

  /**
   * One time-to-live (60 s), one write a second, never removed (entries left to expire): the counters of the
   * seconds over go as later entries are added, so they stay at the TTL's seconds, not one per second written.
   */
  @Test
  void theSecondsOverGoAsEntriesAreAdded() {
    Population p = new Population();
    for (int s = 0; s < 1_000; s++) {
      long now = T0 + s * 1_000L;
      p.added(now + 60_000, now);
    }
    assertTrue(p.seconds() <= 61, "counters: " + p.seconds());
    long now = T0 + 999_000L;
    assertEquals(60, p.live(now, 0), "the entries not yet expired");
  }

  /** A population of ten entries written at T0, expiring at T0 + 10 s, + 11 s, ... + 19 s. */
  private static Population tenExpiringFrom10s() {
    Population p = new Population();
    for (int i = 0; i < 10; i++) {
      p.added(T0 + (10 + i) * 1_000L, T0);
    }
    return p;
  }

  /**
   * Evictions told without their expiry time, in the order the entries expire (one TTL, write order, as the
   * engine's flash evicts): each taken off the earliest second counted, so the estimate stays exact, also once
   * the evicted entries' seconds are over.
   */
  @Test
  void evictionsWithoutTheirExpiryInExpiryOrderKeepTheEstimateExact() {
    Population p = tenExpiringFrom10s();
    for (int i = 0; i < 4; i++) { // the four expiring soonest are evicted
      p.evicted();
    }
    assertEquals(6, p.live(T0, 0));
    assertEquals(4, p.live(T0 + 15_000, 0), "at +15 s: the entries of +16 s to +19 s");
  }

  /** Evictions told with their expiry time (a reference store's) are taken off their own seconds, in any order. */
  @Test
  void evictionsWithTheirExpiryAreExactInAnyOrder() {
    Population p = tenExpiringFrom10s();
    p.removed(T0 + 19_000); // the latest-expiring two, as an LRU might pick them
    p.removed(T0 + 18_000);
    assertEquals(8, p.live(T0, 0));
    assertEquals(2, p.live(T0 + 15_000, 0), "at +15 s: the entries of +16 s and +17 s");
  }

  /** An eviction without its expiry in a cache of eternal entries only is taken off them. */
  @Test
  void evictionsOfEternalEntriesAreTakenOffTheEternalCount() {
    Population p = new Population();
    for (int i = 0; i < 5; i++) {
      p.addedEternal();
    }
    p.evicted();
    p.evicted();
    assertEquals(3, p.live(T0, 0));
  }
}
