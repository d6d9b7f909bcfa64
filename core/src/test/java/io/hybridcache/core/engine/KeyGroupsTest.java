package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.api.KeyGroups;
import io.hybridcache.core.api.VictimPolicy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per key group caps (issue 37 item 6): a group flooded far past its DRAM and flash caps holds no more than
 * them (flash: plus one entry, the slack of a check before the append), pays with its own entries, and an
 * uncapped group written before loses nothing; the counts are exact (checked against the tiers' contents)
 * and rebuilt at a warm open.
 */
class KeyGroupsTest {
  @TempDir Path dir;

  static final long A = 1;
  static final long B = 2;
  static final long A_DRAM = 128 * 1024;
  static final long A_FLASH = 256 * 1024;

  /** Group by the key's first byte: 'A' capped, 'B' not, anything else none. */
  static final KeyGroups GROUPS = caps(g -> g == A ? A_DRAM : Long.MAX_VALUE, g -> g == A ? A_FLASH : Long.MAX_VALUE);

  /** Groups by the key's first byte ('A' 1, 'B' 2, 'H' 3, 'C' 4, anything else none) with these caps. */
  static KeyGroups caps(java.util.function.LongUnaryOperator dram, java.util.function.LongUnaryOperator flash) {
    return new KeyGroups() {
      @Override
      public long groupOf(byte[] key) {
        int i = "ABHC".indexOf(key[0]);
        return i < 0 ? NONE : i + 1;
      }

      @Override
      public long dramCap(long group) {
        return dram.applyAsLong(group);
      }

      @Override
      public long flashCap(long group) {
        return flash.applyAsLong(group);
      }
    };
  }

  private CacheConfig config(KeyGroups groups) {
    // 1 MiB DRAM, 1 MiB flash in 16 segments; reclaim evicts oldest-first and reinserts nothing
    return TestCaches.small(dir, IndexType.HEAP).victimPolicy(VictimPolicy.fifo()).reinsertAllBelowLiveRatio(0)
        .evictionKeyBytes(8).keyGroups(groups).build();
  }

  static byte[] key(char group, int i) {
    return (group + "-" + i).getBytes(StandardCharsets.UTF_8);
  }

  static byte[] value(char group, int i) {
    byte[] v = new byte[1000];
    Arrays.fill(v, (byte) (group + i));
    return v;
  }

  @Test
  void aFloodedGroupStaysWithinItsCapsAndAnotherLosesNothing() {
    try (Engine c = TestCaches.open(config(GROUPS))) {
      for (int i = 0; i < 300; i++) {
        c.put(key('B', i), value('B', i));
      }
      c.writeBackAndDropDram(); // B on flash only
      for (int i = 0; i < 6000; i++) { // 6 MB through a 1 MiB flash
        c.put(key('A', i), value('A', i));
        assertTrue(c.dramBytesOf(A) <= A_DRAM, "A's DRAM " + c.dramBytesOf(A));
      }
      c.awaitFlashWrites();
      assertTrue(c.flashBytesOf(A) <= A_FLASH + 4096, "A's flash " + c.flashBytesOf(A) + ", cap " + A_FLASH);
      assertTrue(c.flashBytesOf(A) > 0 && c.counters().groupCapRejected.sum() > 0, "A reached its cap");
      for (int i = 0; i < 300; i++) {
        assertArrayEquals(value('B', i), c.get(key('B', i)), "B's entry " + i);
      }
      assertExact(c);
      for (int i = 0; i < 6000; i++) {
        c.remove(key('A', i));
      }
      assertEquals(0, c.dramBytesOf(A), "every A entry removed: none counted in DRAM");
      assertExact(c);
    }
  }

  @Test
  void warmOpenRebuildsTheFlashCountsOfLiveEntries() {
    long before;
    try (Engine c = TestCaches.open(config(GROUPS))) {
      for (int i = 0; i < 300; i++) {
        c.put(key('B', i), value('B', i));
      }
      for (int i = 0; i < 600; i++) {
        c.put(key('A', i), value('A', i));
      }
      before = c.flashBytesOf(B);
    }
    try (Engine c = TestCaches.open(config(GROUPS))) {
      assertTrue(c.flashBytesOf(A) > 0 && c.flashBytesOf(A) <= A_FLASH + 4096, "A after a warm open: " + c.flashBytesOf(A));
      assertTrue(c.flashBytesOf(B) >= 250 * 1024, "B after a warm open: " + c.flashBytesOf(B) + ", before " + before);
      assertExact(c);
    }
  }

  @Test
  void withoutKeyGroupsNothingIsCounted() {
    try (Engine c = TestCaches.open(config(null))) {
      c.put(key('A', 1), value('A', 1));
      assertEquals(-1, c.dramBytesOf(A));
      assertEquals(-1, c.flashBytesOf(A));
      assertArrayEquals(value('A', 1), c.get(key('A', 1)));
    }
  }

  /** The counts equal what the tiers hold: DRAM by its entries' weights, flash by the segments' per-group bytes. */
  private static void assertExact(Engine c) {
    c.dramTier().cleanUp();
    long[] dram = new long[5];
    for (Map.Entry<ByteKey, DramEntry> e : c.dramTier().map().entrySet()) {
      long g = GROUPS.groupOf(e.getKey().bytes());
      if (g != KeyGroups.NONE) {
        dram[(int) g] += DramTier.weigh(e.getKey().bytes().length, e.getValue().value().length);
      }
    }
    assertEquals(dram[(int) A], c.dramBytesOf(A), "A's DRAM count");
    assertEquals(dram[(int) B], c.dramBytesOf(B), "B's DRAM count");
    for (long g : new long[] {A, B}) {
      long flash = 0;
      for (Segment s : c.flashTier().table().segments()) {
        flash += s.groupBytes(g);
      }
      assertEquals(flash, c.flashBytesOf(g), "group " + g + "'s flash count");
    }
  }
}
