package io.hybridcache.jcache;

import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * An estimate of one cache's live entries, kept as the cache writes, so that a {@code removeAll()} that drops the
 * cache at once (a new namespace epoch: no scan, no device read) can still count its removals. Thread-safe.
 *
 * <p>Design note: entries are counted by their stored expiry time, rounded up to the second (one counter per
 * second that has entries, and one for eternal entries), so those past their time drop out of {@link #live} by
 * themselves, whether or not anyone read them. Exact while every write saw what it replaced and every eviction's
 * expiry time was known (a reference store's: {@link Store#evictionExpiries}); an estimate otherwise: a put that
 * did not read (an eternal cache without listeners) counts one more entry even if it replaced one; an entry the
 * engine evicted (told by key only, no expiry) is taken off the earliest second counted, as if the entry expiring
 * soonest had gone (exact when evictions go in expiry order: one time-to-live, written order), or off the eternal
 * count if no second is counted; entries found on a warm start are not counted; an entry whose access deadline
 * (kept in DRAM, {@link AccessDeadlines}) is past its stored time counts as expired unless the caller adds it
 * ({@link #live}'s {@code extended}).
 *
 * <p>Bounds: a second's counter goes when its count reaches 0, and every second already over goes at the next
 * entry added with an expiry time (a look at the first counter when nothing is over; {@link #live} too). So the
 * counters are at most the distinct expiry seconds of the counted entries not yet over at the last such write:
 * at most the cache's longest time-to-live in seconds plus one (a 10-minute one: 601 counters of about 100
 * bytes), and at most the counted entries. An eternal entry costs no counter and no clock read.
 */
final class Population {
  /** Below every key: {@code ceilingKey(FIRST)} is the first key, without an entry object or a boxing. */
  private static final Long FIRST = Long.MIN_VALUE;
  private static final Long ONE = 1L;
  private static final Long MINUS_ONE = -1L;

  private final LongAdder eternal = new LongAdder();
  /** Entries per expiry second (rounded up); never a 0 count (its counter is removed). */
  private final ConcurrentSkipListMap<Long, Long> bySecond = new ConcurrentSkipListMap<>();

  private static long second(long expireAt) {
    return expireAt / 1000 + (expireAt % 1000 == 0 ? 0 : 1);
  }

  /** Adds two counts; null (the counter goes) if they make 0. */
  private static Long sum(Long a, Long b) {
    long n = a + b;
    return n == 0 ? null : n;
  }

  /** An entry stored at {@code now} with expiry time {@code expireAt}. */
  void added(long expireAt, long now) {
    if (expireAt == Stored.ETERNAL) {
      eternal.increment();
      return;
    }
    bySecond.merge(second(expireAt), ONE, Population::sum);
    purge(now);
  }

  /** An eternal entry stored (no clock needed). */
  void addedEternal() {
    eternal.increment();
  }

  /** An entry stored with expiry time {@code expireAt} was removed, replaced or evicted. */
  void removed(long expireAt) {
    if (expireAt == Stored.ETERNAL) {
      eternal.decrement();
    } else {
      // absent: its second is over and purged, it is counted nowhere already
      bySecond.computeIfPresent(second(expireAt), (s, n) -> sum(n, MINUS_ONE));
    }
  }

  /** The engine evicted an entry whose expiry time it did not tell: taken as the one expiring soonest. */
  void evicted() {
    Long first = bySecond.ceilingKey(FIRST);
    if (first != null) {
      bySecond.merge(first, MINUS_ONE, Population::sum);
    } else if (eternal.sum() > 0) {
      eternal.decrement();
    } // else nothing is counted: the entry was not (a warm start's)
  }

  /** Drops the counters of the seconds over at {@code now}: every entry of theirs has expired. */
  private void purge(long now) {
    long over = now / 1000;
    Long first = bySecond.ceilingKey(FIRST);
    if (first != null && first <= over) {
      bySecond.headMap(over, true).clear();
    }
  }

  /** The entries live at {@code now}, plus {@code extended} (entries past their stored time a DRAM deadline keeps). */
  long live(long now, long extended) {
    purge(now);
    long n = eternal.sum() + extended;
    for (Long count : bySecond.values()) {
      n += count;
    }
    return Math.max(0, n);
  }

  /** Seconds with a counter (tests). */
  int seconds() {
    return bySecond.size();
  }

  /** The cache was emptied at once. */
  void clear() {
    eternal.reset();
    bySecond.clear();
  }
}
