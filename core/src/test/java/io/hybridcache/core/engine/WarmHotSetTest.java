package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hot set survives a clean close (issue 39: a warm restart of a Cassandra node found its row cache hit
 * ratio 20-30 points lower than before its drain). A flash hit is promoted into DRAM as a clean copy; reclaim
 * then drops the flash entry instead of reinserting it (DRAM holds it); a close that writes back dirty
 * entries only loses exactly the hottest entries, which the warm open then misses.
 */
class WarmHotSetTest {
  @TempDir Path dir;

  @Test
  void aPromotedEntryWhoseFlashCopyReclaimDroppedIsOnFlashAfterACleanClose() {
    CacheConfig config = TestCaches.small(dir, IndexType.HEAP).reinsertionBudget(0).build();
    byte[] hot = TestCaches.key(0);
    byte[] v1 = TestCaches.value(0, 1, 500);
    ByteKey hotKey = new ByteKey(hot);
    try (Engine cache = TestCaches.open(config)) {
      cache.put(hot, v1);
      cache.writeBackAndDropDram();
      assertArrayEquals(v1, cache.get(hot), "a flash hit, promoted");
      DramEntry promoted = cache.dramTier().map().get(hotKey);
      assertNotNull(promoted, "promoted into DRAM");
      assertFalse(promoted.dirty(), "a promoted copy is clean");
      int puts = 0;
      // other entries fill flash until reclaim takes the segment of the hot entry's flash copy, which it drops
      // (no reinsertion budget); the hot entry stays in DRAM, read between every two puts
      while (cache.flashTier().address(hotKey.hash64()) != IndexEntry.NONE && puts < 50_000) {
        puts++;
        cache.put(TestCaches.key(puts), TestCaches.value(puts, 1, 500));
        assertArrayEquals(v1, cache.get(hot));
        if (puts % 500 == 0) {
          cache.awaitFlashWrites();
        }
      }
      assertEquals(IndexEntry.NONE, cache.flashTier().address(hotKey.hash64()),
          "reclaim dropped the hot entry's flash copy within " + puts + " puts");
      DramEntry held = cache.dramTier().map().get(hotKey);
      assertTrue(held != null && !held.dirty(), "DRAM still holds the hot entry, clean: " + held);
    }
    try (Engine cache = TestCaches.open(config)) {
      assertArrayEquals(v1, cache.get(hot), "the hot entry after a clean close and a warm open");
      assertEquals(1, cache.stats().flashHits(), "served by flash: DRAM starts empty");
    }
  }
}
