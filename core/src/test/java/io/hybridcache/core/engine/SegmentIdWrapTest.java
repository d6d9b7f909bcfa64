package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static io.hybridcache.core.engine.TestCaches.versionOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.device.FileDevice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Segment ids never run out: with a 5-bit segment tag in the index (31 tags for 16 slots) the cache
 * allocates thousands of segment ids, far past the tag space, and keeps serving the last version of
 * every key or a miss, never a wrong or older value, also after a warm restart and after a recovery
 * from slot headers (whose ids then wrap too).
 */
class SegmentIdWrapTest {
  private static final int TAG_BITS = 5;
  private static final int KEYS = 3000;
  private static final int VALUE = 700;

  @TempDir Path dir;

  @Test
  void idsPastANarrowTagKeepEveryReadRight() throws Exception {
    idsPastANarrowTagKeepEveryReadRight(IndexType.HEAP);
  }

  @Test
  @NeedsChronicle
  void idsPastANarrowTagKeepEveryReadRightOnChronicle() throws Exception {
    idsPastANarrowTagKeepEveryReadRight(IndexType.CHRONICLE);
  }

  private void idsPastANarrowTagKeepEveryReadRight(IndexType index) throws Exception {
    CacheConfig cfg = TestCaches.small(dir, index).build();
    long[] last = new long[KEYS];
    Random random = new Random(42);
    long highestId;
    try (Engine c = Engine.open(cfg, FileDevice::open, TAG_BITS)) {
      for (int round = 1; round <= 40; round++) {
        for (int n = 0; n < KEYS / 4; n++) {
          int k = random.nextInt(KEYS);
          c.put(key(k), value(k, round, VALUE));
          last[k] = round;
        }
        check(c, last);
      }
      c.writeBackAndDropDram();
      highestId = c.flashTier().table().nextSegmentIdPeek();
      assertTrue(highestId > 3L << TAG_BITS, "ids went past the tag space several times: " + highestId + " " + c.stats());
      assertTrue(check(c, last) > KEYS / 10, "flash serves");
    }
    try (Engine c = Engine.open(cfg, FileDevice::open, TAG_BITS)) { // warm
      assertTrue(check(c, last) > KEYS / 10, "warm restart serves");
      assertTrue(c.flashTier().table().nextSegmentIdPeek() >= highestId, "ids continue");
    }
    Files.delete(dir.resolve(FlashOpener.CLEAN_MARKER)); // next open recovers from slot headers
    try (Engine c = Engine.open(cfg, FileDevice::open, TAG_BITS)) {
      check(c, last);
      for (int k = 0; k < KEYS; k++) { // and it keeps working
        c.put(key(k), value(k, 100, VALUE));
        last[k] = 100;
      }
      c.writeBackAndDropDram();
      check(c, last);
    }
  }

  /** Every read is the last version or a miss; returns the hits. */
  private static int check(Engine c, long[] last) {
    int hits = 0;
    for (int k = 0; k < KEYS; k++) {
      if (last[k] == 0) {
        continue;
      }
      byte[] v = c.get(key(k));
      if (v != null) {
        assertEquals(last[k], versionOf(k, v), "key " + k + ": never a wrong or older version");
        hits++;
      }
    }
    return hits;
  }
}
