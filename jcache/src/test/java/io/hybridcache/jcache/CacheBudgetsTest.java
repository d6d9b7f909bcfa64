package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Properties;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per-cache budgets inside one manager (issue 37 item 6): {@code cache.NAME.dram-bytes} and {@code flash-bytes},
 * and {@code cache.default.*} for caches created on demand, enforced by the engine: a cache flooded far past its
 * caps holds no more than them and another cache of the manager loses nothing.
 */
class CacheBudgetsTest {
  @TempDir Path dir;

  static final long A_DRAM = 256 * 1024;
  static final long A_FLASH = 1024 * 1024;
  /** A flash cap's slack: one entry per thread writing at once (one thread here), rounded to its size class. */
  static final long SLACK = 8 * 1024;

  private CacheManager open(Properties p) {
    return new HybridCachingProvider().getCacheManager(URI.create("test:" + dir.getFileName()),
        getClass().getClassLoader(), p);
  }

  private static MutableConfiguration<Integer, byte[]> config() {
    return new MutableConfiguration<Integer, byte[]>().setTypes(Integer.class, byte[].class);
  }

  static byte[] value(int i) {
    byte[] v = new byte[1000];
    Arrays.fill(v, (byte) i);
    v[0] = (byte) (i >> 8);
    return v;
  }

  private static HybridCacheStatisticsMXBean stats(Cache<?, ?> c) {
    return c.unwrap(HybridCacheStatisticsMXBean.class);
  }

  /**
   * A manager with 8 MiB of DRAM, so that B's writes leave DRAM only by a flush (no eviction waiting on the
   * writer: a timed wait, lost on a loaded machine); {@link #floodAndCheck} then shrinks it to 1 MiB.
   */
  private Properties roomy() {
    Properties p = TestManagers.small(dir);
    p.setProperty(ProviderProperties.DRAM_BYTES, "8m");
    return p;
  }

  /** {@link #roomy()} with cache a's caps. */
  private Properties cappedA(String dramBytes, String flashBytes) {
    Properties p = roomy();
    p.setProperty("cache.a.dram-bytes", dramBytes);
    p.setProperty("cache.a.flash-bytes", flashBytes);
    return p;
  }

  /**
   * B writes first, all of it to flash by a flush, then DRAM shrinks to 1 MiB (what leaves is clean: no flash
   * write, nothing timed); A, capped, is flooded with 40 times its flash cap: B keeps every entry, A stays within.
   */
  private void floodAndCheck(CacheManager m, Cache<Integer, byte[]> a, Cache<Integer, byte[]> b) {
    for (int i = 0; i < 3000; i++) {
      b.put(i, value(i));
    }
    // B on flash before the flood: a cap bounds A's bytes, not its share of the device's bandwidth (a DRAM
    // eviction of B refused under the writer's back-pressure while A floods would be lost, cap or not)
    io.hybridcache.core.api.HybridCache engine = b.unwrap(io.hybridcache.core.api.HybridCache.class);
    engine.flush();
    engine.setDramCapacity(1024 * 1024); // most of B now on flash only
    assertEquals(0, engine.stats().queueRejected(), "no eviction of B was refused");
    for (int i = 0; i < 40_000; i++) { // 40 MB through 1 MiB of DRAM and 8 MiB of flash
      a.put(i, value(i));
      assertTrue(stats(a).getDramBytesHeld() <= A_DRAM, "A's DRAM " + stats(a).getDramBytesHeld());
    }
    for (int i = 0; i < 3000; i++) {
      assertArrayEquals(value(i), b.get(i), "B's entry " + i + " " + engine.stats());
    }
    assertTrue(stats(a).getFlashBytesHeld() <= A_FLASH + SLACK, "A's flash " + stats(a).getFlashBytesHeld());
    assertTrue(stats(a).getFlashBytesHeld() > A_FLASH / 2, "A used its flash: " + stats(a).getFlashBytesHeld());
  }

