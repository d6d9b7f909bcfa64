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
 * <p>Thread-safe, lock-free. Concurrency: slots are added inside the key's atomic change and taken from the head
 * by any thread; a slot is evicted only if DRAM still holds that exact version, checked inside the key's atomic
 * removal, so a newer version of the key is never evicted through an older slot. The stale count is an estimate
 * (an entry's leaving is told apart from its install); when it exceeds the live slots plus {@link #SWEEP_SLACK},
 * the adding thread sweeps the stale slots out (one sweep at a time), so the queue stays within about twice the
 * group's entries plus the slack. Memory: a slot and a queue node per entry of a capped group (about 50 bytes),
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

  /** A version of {@code key} entered DRAM; {@code live} says whether a slot's version is still in DRAM (sweeps). */
  void added(ByteKey key, long sequence, Predicate<Slot> live) {
    queue.add(new Slot(key, sequence));
    int q = queued.incrementAndGet();
    int s = stale.get();
    if (s > q - s + SWEEP_SLACK) {
      sweep(live);
    }
  }

  /** A version left DRAM other than through {@link #oldest}: its slot is stale now. */
  void left() {
    stale.incrementAndGet();
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

  private void sweep(Predicate<Slot> live) {
    if (!sweeping.compareAndSet(false, true)) {
      return;
    }
    try {
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
    } finally {
      sweeping.set(false);
    }
  }
}
