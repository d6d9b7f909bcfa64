package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.IndexType;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A trickle of entries, each flushed on its own (as the writer's idle flush does when one entry comes
 * every 200 ms), fills pages one after the other instead of padding a page per flush.
 */
class TrickleFlushTest {
  @TempDir Path dir;

  @Test
  void eachFlushKeepsFillingThePageInsteadOfPaddingOne() {
    int entries = 40;
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).build())) {
      long first = -1;
      long last = -1;
      for (int i = 0; i < entries; i++) {
        c.put(key(i), value(i, 1, 100));
        c.writeBack(); // the entry goes to flash and is flushed on its own
        long packed = c.flashTier().index().get(new ByteKey(key(i)).hash64());
        assertTrue(packed != IndexEntry.NONE);
        long at = IndexEntry.offset(packed);
        first = first < 0 ? at : first;
        assertTrue(at > last, "appended after the previous entry");
        last = at;
      }
      long pages = (last - first) / 4096 + 1;
      assertTrue(pages <= 2, entries + " entries of ~150 B flushed one by one span " + pages + " pages");
      c.writeBackAndDropDram();
      for (int i = 0; i < entries; i++) {
        assertArrayEquals(value(i, 1, 100), c.get(key(i)), "read back from the device");
      }
    }
  }
}
