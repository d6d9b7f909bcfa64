package io.hybridcache.jcache;

import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * An estimate of one cache's live entries, kept as the cache writes, so that a {@code removeAll()} that drops the
 * cache at once (a new namespace epoch: no scan, no device read) can still count its removals. Thread-safe.
 *
 * <p>Design note: entries are counted by their stored expiry time, rounded up to the second (one counter per
 * second that has entries, and one for eternal entries), so those past their time drop out of {@link #live} by
 * themselves, whether or not anyone read them. Exact while every write saw what it replaced; an estimate when
 * it did not: a put that did not read (an eternal cache without listeners) counts one more entry even if it
 * replaced one; an entry the engine evicted is taken off the total, not off its second; entries found on a
 * warm start are not counted; an entry whose access deadline (kept in DRAM, {@link AccessDeadlines}) is past its
 * stored time counts as expired unless the caller adds it ({@link #live}'s {@code extended}).
 */
final class Population {
  private final LongAdder eternal = new LongAdder();
  private final LongAdder evicted = new LongAdder();
  private final ConcurrentSkipListMap<Long, LongAdder> bySecond = new ConcurrentSkipListMap<>();

  private static long second(long expireAt) {
    return expireAt / 1000 + (expireAt % 1000 == 0 ? 0 : 1);
  }

  /** An entry stored with expiry time {@code expireAt}. */
  void added(long expireAt) {
    if (expireAt == Stored.ETERNAL) {
      eternal.increment();
    } else {
      bySecond.computeIfAbsent(second(expireAt), s -> new LongAdder()).increment();
    }
  }

  /** An entry stored with expiry time {@code expireAt} was removed or replaced. */
  void removed(long expireAt) {
    if (expireAt == Stored.ETERNAL) {
      eternal.decrement();
      return;
    }
    LongAdder a = bySecond.get(second(expireAt));
    if (a != null) { // absent: its second passed and was purged, it is counted nowhere already
      a.decrement();
    }
  }

  /** The engine evicted an entry (its expiry time unknown). */
  void evicted() {
    evicted.increment();
  }

  /** The entries live at {@code now}, plus {@code extended} (entries past their stored time a DRAM deadline keeps). */
  long live(long now, long extended) {
    bySecond.headMap(now / 1000, true).clear(); // those seconds are over: every entry of theirs has expired
    long n = eternal.sum() - evicted.sum() + extended;
    for (Map.Entry<Long, LongAdder> e : bySecond.entrySet()) {
      n += e.getValue().sum();
    }
    return Math.max(0, n);
  }

  /** The cache was emptied at once. */
  void clear() {
    eternal.reset();
    evicted.reset();
    bySecond.clear();
  }
}
