package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.KeyGroupsTest.A;
import static io.hybridcache.core.engine.KeyGroupsTest.B;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.api.KeyGroups;
import io.hybridcache.core.api.VictimPolicy;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reclaim for a group over its flash cap must not evict another group's live entries that fit that other
 * group's cap once the victim is freed: the victim's own bytes of the other group leave with it.
 */
class KeyGroupsReinsertTest {
  @TempDir Path dir;

  static final long A_FLASH = 256 * 1024;
  static final long B_FLASH = 64 * 1024;

  /** Both groups kept out of DRAM (every put evicted to flash right after it); A's flash cap large, B's small. */
  static final KeyGroups GROUPS = KeyGroupsTest.caps(g -> g == A || g == B ? 1 : Long.MAX_VALUE,
      g -> g == A ? A_FLASH : g == B ? B_FLASH : Long.MAX_VALUE);

  @Test
  void aReclaimForOneGroupKeepsAnotherGroupsEntriesThatFitItsCap() {
    CacheConfig config = TestCaches.small(dir, IndexType.HEAP).victimPolicy(VictimPolicy.fifo())
        .reinsertAllBelowLiveRatio(0).cascadeWait(java.time.Duration.ofSeconds(10)).evictionKeyBytes(8).keyGroups(GROUPS).build();
    try (Engine c = TestCaches.open(config)) {
      int a = 0;
      int b = 0;
      while (c.flashBytesOf(A) < A_FLASH * 93 / 100) { // A and B share segments, 4 to 1
        c.put(KeyGroupsTest.key('A', a), KeyGroupsTest.value('A', a));
        a++;
        if (a % 4 == 0) {
          c.put(KeyGroupsTest.key('B', b), KeyGroupsTest.value('B', b));
          b++;
        }
      }
      c.awaitFlashWrites();
      long rejectedBefore = c.counters().groupCapRejected.sum();
      for (int i = 0; i < 400; i++) { // B floods past its cap: reclaims for B empty segments holding A's entries
        c.put(KeyGroupsTest.key('B', 100_000 + i), KeyGroupsTest.value('B', i));
      }
      c.awaitFlashWrites();
      assertTrue(c.counters().groupCapRejected.sum() > rejectedBefore, "B reached its cap");
      assertTrue(c.flashBytesOf(A) <= A_FLASH, "A within its cap: " + c.flashBytesOf(A));
      for (int i = 0; i < a; i++) {
        assertArrayEquals(KeyGroupsTest.value('A', i), c.get(KeyGroupsTest.key('A', i)),
            "A's entry " + i + " of " + a + " lost to B's cap (A holds " + c.flashBytesOf(A) + " of " + A_FLASH + ")");
      }
    }
  }

  /**
   * A group written by one thread stops within one entry of its flash cap (the check is before the append); its
   * refused entries must reclaim its own bytes so that it keeps cycling its newest entries through flash, not
   * refuse every entry from then on.
   */
  @Test
  void aGroupAtItsFlashCapKeepsCyclingItsNewestEntries() {
    long cap = 192 * 1024; // three segments: its bytes are in sealed segments, not only the one being written
    KeyGroups groups = KeyGroupsTest.caps(g -> 1, g -> cap); // every put evicted to flash right after it
    CacheConfig config = TestCaches.small(dir, IndexType.HEAP).victimPolicy(VictimPolicy.fifo())
        .reinsertAllBelowLiveRatio(0).cascadeWait(java.time.Duration.ofSeconds(10)).evictionKeyBytes(8).keyGroups(groups).build();
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
  /**
   * Reclaims for a capped group move the other groups' entries out of its victims whatever the reinsertion
   * budget; they must not spend that budget: an uncapped group's hot entries are still reinserted when reclaim
   * for room reaches them.
   */
  @Test
  void reclaimsForACappedGroupLeaveTheReinsertionBudgetToTheOthers() {
    long cap = 192 * 1024;
    // 'H' (3): read before the flood, reclaim for room reinserts them; 'C' (4): shares the capped group's
    // segments, reclaims for it move these
    KeyGroups groups = KeyGroupsTest.caps(g -> 1, g -> g == A ? cap : Long.MAX_VALUE); // all evicted at once
    CacheConfig config = TestCaches.small(dir, IndexType.HEAP).victimPolicy(VictimPolicy.fifo())
        .reinsertAllBelowLiveRatio(0).reinsertionBudget(CacheConfig.DEFAULT_REINSERTION_BUDGET)
        .cascadeWait(java.time.Duration.ofSeconds(10)).evictionKeyBytes(8).keyGroups(groups).build();
    try (Engine c = TestCaches.open(config)) {
      int h = 20; // within the budget 0.1 per byte admitted earns by the time reclaim reaches them
      for (int i = 0; i < h; i++) {
        c.put(KeyGroupsTest.key('H', i), KeyGroupsTest.value('H', i));
      }
      c.awaitFlashWrites();
      for (int i = 0; i < h; i++) {
        assertArrayEquals(KeyGroupsTest.value('H', i), c.get(KeyGroupsTest.key('H', i))); // a flash hit: accessed
      }
      long hotSegment = IndexEntry.segmentTag(c.flashTier().index().get(KeyHash.of(KeyGroupsTest.key('H', 0))));
      // A and C one to one until reclaim for room (oldest first) has taken the hot entries' segment, once
      for (int i = 0; c.flashTier().table().byTag(hotSegment) != null; i++) {
        assertTrue(i < 5000, "the hot entries' segment was never reclaimed");
        c.put(KeyGroupsTest.key('A', i), KeyGroupsTest.value('A', i));
        c.put(KeyGroupsTest.key('C', i), KeyGroupsTest.value('C', i));
        if (i % 64 == 63) {
          c.awaitFlashWrites();
        }
      }
      c.awaitFlashWrites();
      assertTrue(c.counters().groupCapRejected.sum() > 0, "A reached its cap");
      assertTrue(c.counters().groupReclaimMovedBytes.sum() > 0, "reclaims for A moved C's entries");
      for (int i = 0; i < h; i++) {
        assertArrayEquals(KeyGroupsTest.value('H', i), c.get(KeyGroupsTest.key('H', i)), "hot entry " + i
            + " evicted: reclaims for A spent the reinsertion budget (" + c.counters().reinserted.sum() + " reinserted, " + c.counters().groupReclaimMovedBytes.sum() + " bytes moved for A)");
      }
    }
  }
}
