package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Independent review of issue 37 (DramOrder, the stepped sweep): a cap's eviction ({@link DramOrder#oldest}, run by
 * any thread changing the group) may poll the very slot the sweeper has just taken from its iterator and judged
 * stale. The sweeper's {@code cursor.remove()} is then a no-op on ConcurrentLinkedQueue, yet it counts the slot as
 * dropped: {@code queued} (and {@code stale}) are decremented twice for one slot. The counts drift below the queue
 * (sweeps due ever more often; the "about twice the group's entries" bound of the class note is computed from it).
 */
class Review37DramOrderTest {
  private static ByteKey key(int i) {
    return new ByteKey(new byte[] {(byte) i, 1, 2, 3});
  }

  @Test
  void aSlotPolledByACapEvictionWhileTheSweeperHoldsItIsCountedOnce() {
    DramOrder order = new DramOrder();
    int n = DramOrder.SWEEP_SLACK + 8;
    for (int i = 0; i < n; i++) {
      order.added(key(i), i);
    }
    boolean due = false;
    for (int i = 0; i < n && !due; i++) {
      due = order.left(); // every version left DRAM: stale, a sweep becomes due
    }
    assertEquals(true, due, "a sweep is due");
    AtomicBoolean first = new AtomicBoolean(true);
    // the predicate runs between the sweeper's cursor.next() and cursor.remove(): the forced interleaving point
    order.sweep(slot -> {
      if (first.getAndSet(false)) {
        DramOrder.Slot polled = order.oldest(); // a concurrent cap eviction takes the head: this very slot
        assertEquals(slot, polled);
        order.staleTaken(); // its version had left DRAM (as DramGroups.evictOver does)
      }
      return false;
    });
    int actuallyQueued = 0;
    while (order.oldest() != null) {
      actuallyQueued++;
    }
    assertEquals(0, actuallyQueued);
    assertEquals(0, order.queued(), "queued after every slot was taken: drifted below the queue's real length");
  }
}