  @Test
  void aCappedCacheFloodedStaysWithinItsCapsAndAnotherLosesNothing() {
    try (CacheManager m = open(cappedA("256k", "1m"))) {
      assertTrue(m.getCacheNames().iterator().hasNext() == false, "a budget does not declare a cache");
      Cache<Integer, byte[]> b = m.createCache("b", config());
      Cache<Integer, byte[]> a = m.createCache("a", config());
      floodAndCheck(m, a, b);
      assertEquals(-1, stats(b).getFlashBytesHeld(), "B has no cap: not reported");
    }
  }

  /**
   * A cleared cache's earlier epochs (unreadable) take no flash room against its caps, and ask for no reclaim: A,
   * capped, has entries on flash beside B's (a flush) and more dirty in DRAM, is cleared, filled in DRAM and
   * cleared again, then filled again; DRAM shrinks so that most of every epoch's dirty entries are evicted: only
   * the current epoch's reach flash (A's flash bytes, and what the engine admitted since the flush, within one
   * cap), nothing is rewritten for the dead epochs (a reclaim for one would move B's entries), B keeps every entry.
   */
  @Test
  void aClearedCachesEarlierEpochsTakeNoFlashRoom() {
    try (CacheManager m = open(cappedA("1m", "1m"))) {
      Cache<Integer, byte[]> b = m.createCache("b", config());
      Cache<Integer, byte[]> a = m.createCache("a", config());
      for (int i = 0; i < 800; i++) { // A's and B's entries side by side on flash after the flush
        a.put(i, value(i));
        b.put(i, value(i));
      }
      io.hybridcache.core.api.HybridCache engine = b.unwrap(io.hybridcache.core.api.HybridCache.class);
      engine.flush();
      long admitted = engine.stats().bytesAdmitted();
      long reclaimed = engine.stats().reclaimBytesWritten();
      for (int round = 0; round < 3; round++) {
        if (round > 0) {
          a.clear();
        }
        for (int i = round == 0 ? 800 : 0; i < (round == 0 ? 1200 : 800); i++) { // dirty in DRAM, within A's cap
          a.put(i, value(i + round));
        }
      }
      engine.setDramCapacity(1024 * 1024); // most of every epoch's dirty entries evicted: the current one's admitted
      long aFlash = stats(a).getFlashBytesHeld();
      assertTrue(aFlash > 0 && aFlash <= A_FLASH + SLACK, "A's flash bytes " + aFlash);
      long written = engine.stats().bytesAdmitted() - admitted;
      assertTrue(written <= A_FLASH + SLACK, "flash bytes admitted for A's epochs after the flush: " + written);
      assertEquals(reclaimed, engine.stats().reclaimBytesWritten(), "bytes rewritten for A's dead epochs");
      for (int i = 0; i < 800; i++) {
        assertArrayEquals(value(i), b.get(i), "B's entry " + i);
        assertArrayEquals(value(i + 2), a.get(i), "A's entry " + i);
      }
    }
  }

  /**
   * A cache at its DRAM cap keeps its newest entries in DRAM and lets its oldest go (to flash, as DRAM evictions):
   * written with three times its cap, its last tenth are all DRAM hits; another cache's DRAM entries stay.
   */
  @Test
  void aCappedCacheAtItsDramCapKeepsItsNewestEntriesInDram() {
    Properties p = roomy();
    p.setProperty("cache.a.dram-bytes", "256k");
    try (CacheManager m = open(p)) {
      Cache<Integer, byte[]> b = m.createCache("b", config());
      Cache<Integer, byte[]> a = m.createCache("a", config());
      for (int i = 0; i < 1000; i++) { // about 1 MB of an 8 MiB DRAM tier
        b.put(i, value(i));
      }
      int n = (int) (3 * A_DRAM / 1000);
      for (int i = 0; i < n; i++) {
        a.put(i, value(i));
        assertTrue(stats(a).getDramBytesHeld() <= A_DRAM + SLACK, "A's DRAM " + stats(a).getDramBytesHeld());
      }
      for (int i = n - n / 10; i < n; i++) {
        assertArrayEquals(value(i), a.get(i), "A's entry " + i);
      }
      assertEquals(n / 10, stats(a).getDramHits(), "A's newest tenth from DRAM");
      assertEquals(0, stats(a).getFlashHits(), "none of A's newest from flash");
      for (int i = 0; i < 1000; i++) {
        assertArrayEquals(value(i), b.get(i), "B's entry " + i);
      }
      assertEquals(1000, stats(b).getDramHits(), "B's entries all from DRAM");
      for (int i = 0; i < n - n / 10; i++) { // A's older entries on flash: DRAM evictions, not lost
        assertArrayEquals(value(i), a.get(i), "A's older entry " + i);
      }
    }
  }

