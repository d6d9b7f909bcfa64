package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.IndexType;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Page-aware placement: an entry of at most 4 KiB never straddles a 4 KiB page, so a flash hit on it
 * reads exactly one page, and the stats count the pages.
 */
class PagePlacementTest {
  @TempDir Path dir;

  @Test
  void entriesUpToAPageNeverStraddleOneAndAFlashHitReadsOnePage() {
    Random random = new Random(7);
    int keys = 1500;
    int[] sizes = new int[keys];
    // evictions wait as long as allowed: a disk stall past the default wait would refuse one, and this
    // test is about placement, not back-pressure (CascadeWaitTest)
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP)
        .flashBytes(128L * TestCaches.SEGMENT).cascadeWait(CacheConfig.MAX_CASCADE_WAIT).build())) {
      for (int i = 0; i < keys; i++) {
        sizes[i] = 200 + random.nextInt(3800); // entries from ~250 B to a whole page
        c.put(key(i), value(i, 1, sizes[i]));
      }
      c.writeBackAndDropDram();
      c.flashTier().index().forEach((h, p) -> {
        long inPage = IndexEntry.offset(p) % 4096;
        if (IndexEntry.sizeBytes(p) <= 4096) {
          assertTrue(inPage + IndexEntry.sizeBytes(p) <= 4096, "straddles a page: " + IndexEntry.toString(p));
        }
      });
      for (int i = 0; i < keys; i++) {
        assertArrayEquals(value(i, 1, sizes[i]), c.get(key(i)), "key " + i + ": " + c.stats());
      }
      CacheStats s = c.stats();
      assertEquals(keys, s.flashHits(), s.toString());
      assertEquals(s.flashHits() - s.bufferHits(), s.devicePagesRead(), "one page per flash hit: " + s);
      assertEquals(1.0, s.pagesPerFlashHit(), 1e-9);
    }
  }
}
