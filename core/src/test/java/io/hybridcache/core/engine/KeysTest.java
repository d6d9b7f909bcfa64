package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** keys(), hottestKeys() and DRAM resizing: what the Cassandra provider's key iterators stand on. */
class KeysTest {
  @TempDir Path dir;

  /** The keys; with {@code once}, fails on a key returned twice. */
  private static Set<String> drain(Iterator<byte[]> it, boolean once) {
    Set<String> keys = new HashSet<>();
    while (it.hasNext()) {
      String k = new String(it.next(), StandardCharsets.UTF_8);
      assertTrue(keys.add(k) || !once, "returned twice: " + k);
    }
    return keys;
  }

  @Test
  void keysCoverBothTiersExactlyOnceAfterReclaimAndRemoves() {
    keysCoverBothTiersExactlyOnceAfterReclaimAndRemoves(IndexType.HEAP);
  }

  @Test
  @NeedsChronicle
  void keysCoverBothTiersExactlyOnceAfterReclaimAndRemovesOnChronicle() {
    keysCoverBothTiersExactlyOnceAfterReclaimAndRemoves(IndexType.CHRONICLE);
  }

  private void keysCoverBothTiersExactlyOnceAfterReclaimAndRemoves(IndexType index) {
    try (Engine c = TestCaches.open(TestCaches.small(dir, index).build())) {
      Set<String> expected = new HashSet<>();
      // ~3.4 MiB of entries in a 1 MiB flash budget: reclaim has evicted some, DRAM holds others
      for (int i = 0; i < 6000; i++) {
        c.put(key(i), value(i, 1, 500));
      }
      for (int i = 0; i < 6000; i += 7) {
        c.remove(key(i));
      }
      c.awaitFlashWrites();
      for (int i = 0; i < 6000; i++) {
        if (c.containsKey(key(i))) {
          expected.add(new String(key(i), StandardCharsets.UTF_8));
        }
      }
      assertTrue(c.stats().flashEntries() > 100, "some keys live only on flash");
      assertTrue(c.stats().reclaimedSegments() > 0, "reclaim ran");
      assertEquals(expected, drain(c.keys(), true), "nothing moves: each key once");
    }
  }

