package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Long random sequences of get / put / remove / spill / reopen checked against a plain map: the cache
 * may miss, but it must never return a value the model does not hold for that key.
 */
class ReferenceModelTest {
  @TempDir Path dir;

  @Test
  void neverReturnsAValueTheModelDoesNotHold() {
    neverReturnsAValueTheModelDoesNotHold(IndexType.HEAP);
  }

  @Test
  @NeedsChronicle
  void neverReturnsAValueTheModelDoesNotHoldOnChronicle() {
    neverReturnsAValueTheModelDoesNotHold(IndexType.CHRONICLE);
  }

  private void neverReturnsAValueTheModelDoesNotHold(IndexType index) {
    long seed = System.nanoTime();
    Random rnd = new Random(seed);
    CacheConfig cfg = TestCaches.small(dir, index).build();
    Map<Integer, byte[]> model = new HashMap<>();
    long version = 0;
    long hits = 0;
    Engine cache = TestCaches.open(cfg);
    try {
      for (int op = 0; op < 40_000; op++) {
        int k = rnd.nextInt(2_000);
        int dice = rnd.nextInt(1000);
        if (dice < 450) {
          byte[] v = value(k, ++version, 50 + rnd.nextInt(900));
          cache.put(key(k), v);
          model.put(k, v);
        } else if (dice < 900) {
          byte[] got = cache.get(key(k));
          if (got != null) {
            hits++;
            byte[] expected = model.get(k);
            assertTrue(expected != null, "seed " + seed + " op " + op + ": key " + k + " was removed or never written");
            assertArrayEquals(expected, got, "seed " + seed + " op " + op + ": stale or foreign value for key " + k);
          }
        } else if (dice < 980) {
          cache.remove(key(k));
          model.remove(k);
        } else if (dice < 997) {
          cache.writeBackAndDropDram();
        } else {
          cache.close();
          cache = TestCaches.open(cfg);
        }
      }
    } finally {
      cache.close();
    }
    assertTrue(hits > 1000, "the cache must actually serve hits, got " + hits);
  }
}
