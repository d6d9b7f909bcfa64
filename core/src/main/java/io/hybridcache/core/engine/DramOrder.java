package io.hybridcache.core.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 * never evicted through an older slot. A slot leaves the counts once: its taker claims it ({@link Slot#claim}), the
 * head's poll or the sweeper whose iterator returned it (the two can hold the same slot at once; the queue's
 * {@code Iterator.remove} does not tell whether it removed anything), and whichever loses lets it go uncounted. The stale count is an estimate (an entry's leaving is told apart from its
 * install); when a leaving takes it past the live slots plus {@link #SWEEP_SLACK}, a sweep is due, run by the
 * next changes of the DRAM tier (any group's: {@link DramGroups}) outside every key's change, one sweeper at a time,
 * each change visiting at most {@link #SWEEP_STEP} slots (a leaving of this group's entries made by another cache's
 * put, a DRAM eviction or a deadline sweep, costs that put a bounded step, not the whole queue). So the queue stays
 * within about twice the group's entries plus the slack and what the steps have not reached yet, and a group that
 * is no longer written (a JCache namespace's earlier epoch) keeps at most the slack once its entries left DRAM and
 * the steps went through. Memory: a slot and a queue node per entry of a capped group (about 56 bytes),
 * outside the DRAM budget's weights.
 */
final class DramOrder {
  /** Stale slots tolerated beyond the live ones before a sweep. */
  static final int SWEEP_SLACK = 64;
  /** Slots one change's sweep visits at most: a bounded cost on whichever caller runs it, the rest for the next. */
  static final int SWEEP_STEP = 256;

  /** One installed version: its key and sequence, and whether a taker has claimed it (identity, not a value). */
  static final class Slot {
    private static final VarHandle CLAIMED;

    static {
      try {
        CLAIMED = MethodHandles.lookup().findVarHandle(Slot.class, "claimed", boolean.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private final ByteKey key;
    private final long sequence;
    @SuppressWarnings("unused") // through CLAIMED
    private volatile boolean claimed;

    Slot(ByteKey key, long sequence) {
      this.key = key;
      this.sequence = sequence;
    }

    ByteKey key() {
      return key;
    }

    long sequence() {
      return sequence;
    }

    /** True for the one taker (the head's poll or the sweeper) that takes this slot out of the counts. */
    boolean claim() {
      return CLAIMED.compareAndSet(this, false, true);
    }

    @Override
    public String toString() {
      return "Slot[" + key + ", " + sequence + "]";
    }
  }

  private final ConcurrentLinkedQueue<Slot> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger queued = new AtomicInteger();
  private final AtomicInteger stale = new AtomicInteger();
  private final AtomicBoolean sweeping = new AtomicBoolean();
  /** A sweep is due: {@link #left} returned true and it has not started yet. */
  private final AtomicBoolean sweepDue = new AtomicBoolean();
  /** Where the sweep under way goes on, or null if none is. Guarded by {@code sweeping}. */
  private Iterator<Slot> cursor;

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

  /** Takes the oldest slot, or null if none; skips a slot the sweeper claimed (it counted it dropped). */
  Slot oldest() {
    for (Slot s = queue.poll(); s != null; s = queue.poll()) {
      if (s.claim()) {
        queued.decrementAndGet();
        return s;
      }
    }
    return null;
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
   * Goes on with the sweep that drops the slots whose version left DRAM ({@code live} false: DRAM no longer holds
   * that exact version), starting one if it is due: visits at most {@link #SWEEP_STEP} slots, outside any key's
   * change, so a caller (maybe another group's: {@link DramGroups}) pays a bounded part of an O(queue) scan. One
   * sweeper at a time; the sweep's place in the queue is kept between steps (the queue's weakly consistent
   * iterator, handed from step to step through {@code sweeping}).
   *
   * @return true if a sweep is under way or due: the caller has this order stepped again after a later change
   */
  boolean sweep(Predicate<Slot> live) {
    if (!sweeping.compareAndSet(false, true)) {
      return false; // the sweeper reads sweepDue again once it lets go: a sweep asked for meanwhile is not lost
    }
    boolean unfinished;
    try {
      unfinished = step(live);
    } finally {
      sweeping.set(false);
    }
    return unfinished || sweepDue.get();
  }

  /** One step of the sweep; true if it is not done. Called holding {@code sweeping}. */
  private boolean step(Predicate<Slot> live) {
    if (cursor == null) {
      if (!sweepDue.compareAndSet(true, false)) {
        return false;
      }
      cursor = queue.iterator();
    }
    int dropped = 0;
    for (int visited = 0; visited < SWEEP_STEP && cursor.hasNext(); visited++) {
      Slot s = cursor.next();
      if (!live.test(s) && s.claim()) { // not claimed: a cap's eviction polled it meanwhile and counted it
        cursor.remove();
        dropped++;
      }
    }
    int gone = dropped;
    queued.addAndGet(-gone);
    stale.updateAndGet(s -> Math.max(0, s - gone));
    if (cursor.hasNext()) {
      return true;
    }
    cursor = null;
    return false;
  }
}