  @Test
  void keysHeldAtTheStartAreAllSeenWhileWritersRun() throws Exception {
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).build())) {
      for (int i = 0; i < 1500; i++) {
        c.put(key(i), value(i, 1, 300));
      }
      AtomicBoolean stop = new AtomicBoolean();
      Thread writer = new Thread(() -> {
        for (int i = 100_000; !stop.get() && i < 400_000; i++) {
          c.put(key(i), value(i, 1, 300)); // other keys: churn DRAM evictions, flushes and reclaim
          c.get(key(i % 1500)); // promotions of the stable keys
        }
      });
      writer.start();
      try {
        for (int scan = 0; scan < 5; scan++) {
          Set<String> seen = drain(c.keys(), false); // reclaim may move a key after the scan read it: seen twice
          for (int i = 0; i < 1500; i++) {
            // a stable key may be evicted by reclaim under the churn (never put back); if still held, it
            // was held through the whole scan and must have been seen
            if (c.containsKey(key(i))) {
              assertTrue(seen.contains(new String(key(i), StandardCharsets.UTF_8)), "scan " + scan + " missed key-" + i);
            }
          }
        }
      } finally {
        stop.set(true);
        writer.join();
      }
    }
  }

  /**
   * Forced interleaving: the DRAM pass is over and the flash pass has read only the first segment when
   * a key of a later segment is promoted to DRAM by a read and its flash copy is then dropped (as
   * reclaim does); the key was held throughout, so keys() must still return it.
   */
  @Test
  void aKeyPromotedToDramWhileTheFlashPassRunsIsReturned() {
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).build())) {
      for (int i = 0; i < 600; i++) {
        c.put(key(i), value(i, 1, 400));
      }
      c.writeBackAndDropDram(); // DRAM empty, 600 keys over several segments
      Iterator<byte[]> it = c.keys();
      assertTrue(it.hasNext()); // DRAM pass over; the flash scan has read the first segment's window
      Set<String> seen = new HashSet<>();
      seen.add(new String(it.next(), StandardCharsets.UTF_8));
      int late = 599; // written last: in the last segment, not read yet
      assertTrue(c.get(key(late)) != null, "promoted to DRAM by a flash hit");
      long hash = new io.hybridcache.core.engine.ByteKey(key(late)).hash64();
      assertTrue(c.flashTier().index().remove(hash) != io.hybridcache.core.engine.IndexEntry.NONE,
          "its flash copy dropped, as reclaim may");
      seen.addAll(drain(it, false));
      assertTrue(c.containsKey(key(late)), "still held (DRAM)");
      assertTrue(seen.contains("key-" + late), "a key held throughout the call is returned");
    }
  }

  /** hottestKeys(n) skips expired entries and still gives n keys when n live ones are in DRAM. */
  @Test
  void hottestKeysFillsTheirNumberPastExpiredOnes() throws InterruptedException {
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).dramBytes(4 * CacheConfig.MIB).build())) {
      long ttl = 3_000; // long enough for the fill and the reads below on a loaded machine, then waited out
      for (int i = 0; i < 3; i++) {
        c.put(key(i), value(i, 1, 100), java.time.Duration.ofMillis(ttl));
      }
      long expiresAfter = System.currentTimeMillis() + ttl; // not before the last of the three
      for (int i = 3; i < 12_000; i++) { // past half of the budget: the frequency estimate is kept
        c.put(key(i), value(i, 1, 100));
      }
      for (int round = 0; round < 12; round++) {
        for (int i = 0; i < 6; i++) {
          if (round < 6 || i < 3) {
            c.get(key(i)); // keys 0-2 (with a TTL) hotter than 3-5 (the sketch counts to 15)
          }
        }
      }
      Set<String> before = new HashSet<>();
      c.hottestKeys(3).forEach(k -> before.add(new String(k, StandardCharsets.UTF_8)));
      assertEquals(Set.of("key-0", "key-1", "key-2"), before, "the three hottest before their TTL");
      while (System.currentTimeMillis() <= expiresAfter) {
        Thread.sleep(1); // the TTL's own time passing, not a handshake
      }
      Set<String> hot = new HashSet<>();
      c.hottestKeys(3).forEach(k -> hot.add(new String(k, StandardCharsets.UTF_8)));
      assertEquals(Set.of("key-3", "key-4", "key-5"), hot, "the three hottest live keys");
    }
  }

  @Test
  void hottestKeysComeFromDramAndCapacityResizes() {
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).dramBytes(4 * CacheConfig.MIB).build())) {
      // past half of the DRAM budget: Caffeine keeps its frequency estimate from then on (hottestKeys' javadoc)
      for (int i = 0; i < 12_000; i++) {
        c.put(key(i), value(i, 1, 100));
      }
      for (int round = 0; round < 20; round++) {
        for (int i = 0; i < 5; i++) {
          c.get(key(i));
        }
      }
      List<byte[]> hot = c.hottestKeys(5);
      assertEquals(5, hot.size());
      Set<String> hotNames = new HashSet<>();
      hot.forEach(k -> hotNames.add(new String(k, StandardCharsets.UTF_8)));
      for (int i = 0; i < 5; i++) {
        assertTrue(hotNames.contains("key-" + i), "hot: " + hotNames);
      }
      assertTrue(c.hottestKeys(0).isEmpty());

      assertEquals(4 * CacheConfig.MIB, c.dramCapacity());
      for (int i = 0; i < 20_000; i++) {
        c.put(key(i), value(i, 2, 100));
      }
      c.setDramCapacity(CacheConfig.MIB);
      assertEquals(CacheConfig.MIB, c.dramCapacity());
      assertTrue(c.stats().dramWeightedBytes() <= CacheConfig.MIB, "shrunk");
      assertThrows(IllegalArgumentException.class, () -> c.setDramCapacity(1000));
      List<byte[]> all = new ArrayList<>();
      c.keys().forEachRemaining(all::add);
      assertFalse(all.isEmpty());
    }
  }
}
