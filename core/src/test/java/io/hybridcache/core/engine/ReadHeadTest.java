package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.device.DeviceCounters;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code HybridCache.readHead}: a flash entry's head read with one page, whatever the value's size. */
class ReadHeadTest {
  @TempDir Path dir;

  @Test
  void aFlashEntrysHeadCostsOnePageNotTheWholeValue() {
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).build())) {
      byte[] big = value(1, 1, 15_000); // four pages on flash
      byte[] tiny = value(2, 1, 5);
      c.put(key(1), big);
      c.put(key(2), tiny);
      c.writeBackAndDropDram();
      DeviceCounters.Snapshot before = c.deviceCounters();
      long flashHits = c.stats().flashHits();
      assertArrayEquals(Arrays.copyOf(big, 8), c.readHead(key(1), 8));
      DeviceCounters.Snapshot during = c.deviceCounters().minus(before);
      assertEquals(1, during.reads(), "device reads: " + during);
      assertTrue(during.bytesRead() <= 4096, "bytes read for the head of a 15,000-byte value: " + during);
      assertArrayEquals(tiny, c.readHead(key(2), 8), "a value shorter than the head asked for: all of it");
      assertArrayEquals(new byte[0], c.readHead(key(1), 0), "present, no bytes asked for");
      assertNull(c.readHead(key(3), 8), "a key no tier holds");
      assertEquals(flashHits, c.stats().flashHits(), "a head read is not a get");
      assertArrayEquals(big, c.get(key(1)), "not promoted: the get reads flash");
      assertEquals(flashHits + 1, c.stats().flashHits());
      assertArrayEquals(Arrays.copyOf(big, 8), c.readHead(key(1), 8), "from DRAM after the get");
      assertTrue(c.remove(key(1)));
      assertNull(c.readHead(key(1), 8), "removed");
    }
  }
}