  /**
   * {@code cache.default.dram-bytes} and {@code flash-bytes} are every cache's caps, never a cache named
   * {@code default}'s: with either set, a cache named {@code default} is refused, declared (at the manager's open)
   * or created on demand, naming the ambiguity.
   */
  @Test
  void aCacheNamedDefaultIsRefusedWhileTheDefaultCapsAreSet() {
    Properties p = roomy();
    p.setProperty("cache.default.flash-bytes", "1m");
    p.setProperty("cache.default.key-type", "java.lang.Integer"); // declares a cache named default
    IllegalArgumentException open = assertThrows(IllegalArgumentException.class, () -> open(p));
    assertTrue(open.getMessage().contains("a cache named default")
        && open.getMessage().contains("cache.default.flash-bytes"), open.getMessage());
    p.remove("cache.default.key-type");
    try (CacheManager m = open(p)) {
      IllegalArgumentException made = assertThrows(IllegalArgumentException.class,
          () -> m.createCache("default", config()));
      assertTrue(made.getMessage().contains("a cache named default"), made.getMessage());
      assertNull(m.getCache("default"), "not made");
      m.createCache("other", config()); // any other name takes the default caps
    }
  }

  @Test
  void theDefaultCapsApplyToACacheCreatedOnDemand() {
    Properties p = roomy();
    p.setProperty("cache.default.dram-bytes", "3.125%"); // of 8m: 256k
    p.setProperty("cache.default.flash-bytes", "1m");
    p.setProperty("cache.b.flash-bytes", "100%"); // its own wins
    p.setProperty("cache.b.dram-bytes", "100%");
    try (CacheManager m = open(p)) {
      Cache<Integer, byte[]> b = m.getCache("b") != null ? null : m.createCache("b", config());
      Cache<Integer, byte[]> a = m.createCache("com.example.Region", config()); // as Hibernate makes a region
      floodAndCheck(m, a, b);
      assertTrue(stats(b).getFlashBytesHeld() > 2 * A_FLASH, "B's own cap is the manager's: " + stats(b).getFlashBytesHeld());
    }
  }

