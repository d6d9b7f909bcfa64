package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.IndexType;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full index is not a fault: evictions it has no room for are counted apart
 * ({@link CacheStats#indexFullRejected()}), the tier stays in service, and once the index has refused a
 * key the writer checks for room before it writes an entry, so refused entries cost no flash writes.
 */
class IndexFullTest {
  @TempDir Path dir;

  @Test
  @NeedsChronicle
  void aFullIndexIsCountedApartAndCostsNoWrites() {
    CacheConfig cfg = TestCaches.small(dir, IndexType.CHRONICLE).flashBytes(512L * TestCaches.SEGMENT)
        .expectedEntries(1000).build();
    int keys = 30_000;
    try (Engine c = TestCaches.open(cfg)) {
      for (int i = 0; i < keys; i++) {
        c.put(key(i), value(i, 1, 300));
      }
      c.writeBackAndDropDram();
      CacheStats s = c.stats();
      assertTrue(s.indexFullRejected() > 0, "the small index filled up: " + s);
      assertFalse(s.degraded(), "a full index is not a fault: " + s);
      assertEquals(0, s.degradedRejected(), s.toString());
      long written = s.flushBytesWritten() + s.reclaimBytesWritten();
      // Headers, summaries and page padding cost some; a refused entry written first would cost its
      // bytes: ~26k refused entries of ~350 B are ~9 MB.
      assertTrue(written < 2 * s.bytesAdmitted() + CacheConfig.MIB,
          "refused entries were not written first: written " + written + ", admitted " + s.bytesAdmitted());
      int hits = 0;
      for (int i = 0; i < keys; i++) {
        byte[] v = c.get(key(i));
        if (v != null) {
          assertArrayEquals(value(i, 1, 300), v);
          hits++;
        }
      }
      assertTrue(hits > 500, "what the index holds is served: " + hits);
    }
  }
}
