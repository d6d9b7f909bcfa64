package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.api.SmallObjectStats;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Size figures of the small-object engine through the cache (not a benchmark: one thread, no timing):
 * 100 B values with 24 B keys, into 16 MiB of small-object flash (3,600 sets of 4 KiB, a log of 400 pages),
 * then one read of every key. Printed, with the README's figures asserted within a few percent (every hit
 * the newest value).
 */
class SmallEngineFiguresTest {
  @TempDir
  Path dir;

  @Test
  void dramPerObjectWriteAmplificationAndHitsThroughTheCache() {
    CacheConfig c = TestCaches.small(dir, IndexType.HEAP).flashBytes(32 * CacheConfig.MIB).segmentBytes(0)
        .smallObjectShare(0.5).build();
    int n = 100_000; // about 0.9 of what 3,600 sets of ~31 objects hold
    try (Engine cache = TestCaches.open(c)) {
      for (int i = 0; i < n; i++) {
        cache.put(key(i), TestCaches.value(i, 1, 100));
      }
      cache.writeBackAndDropDram();
      int hits = 0;
      for (int i = 0; i < n; i++) {
        byte[] v = cache.get(key(i));
        if (v != null) {
          assertTrue(TestCaches.versionOf(i, v) == 1, "key " + i);
          hits++;
        }
        if (i % 10_000 == 0) {
          cache.dramTier().clear(); // keep reads on flash
        }
      }
      CacheStats s = cache.stats();
      SmallObjectStats so = s.smallObjects();
      System.out.printf("SmallEngineFigures: %d puts of 100 B (24 B keys) into %d B of small-object flash: "
              + "%d objects in sets, %.2f B DRAM per object in sets (sets + log index %d B), app WA %.2f "
              + "(small engine %.2f), %.2f objects per set rewrite, %d log objects dropped, hit ratio on one "
              + "read of every key %.3f (log hit share %.2f), Bloom false-positive reads %d of %d lookups%n",
          n, c.smallObjectBytes(), so.entries(), so.dramBytesPerEntry(), so.dramBytes(), s.appWriteAmplification(),
          so.writeAmplification(), so.objectsPerSetRewrite(), so.logObjectsDropped(), (double) hits / n,
          so.logHitShare(), so.bloomFalsePositiveReads(), so.lookups());
      // one putting thread, fixed keys: only the reclaimer's timing moves the figures (by 1-3%). The README
      // quotes 1.44 B per object, app WA 2.6 and a hit ratio of 0.96: each is asserted both ways (a
      // regression and a stale figure both fail), within 3%, the hit ratio within 0.01
      assertTrue(so.entries() > n * 85 / 100, "objects held: " + so);
      assertBetween("DRAM B per object (README: 1.44)", so.dramBytesPerEntry(), 1.44 * 0.97, 1.44 * 1.03);
      assertBetween("app write amplification (README: 2.6)", s.appWriteAmplification(), 2.6 * 0.97, 2.6 * 1.03);
      assertBetween("hit ratio (README: 0.96)", (double) hits / n, 0.95, 0.97);
    }
  }

  private static void assertBetween(String what, double measured, double low, double high) {
    assertTrue(measured >= low && measured <= high, what + ": " + measured + " outside [" + low + ", " + high + "]");
  }

  private static byte[] key(int i) {
    return String.format("key-%020d", i).getBytes(StandardCharsets.US_ASCII); // 24 B
  }
}
