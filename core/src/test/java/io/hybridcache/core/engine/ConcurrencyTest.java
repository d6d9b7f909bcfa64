package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static io.hybridcache.core.engine.TestCaches.versionOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.IndexType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many threads mixing get / put / remove / spills (which drive reclaim) on shared and owned keys.
 * Every value read must have been written for that key; after the threads stop, an owned key reads
 * as its owner's last write or a miss (never an older version); index and segments are consistent.
 */
class ConcurrencyTest {
  private static final int THREADS = 8;
  private static final int SHARED = 300;
  private static final int OWNED = 200;
  @TempDir Path dir;

  @Test
  void mixedOperationsKeepVersionsOrdered() throws Exception {
    mixedOperationsKeepVersionsOrdered(IndexType.HEAP);
  }

  @Test
  @NeedsChronicle
  void mixedOperationsKeepVersionsOrderedOnChronicle() throws Exception {
    mixedOperationsKeepVersionsOrdered(IndexType.CHRONICLE);
  }

  private void mixedOperationsKeepVersionsOrdered(IndexType index) throws Exception {
    AtomicLong versions = new AtomicLong();
    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    long[][] lastOwned = new long[THREADS][OWNED];
    try (Engine cache = TestCaches.open(TestCaches.small(dir, index).build())) {
      CyclicBarrier start = new CyclicBarrier(THREADS);
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int me = t;
        threads.add(new Thread(() -> {
          ThreadLocalRandom rnd = ThreadLocalRandom.current();
          try {
            start.await();
            for (int op = 0; op < 6_000; op++) {
              boolean owned = rnd.nextBoolean();
              int slot = rnd.nextInt(owned ? OWNED : SHARED);
              int k = owned ? SHARED + me * OWNED + slot : slot;
              int dice = rnd.nextInt(100);
              if (dice < 45) {
                long v = versions.incrementAndGet();
                cache.put(key(k), value(k, v, 100 + rnd.nextInt(600)));
                if (owned) {
                  lastOwned[me][slot] = v;
                }
              } else if (dice < 92) {
                byte[] got = cache.get(key(k));
                if (got != null) {
                  long v = versionOf(k, got);
                  if (v < 0) {
                    failures.add("key " + k + " returned a value not written for it");
                  } else if (owned && v != lastOwned[me][slot]) {
                    failures.add("owned key " + k + " returned version " + v + ", last write " + lastOwned[me][slot]);
                  }
                }
              } else if (dice < 99) {
                cache.remove(key(k));
                if (owned) {
                  lastOwned[me][slot] = 0;
                }
              } else {
                cache.writeBack();
              }
            }
          } catch (Exception e) {
            failures.add(e.toString());
          }
        }));
      }
      threads.forEach(Thread::start);
      for (Thread th : threads) {
        th.join();
      }
      assertTrue(failures.isEmpty(), () -> failures.size() + " failures, first: " + failures.peek());

      cache.awaitFlashWrites();
      for (int t = 0; t < THREADS; t++) {
        for (int s = 0; s < OWNED; s++) {
          int k = SHARED + t * OWNED + s;
          byte[] got = cache.get(key(k));
          if (got != null) {
            assertEquals(lastOwned[t][s], versionOf(k, got), "owned key " + k);
          }
        }
      }
      CacheStats st = cache.stats();
      assertTrue(st.reclaimedSegments() > 0, "reclaim must have run concurrently: " + st);
      FlashTier flash = cache.flashTier();
      flash.index().forEach((hash, packed) -> {
        assertTrue(flash.table().byTag(IndexEntry.segmentTag(packed)) != null
                || flash.table().segments().stream().noneMatch(x -> flash.table().tagOf(x.id()) == IndexEntry.segmentTag(packed)),
            "index entry into a missing segment " + IndexEntry.toString(packed));
      });
      long live = flash.table().segments().stream().mapToLong(x -> x.liveBytes()).sum();
      long indexed = 0;
      long[] sum = {0};
      flash.index().forEach((h, p) -> {
        if (flash.table().byTag(IndexEntry.segmentTag(p)) != null) {
          sum[0] += IndexEntry.sizeBytes(p);
        }
      });
      indexed = sum[0];
      assertEquals(indexed, live, "segment live bytes must equal what the index points at");
    }
  }
}
