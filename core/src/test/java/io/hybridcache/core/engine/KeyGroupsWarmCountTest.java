package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.KeyGroupsTest.A;
import static io.hybridcache.core.engine.KeyGroupsTest.B;
import static io.hybridcache.core.engine.KeyGroupsTest.key;
import static io.hybridcache.core.engine.KeyGroupsTest.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.api.KeyGroups;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reopen counts every live entry of a capped group on flash (issue 37 item 6), those of the segments being
 * written at the close or the crash (resumed, or found without a summary) included: the counts after the open
 * equal those before the close, so a group cannot pass its cap by what those segments hold.
 */
class KeyGroupsWarmCountTest {
  @TempDir Path dir;

  /** A capped on flash well above what it writes (no refusal, no reclaim for it), B not at all. */
  private static final KeyGroups GROUPS =
      KeyGroupsTest.caps(g -> Long.MAX_VALUE, g -> g == A ? 640 * 1024 : Long.MAX_VALUE);

  private CacheConfig config() {
    return TestCaches.small(dir, IndexType.HEAP).evictionKeyBytes(8).keyGroups(GROUPS).build();
  }

  /** Writes A near its cap and some B, every entry a distinct key (nothing superseded), all on flash. */
  private long[] writeAndClose() {
    try (Engine c = TestCaches.open(config())) {
      for (int i = 0; i < 150; i++) {
        c.put(key('B', i), value('B', i));
      }
      for (int i = 0; i < 500; i++) {
        c.put(key('A', i), value('A', i));
      }
      c.writeBackAndDropDram(); // all on flash: the close writes nothing more
      assertEquals(0, c.counters().groupCapRejected.sum(), "no entry refused");
      return new long[] {c.flashBytesOf(A), c.flashBytesOf(B)};
    }
  }

  private void assertCounted(long[] before) {
    try (Engine c = TestCaches.open(config())) {
      assertTrue(before[0] > 400 * 1000, "A on flash before: " + before[0]);
      assertEquals(before[0], c.flashBytesOf(A), "A's flash bytes after the reopen");
      assertEquals(before[1], c.flashBytesOf(B), "B's flash bytes after the reopen");
    }
  }

  @Test
  void aWarmOpenCountsTheEntriesOfTheSegmentsBeingWrittenAtTheClose() {
    assertCounted(writeAndClose());
  }

  @Test
  void anOpenAfterACrashCountsTheEntriesOfTheSegmentsBeingWritten() throws Exception {
    long[] before = writeAndClose();
    Files.delete(dir.resolve(FlashOpener.CLEAN_MARKER)); // the next open recovers, as after a crash
    assertCounted(before);
  }
}
