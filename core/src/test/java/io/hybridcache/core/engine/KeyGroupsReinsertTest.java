package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.api.KeyGroups;
import io.hybridcache.core.api.VictimPolicy;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Flash caps of key groups: a group at its cap frees room from its own entries. */
class KeyGroupsReinsertTest {
  @TempDir Path dir;

  static final long A = 1;
  static final long B = 2;
  static final long A_FLASH = 256 * 1024;
  static final long B_FLASH = 64 * 1024;

  /** Both groups kept out of DRAM (every put straight to flash); A's flash cap large, B's small. */
  static final KeyGroups GROUPS = new KeyGroups() {
    @Override
    public long groupOf(byte[] key) {
      return key[0] == 'A' ? A : key[0] == 'B' ? B : NONE;
    }

    @Override
    public long dramCap(long group) {
      return group == A || group == B ? 1 : Long.MAX_VALUE;
    }

    @Override
    public long flashCap(long group) {
      return group == A ? A_FLASH : group == B ? B_FLASH : Long.MAX_VALUE;
    }
  };

  /**
   * A group written by one thread stops within one entry of its flash cap (the check is before the append); its
   * refused entries must reclaim its own bytes so that it keeps cycling its newest entries through flash, not
   * refuse every entry from then on.
   */
  @Test
  void aGroupAtItsFlashCapKeepsCyclingItsNewestEntries() {
    long cap = 192 * 1024; // three segments: its bytes are in sealed segments, not only the one being written
    KeyGroups groups = new KeyGroups() {
      @Override
      public long groupOf(byte[] key) {
        return key[0] == 'B' ? B : NONE;
      }

      @Override
      public long dramCap(long group) {
        return 1; // every put straight to flash
      }

      @Override
      public long flashCap(long group) {
        return cap;
      }
    };
    CacheConfig config = TestCaches.small(dir, IndexType.HEAP).victimPolicy(VictimPolicy.fifo())
        .reinsertAllBelowLiveRatio(0).evictionKeyBytes(8).keyGroups(groups).build();
    try (Engine c = TestCaches.open(config)) {
      int n = 1000; // ~1 MB of B through its cap, one thread
      for (int i = 0; i < n; i++) {
        c.put(KeyGroupsTest.key('B', i), KeyGroupsTest.value('B', i));
      }
      c.awaitFlashWrites(); // after the reclaims the refusals asked for
      assertTrue(c.counters().groupCapRejected.sum() > 0, "B reached its cap");
      c.put(KeyGroupsTest.key('B', n), KeyGroupsTest.value('B', n));
      c.awaitFlashWrites();
      assertArrayEquals(KeyGroupsTest.value('B', n), c.get(KeyGroupsTest.key('B', n)),
          "B's newest entry refused: B refuses everything once within an entry of its cap (B holds "
          + c.flashBytesOf(B) + " of " + cap + ", " + c.counters().reclaimedSegments.sum() + " segments reclaimed)");
      assertTrue(c.flashBytesOf(B) <= cap + 4096, "B within its cap: " + c.flashBytesOf(B));
    }
  }
}
