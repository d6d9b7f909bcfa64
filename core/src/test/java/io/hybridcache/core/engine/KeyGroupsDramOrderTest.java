package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.KeyGroupsTest.A;
import static io.hybridcache.core.engine.KeyGroupsTest.A_DRAM;
import static io.hybridcache.core.engine.KeyGroupsTest.B;
import static io.hybridcache.core.engine.KeyGroupsTest.key;
import static io.hybridcache.core.engine.KeyGroupsTest.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.IndexType;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A group at its DRAM cap keeps its newest entries in DRAM (issue 37 item 6): its older entries leave through the
 * DRAM tier's eviction path (dirty ones offered to flash as any DRAM eviction), never the new entry of a put
 * written to flash inside the put; another group's DRAM entries are untouched.
 */
class KeyGroupsDramOrderTest {
  @TempDir Path dir;

  /** A capped in DRAM only (its older entries all fit on flash), B not at all. */
  private static final io.hybridcache.core.api.KeyGroups GROUPS =
      KeyGroupsTest.caps(g -> g == A ? A_DRAM : Long.MAX_VALUE, g -> Long.MAX_VALUE);

  /** One entry's DRAM weight, the slack of a check made after the install. */
  private static final long ENTRY = DramTier.weigh(key('A', 1000).length, 1000);

  @Test
  void aGroupAtItsDramCapKeepsItsNewestEntriesAndEvictsItsOldest() {
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).evictionKeyBytes(8).keyGroups(GROUPS)
        .build())) {
      for (int i = 0; i < 100; i++) { // B, uncapped: 100 KB of a 1 MiB DRAM tier
        c.put(key('B', i), value('B', i));
      }
      long bBytes = c.dramBytesOf(B);
      AtomicLong putting = new AtomicLong(); // the hash of the key the test thread is putting now, 0 between puts
      AtomicLong ownAppends = new AtomicLong();
      Thread test = Thread.currentThread();
      c.flashTier().afterAppend(hash -> {
        if (Thread.currentThread() == test && hash == putting.get()) {
          ownAppends.incrementAndGet(); // the put's own entry went to flash inside the put
        }
      });
      int n = (int) (3 * A_DRAM / ENTRY); // three times A's DRAM cap, all distinct keys
      for (int i = 0; i < n; i++) {
        byte[] k = key('A', i);
        putting.set(new ByteKey(k).hash64());
        c.put(k, value('A', i));
        putting.set(0);
        assertTrue(c.dramBytesOf(A) <= A_DRAM + ENTRY, "A's DRAM " + c.dramBytesOf(A) + " after put " + i);
      }
      assertEquals(0, ownAppends.get(), "puts that wrote their own entry to flash");
      long dramHits = c.counters().dramHits.sum();
      long flashHits = c.counters().flashHits.sum();
      int recent = n / 10;
      for (int i = n - recent; i < n; i++) {
        assertArrayEquals(value('A', i), c.get(key('A', i)), "A's entry " + i);
      }
      assertEquals(recent, c.counters().dramHits.sum() - dramHits, "A's newest " + recent + " entries from DRAM");
      assertEquals(flashHits, c.counters().flashHits.sum(), "none of A's newest from flash");
      assertEquals(bBytes, c.dramBytesOf(B), "B's DRAM bytes");
      for (int i = 0; i < 100; i++) {
        assertTrue(c.dramTier().map().containsKey(new ByteKey(key('B', i))), "B's entry " + i + " in DRAM");
      }
      c.awaitFlashWrites();
      for (int i = 0; i < n - recent; i++) { // A's older entries went to flash as DRAM evictions
        assertArrayEquals(value('A', i), c.get(key('A', i)), "A's older entry " + i);
      }
    }
  }

  /**
   * A put of a key whose older version was just taken from the head for a cap's eviction (the eviction not yet
   * made) is not evicted through that slot: the eviction finds a newer version and leaves it, so the newest
   * entry stays in DRAM and no older version is ever served.
   */
  @Test
  void aNewerPutOfAKeyTakenForEvictionStaysInDram() {
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).evictionKeyBytes(8).keyGroups(GROUPS)
        .build())) {
      int n = (int) (A_DRAM / ENTRY); // A at its cap: the next put evicts key 0 first
      for (int i = 0; i < n; i++) {
        c.put(key('A', i), value('A', i));
      }
      byte[] first = key('A', 0);
      byte[] newer = value('A', 7);
      java.util.concurrent.atomic.AtomicBoolean once = new java.util.concurrent.atomic.AtomicBoolean();
      c.dramTier().beforeCapEviction(k -> {
        if (java.util.Arrays.equals(k.bytes(), first) && once.compareAndSet(false, true)) {
          c.put(first, newer); // between the slot's taking and its eviction
        }
      });
      c.put(key('A', n), value('A', n));
      assertTrue(once.get(), "the first key was taken for eviction");
      assertTrue(c.dramTier().map().containsKey(new ByteKey(first)), "the newer put of the first key in DRAM");
      assertArrayEquals(newer, c.get(first));
      assertTrue(c.dramBytesOf(A) <= A_DRAM, "A's DRAM " + c.dramBytesOf(A));
      c.awaitFlashWrites();
      assertArrayEquals(newer, c.get(first), "after the writes");
    }
  }

  /** A key rewritten under the cap leaves stale slots behind: they are swept, the order stays near the entries. */
  @Test
  void rewritesUnderTheCapDoNotGrowTheOrder() {
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).evictionKeyBytes(8).keyGroups(GROUPS)
        .build())) {
      for (int round = 0; round < 1000; round++) {
        for (int i = 0; i < 10; i++) {
          c.put(key('A', i), value('A', round));
        }
      }
      int queued = c.flashTier().groups().dramOrder(A, false).queued();
      assertTrue(queued <= 2 * 10 + DramOrder.SWEEP_SLACK + 1, "slots queued for 10 entries: " + queued);
      assertEquals(10 * DramTier.weigh(key('A', 0).length, 1000), c.dramBytesOf(A), "A's 10 entries");
    }
  }
}
