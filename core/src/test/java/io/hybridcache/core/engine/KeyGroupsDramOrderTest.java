package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.KeyGroupsTest.A;
import static io.hybridcache.core.engine.KeyGroupsTest.key;
import static io.hybridcache.core.engine.KeyGroupsTest.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.IndexType;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A capped group's DRAM write order ({@link DramOrder}): a group that is no longer written (a JCache namespace's
 * earlier epoch after clear()) keeps no slot once its entries left DRAM, though its flash bytes keep its counts;
 * and the version whose put sweeps the queue keeps its slot, so it stays a cap's eviction.
 */
class KeyGroupsDramOrderTest {
  @TempDir Path dir;

  @Test
  void aGroupWhoseEntriesAllLeftDramKeepsNoSlots() {
    io.hybridcache.core.api.KeyGroups groups =
        KeyGroupsTest.caps(g -> g == A ? KeyGroupsTest.A_DRAM : Long.MAX_VALUE, g -> Long.MAX_VALUE);
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).evictionKeyBytes(8).keyGroups(groups)
        .build())) {
      for (int i = 0; i < 100; i++) { // ~110 KB: under A's 128 KiB DRAM cap, no cap eviction
        c.put(key('A', i), value('A', i));
      }
      c.writeBackAndDropDram(); // on flash (A's flash count > 0 keeps its counts), none left in DRAM
      assertEquals(0, c.dramBytesOf(A));
      assertTrue(c.flashBytesOf(A) > 0);
      DramOrder order = c.flashTier().groups().dramOrder(A, false);
      int queued = order == null ? 0 : order.queued();
      assertTrue(queued <= DramOrder.SWEEP_SLACK, "slots kept for a group holding nothing in DRAM: " + queued);
    }
  }

  /**
   * A sweep never judges the slot of a version not yet in the map (one being installed inside its key's change):
   * the slot of the version whose put swept the queue is kept, so that entry is still a cap's eviction.
   */
  @Test
  void theVersionWhosePutSweepsTheQueueKeepsItsSlot() {
    io.hybridcache.core.api.KeyGroups groups =
        KeyGroupsTest.caps(g -> g == A ? KeyGroupsTest.A_DRAM : Long.MAX_VALUE, g -> Long.MAX_VALUE);
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).evictionKeyBytes(8).keyGroups(groups)
        .build())) {
      c.put(key('A', 0), value('A', 0));
      int before = 0;
      for (int v = 0; v < 1000; v++) { // versions of A-1 until one's put sweeps the queue (stale > live + 64)
        c.put(key('A', 1), value('A', v));
        int q = c.flashTier().groups().dramOrder(A, false).queued();
        if (q < before) {
          break; // this put swept
        }
        before = q;
      }
      int live = 0;
      for (ByteKey k : c.dramTier().map().keySet()) {
        live += k.bytes()[0] == 'A' ? 1 : 0;
      }
      DramOrder order = c.flashTier().groups().dramOrder(A, false);
      assertTrue(order.queued() >= live, "slots " + order.queued() + " for " + live + " live entries of A");
      for (int i = 2; i < 400; i++) { // ~3x A's DRAM cap of newer entries: are A's oldest
        c.put(key('A', i), value('A', i));
      }
      assertTrue(!c.dramTier().map().containsKey(new ByteKey(key('A', 1))),
          "A's oldest entry (A-1) is still in DRAM after 3x its cap of newer puts: A's DRAM " + c.dramBytesOf(A));
    }
  }

  /**
   * A sweep of a capped group's write order made due by another group's caller (here the deadline sweep after B's
   * puts takes A's expired entries out) is bounded on that caller: no change of B visits more than
   * {@link DramOrder#SWEEP_STEP} of A's slots, and A's stale slots still all go.
   */
  @Test
  void anotherGroupsCallerSweepsABoundedPartOfTheQueue() {
    GroupBytes groups = new GroupBytes(KeyGroupsTest.caps(g -> g == A ? 64L << 20 : Long.MAX_VALUE,
        g -> Long.MAX_VALUE));
    DramTier tier = new DramTier(64L << 20, (k, e, expired) -> { }, groups);
    int entries = 4000;
    long deadline = System.currentTimeMillis() + 500; // past the fill, on a loaded machine too
    for (int i = 0; i < entries; i++) {
      long sequence = i + 1;
      tier.compute(new ByteKey(key('A', i)), (k, old) -> new DramEntry(new byte[8], false, sequence, deadline));
    }
    assertTrue(System.currentTimeMillis() < deadline, "the fill outlasted A's TTL");
    DramOrder order = groups.dramOrder(A, false);
    assertEquals(entries, order.queued());
    while (System.currentTimeMillis() <= deadline) { // A's entries' TTL must pass: the clock, not a handshake
      java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
    }
    int largestStep = 0;
    int before = order.queued();
    for (int i = 0; i < 10_000 && order.queued() > DramOrder.SWEEP_SLACK; i++) {
      long sequence = entries + i + 1;
      tier.compute(new ByteKey(key('B', i)), (k, old) -> new DramEntry(new byte[8], false, sequence, 0));
      largestStep = Math.max(largestStep, before - order.queued());
      before = order.queued();
    }
    assertTrue(largestStep <= DramOrder.SWEEP_STEP, "one put of B swept " + largestStep + " of A's slots");
    assertTrue(order.queued() <= DramOrder.SWEEP_SLACK, "A's slots left once its entries expired: " + order.queued());
  }
}