  @Test
  void aBadBudgetIsNamedWithItsValue() {
    String[][] cases = {
        {"cache.a.dram-bytes", "lots", "cache.a.dram-bytes", "lots"},
        {"cache.a.flash-bytes", "-1m", "cache.a.flash-bytes", "-1m"},
        {"cache.a.flash-bytes", "0%", "cache.a.flash-bytes", "0%"},
        {"cache.a.dram-bytes", "150%", "cache.a.dram-bytes", "150%"},
        {"cache.a.dram-bytes", "2m", "cannot exceed the manager's dram-bytes (1m), was 2m"},
        {"cache.default.flash-bytes", "9m", "cannot exceed the manager's flash-bytes (8m), was 9m"},
        {"cache.a.ram-bytes", "1m", "cache.a.ram-bytes", "1m"},
    };
    for (String[] c : cases) {
      Properties p = TestManagers.small(dir);
      p.setProperty(c[0], c[1]);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> open(p), c[0] + "=" + c[1]);
      for (int i = 2; i < c.length; i++) {
        assertTrue(e.getMessage().contains(c[i]), e.getMessage());
      }
    }
    Properties p = TestManagers.small(dir);
    p.setProperty("cache.a.flash-bytes", "1m");
    p.setProperty(ProviderProperties.SMALL_OBJECT_SHARE, "0.25");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> open(p));
    assertTrue(e.getMessage().contains("small-object-share") && e.getMessage().contains("0.25"), e.getMessage());
  }

  /**
   * A flash cap under two segments could be held whole by the two segments being written (DRAM evictions' and
   * reclaim's), which reclaim never takes: the cache would refuse every entry. It is refused at open, naming
   * the value and the minimum.
   */
  @Test
  void aFlashCapUnderTwoSegmentsIsRefusedNamingTheMinimum() {
    for (String[] c : new String[][] {{"cache.a.flash-bytes", "1020k"}, {"cache.default.flash-bytes", "12%"}}) {
      Properties p = TestManagers.small(dir); // segment-bytes 512k: the minimum is 1m
      p.setProperty(c[0], c[1]);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> open(p), c[0] + "=" + c[1]);
      assertTrue(e.getMessage().contains(c[0]) && e.getMessage().contains("was " + c[1])
          && e.getMessage().contains("at least 1m") && e.getMessage().contains("segment-bytes"), e.getMessage());
    }
    Properties p = TestManagers.small(dir);
    p.setProperty("cache.a.flash-bytes", "1m"); // two segments: accepted
    open(p).close();
  }

  /**
   * A clean close writes back a capped cache's dirty entries even past its flash cap (reclaim takes the excess
   * back later): an acknowledged put is never lost by a clean close because of a cap.
   */
  @Test
  void aCleanCloseKeepsEveryAcknowledgedPutOfACacheAtItsFlashCap() {
    Properties p = TestManagers.small(dir, "a");
    p.setProperty(ProviderProperties.DRAM_BYTES, "4m"); // nothing leaves DRAM but by flush and close
    p.setProperty("cache.a.flash-bytes", "1m");
    int n = 0;
    try (CacheManager m = open(p)) {
      Cache<Integer, byte[]> a = m.createCache("a", config());
      io.hybridcache.core.api.HybridCache engine = a.unwrap(io.hybridcache.core.api.HybridCache.class);
      while (stats(a).getFlashBytesHeld() < A_FLASH - 200 * 1024) { // on flash, under the cap: none refused
        for (int j = 0; j < 100; j++, n++) {
          a.put(n, value(n));
        }
        engine.flush();
      }
      for (int j = 0; j < 300; j++, n++) { // ~330 KB dirty in DRAM: the close takes the cache past its cap
        a.put(n, value(n));
      }
      assertEquals(n, engine.stats().dramEntries(), "every entry still in DRAM: none evicted, none refused");
    }
    try (CacheManager m = open(p)) {
      Cache<Integer, byte[]> a = m.createCache("a", config());
      for (int i = 0; i < n; i++) {
        assertArrayEquals(value(i), a.get(i), "acknowledged put " + i + " of " + n + " lost at a clean close");
      }
    }
  }

  /**
   * A warm restart counts a capped cache's flash bytes as before the close, those of the segments being written
   * at the close (which keep no summary) included: a cache does not pass its cap by them after each restart.
   */
  @Test
  void aWarmRestartCountsTheCachesFlashBytesAsBeforeTheClose() {
    Properties p = TestManagers.small(dir, "a");
    p.setProperty("cache.a.flash-bytes", "2m");
    long before;
    try (CacheManager m = open(p)) {
      Cache<Integer, byte[]> a = m.createCache("a", config());
      for (int i = 0; i < 1500; i++) { // distinct keys: nothing superseded, every byte live
        a.put(i, value(i));
      }
      a.unwrap(io.hybridcache.core.api.HybridCache.class).flush(); // the close writes nothing more
      before = stats(a).getFlashBytesHeld();
      assertTrue(before > 1500 * 1000, "A on flash before the close: " + before);
    }
    try (CacheManager m = open(p)) {
      Cache<Integer, byte[]> a = m.createCache("a", config());
      assertEquals(before, stats(a).getFlashBytesHeld(), "A's flash bytes after a warm restart");
      assertArrayEquals(value(1499), a.get(1499));
    }
  }

  @Test
  void withoutBudgetsNothingIsCountedAndCachesWorkAsBefore() {
    try (CacheManager m = open(TestManagers.small(dir))) {
      Cache<Integer, byte[]> a = m.createCache("a", config());
      for (int i = 0; i < 3000; i++) {
        a.put(i, value(i));
      }
      assertArrayEquals(value(7), a.get(7));
      assertEquals(-1, stats(a).getDramBytesHeld());
      assertEquals(-1, stats(a).getFlashBytesHeld());
      assertNull(a.unwrap(io.hybridcache.core.api.HybridCache.class).config().keyGroups(),
          "no key groups: the engine counts nothing");
    }
  }
}
