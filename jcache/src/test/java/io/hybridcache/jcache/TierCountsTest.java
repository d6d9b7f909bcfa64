package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import java.nio.file.Path;
import java.util.Set;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The per-cache counts {@link HybridCacheStatisticsMXBean} keeps whatever the statistics switch says: hits by the
 * tier that served them, entries the engine evicted, entries it refused. Each through {@code Cache} calls on a
 * real directory (1 MiB of DRAM, 8 MiB of flash, 64 KiB write buffers: {@link TestManagers}), statistics off.
 */
class TierCountsTest {
  @TempDir Path dir;

  private static MutableConfiguration<String, byte[]> arrays() {
    return new MutableConfiguration<String, byte[]>().setTypes(String.class, byte[].class);
  }

  private static HybridCacheStatisticsMXBean counts(Cache<?, ?> c) {
    return c.unwrap(HybridCacheStatisticsMXBean.class);
  }

  /**
   * Two entries on flash only (a clean close wrote them, a warm restart left DRAM empty): the first get and
   * getAll of each is a flash hit; once promoted, the next ones are DRAM hits. A miss counts neither.
   */
  @Test
  void hitsCountTheTierThatServedThem() {
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir, "tiers")) {
      Cache<String, byte[]> c = m.createCache("tiers", arrays());
      c.put("a", new byte[] {1});
      c.put("b", new byte[] {2});
      assertNotNull(c.get("a"));
      assertEquals(1, counts(c).getDramHits(), "a hit of a just-written entry");
      assertEquals(0, counts(c).getFlashHits());
    }
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir, "tiers")) {
      Cache<String, byte[]> c = m.createCache("tiers", arrays());
      HybridCacheStatisticsMXBean counts = counts(c);
      CacheStats before = c.unwrap(HybridCache.class).stats();
      assertEquals(1, c.get("a")[0]);
      assertEquals(2, c.getAll(Set.of("b")).get("b")[0]);
      assertEquals(2, c.unwrap(HybridCache.class).stats().flashHits() - before.flashHits(), "on flash after restart");
      assertEquals(2, counts.getFlashHits(), "flash hits: get, getAll");
      assertEquals(0, counts.getDramHits());
      assertEquals(1, c.get("a")[0]);
      assertEquals(2, c.getAll(Set.of("b")).get("b")[0]);
      assertNull(c.get("absent"));
      assertEquals(2, counts.getDramHits(), "DRAM hits of the promoted entries");
      assertEquals(2, counts.getFlashHits());
      assertEquals(0, counts.getCacheHits(), "the JCache statistics are off");
    }
  }

  /**
   * 12 MB written to cache A through an 8 MiB flash tier: reclaim evicts A's oldest entries, each counted on A;
   * cache B's entry, written after, is on no other cache's count.
   */
  @Test
  void anEvictionCountsOnTheCacheThatLostTheEntry() {
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<String, byte[]> a = m.createCache("a", arrays());
      Cache<String, byte[]> b = m.createCache("b", arrays());
      HybridCache engine = m.unwrap(HybridCache.class);
      for (int i = 0; i < 12_000; i++) {
        a.put("k" + i, new byte[1000]);
      }
      b.put("k", new byte[1000]);
      engine.flush(); // reclaim made room for every write (and told each eviction) before the flush returns
      assertTrue(counts(a).getEvictedEntries() > 0, "no eviction counted on A");
      assertTrue(counts(a).getEvictedEntries() < 12_000);
      assertNull(a.get("k0"), "A's oldest entry was evicted");
      assertEquals(0, counts(b).getEvictedEntries(), "evictions counted on B");
      assertEquals(0, counts(a).getCacheEvictions(), "the JCache statistics are off");
      assertNotNull(b.get("k"));
    }
  }

  /**
   * Entries the engine refused, counted on their cache: a value neither tier can hold (over the 1 MiB DRAM budget
   * and the 64 KiB largest flash entry), refused at its put; a 100 KB value, kept in DRAM only and refused by flash
   * when DRAM evicts it (also an eviction). Another cache's refusals are the engine's others.
   */
  @Test
  void aRejectionCountsOnItsCache() {
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<String, byte[]> r = m.createCache("r", arrays());
      Cache<String, byte[]> other = m.createCache("other", arrays());
      HybridCache engine = m.unwrap(HybridCache.class);
      long refusedBefore = refused(engine.stats());
      r.put("huge", new byte[2 << 20]);
      assertNull(r.get("huge"), "not stored");
      assertEquals(1, counts(r).getRejectedEntries(), "a put no tier can hold");
      r.put("big", new byte[100_000]);
      assertEquals(1, counts(r).getRejectedEntries(), "kept in DRAM, so far"); // not read: it stays on probation
      // up to 5 MB through 1 MiB of DRAM; each key read twice, so DRAM's frequency sketch (W-TinyLFU) admits it over
      // the big entry (written and read once) when that is the victim
      for (int i = 0; i < 5_000 && counts(r).getRejectedEntries() < 2; i++) {
        other.put("k" + i, new byte[1000]);
        other.get("k" + i);
        other.get("k" + i);
      }
      assertEquals(2, counts(r).getRejectedEntries(), "the DRAM-only entry refused by flash at its eviction");
      assertEquals(1, counts(r).getEvictedEntries(), "it left the cache: an eviction too");
      assertNull(r.get("big"));
      assertEquals(refused(engine.stats()) - refusedBefore - 2, counts(other).getRejectedEntries(),
          "the other cache's rejections: the engine's refusals but R's two");
    }
  }

  /** What the engine refused: at a put (too large for both tiers) and at a DRAM eviction flash did not take. */
  private static long refused(CacheStats s) {
    return s.admissionRejected() + s.queueRejected() + s.tooLargeRejected() + s.degradedRejected()
        + s.indexFullRejected();
  }
}
