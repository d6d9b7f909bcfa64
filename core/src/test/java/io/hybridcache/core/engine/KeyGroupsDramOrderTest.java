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
}
