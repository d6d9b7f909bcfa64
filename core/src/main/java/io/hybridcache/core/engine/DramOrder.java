package io.hybridcache.core.engine;

import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * The write order of one key group's DRAM entries, kept only for a group with a DRAM cap ({@link GroupBytes}): a
 * FIFO of (key, sequence) slots, one per version installed in DRAM (a put, a load, a promotion), oldest first. A
 * group over its cap evicts from the head ({@link DramGroups}), so it keeps its newest entries; a version that keeps
 * its sequence (a write-back's clean copy) keeps its place. Approximate: reads do not move an entry (a hot entry
 * written long ago is evicted, then promoted back by its next read), and a slot whose version left DRAM (replaced,
 * removed, evicted by the DRAM tier) stays until it reaches the head or a sweep drops it.
 *
 * <p>Thread-safe, lock-free. Concurrency: a slot is added after its key's atomic change returned (never inside
 * it: a sweep that looked up a version still being installed would judge its slot stale and drop it, and that
 * entry would never be a cap's eviction), and taken from the head by any thread; a slot is evicted only if DRAM
 * still holds that exact version, checked inside the key's atomic removal, so a newer version of the key is
 * never evicted through an older slot. The stale count is an estimate (an entry's leaving is told apart from its
 * install); when a leaving takes it past the live slots plus {@link #SWEEP_SLACK}, a sweep is due, run by the
 * next change of the DRAM tier (any group's: {@link DramGroups}) outside every key's change, one at a time. So the
 * queue stays within about twice the group's entries plus the slack, and a group that is no longer written (a
 * JCache namespace's earlier epoch) keeps at most the slack once its entries left DRAM. Memory: a slot and a queue node per entry of a capped group (about 50 bytes),
 * outside the DRAM budget's weights.
 */
final class DramOrder {
  /** Stale slots tolerated beyond the live ones before a sweep. */
  static final int SWEEP_SLACK = 64;

  /** One installed version: its key and sequence. */
  record Slot(ByteKey key, long sequence) { }

  private final ConcurrentLinkedQueue<Slot> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger queued = new AtomicInteger();
  private final AtomicInteger stale = new AtomicInteger();
  private final AtomicBoolean sweeping = new AtomicBoolean();
  /** A sweep is due: {@link #left} returned true and it has not started yet. */
  private final AtomicBoolean sweepDue = new AtomicBoolean();

  /**
   * A version of {@code key} entered DRAM: queued. Called after its key's change returned (the version is in the
   * map or already replaced), never inside it, so a sweep never meets a slot whose version is yet to be installed.
   */
  void added(ByteKey key, long sequence) {
    queue.add(new Slot(key, sequence));
    queued.incrementAndGet();
  }

  /**
   * A version left DRAM other than through {@link #oldest}: its slot is stale now. True if this made a sweep due
   * and none was due yet: the caller then has {@link #sweep} run outside any key's change.
   */
  boolean left() {
    int s = stale.incrementAndGet();
    return s > queued.get() - s + SWEEP_SLACK && sweepDue.compareAndSet(false, true);
  }

  /** Takes the oldest slot, or null if none. */
  Slot oldest() {
    Slot s = queue.poll();
    if (s != null) {
      queued.decrementAndGet();
    }
    return s;
  }

  /** A slot {@link #oldest} returned was stale (its version had left DRAM). */
  void staleTaken() {
    stale.decrementAndGet();
  }

  /** Slots queued now (tests). */
  int queued() {
    return queued.get();
  }

  /**
   * Drops the slots whose version left DRAM ({@code live} false: DRAM no longer holds that exact version), if a
   * sweep is due; outside any key's change (an O(queue) scan). One at a time: a sweep made due while one runs is
   * run by that one after it.
   */
  void sweep(Predicate<Slot> live) {
    while (sweepDue.get() && sweeping.compareAndSet(false, true)) {
      try {
        sweepDue.set(false);
        dropStale(live);
      } finally {
        sweeping.set(false);
      }
    }
  }

  private void dropStale(Predicate<Slot> live) {
    int dropped = 0;
    for (Iterator<Slot> it = queue.iterator(); it.hasNext(); ) {
      if (!live.test(it.next())) {
        it.remove();
        dropped++;
      }
    }
    int gone = dropped;
    queued.addAndGet(-gone);
    stale.updateAndGet(s -> Math.max(0, s - gone));
  }
}
