package io.hybridcache.core.engine;

import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The deadlines of the DRAM tier's entries that have a time to live, earliest first, so that an expired entry
 * leaves DRAM (and is told as {@code EXPIRED}) without a timer on every entry: entries without a TTL, the
 * common case (a Cassandra row cache, an eternal JCache cache), cost nothing here and nothing on a read.
 *
 * <p>Why not Caffeine's variable expiry: it reads the clock on every get and reschedules the entry in its
 * timer wheel on every access the read buffer drains, whether the entry has a TTL or not; on this project's
 * machines that was about 45 ns of a 125 ns DRAM hit, and the wheel's writes to the hot node kept a hot key's
 * gets from scaling with threads. Reads do not need it: the engine checks an entry's expiry on every read
 * ({@link DramEntry#expired}), so an expired entry is a miss at once, swept or not.
 *
 * <p><b>Format.</b> One skip-list node per DRAM entry with a TTL (about 60 B of heap with its key: not charged
 * to the DRAM budget), keyed by (expiry, sequence); none for an entry without one or with a TTL saturated at
 * the end of time.
 *
 * <p><b>Concurrency.</b> {@link #track} and {@link #untrack} are called inside the key's atomic change of
 * the DRAM map (so a key's deadline changes in the order of its versions) and are non-blocking (a skip list).
 * A deadline is identified by its entry's expiry and sequence (unique per version); an entry replaced by a
 * copy of the same version (a clean copy after a write-back) keeps its deadline. {@link #sweep} runs on one
 * thread at a time (others return at once) and hands each due deadline to an {@link Expirer}, which removes
 * the key's entry only if it is still that version and expired. A deadline whose entry left DRAM by a path
 * that did not untrack it (a clear racing a put) is dropped when it comes due: the sweep is what bounds it.
 */
final class DramExpiry {
  /** What the sweep hands each due deadline to: removes {@code key}'s entry if it is version {@code sequence}. */
  @FunctionalInterface
  interface Expirer {
    void expire(ByteKey key, long sequence, long nowMillis);
  }

  private record Due(long expiryMillis, long sequence) {}

  private static final Comparator<Due> ORDER =
      Comparator.comparingLong(Due::expiryMillis).thenComparingLong(Due::sequence);

  private final ConcurrentSkipListMap<Due, ByteKey> dues = new ConcurrentSkipListMap<>(ORDER);
  private final AtomicBoolean sweeping = new AtomicBoolean();

  /** Records {@code e}'s deadline if it has one; inside the key's atomic change. */
  void track(ByteKey key, DramEntry e) {
    if (timed(e)) {
      dues.put(new Due(e.expiryMillis(), e.sequence()), key);
    }
  }

  /** Forgets {@code e}'s deadline (it left DRAM, or a newer version replaced it); inside the key's change. */
  void untrack(DramEntry e) {
    if (timed(e)) {
      dues.remove(new Due(e.expiryMillis(), e.sequence()));
    }
  }

  /** Whether {@code e} has a deadline that can come: not for no TTL (0), nor for one saturated at the end of time. */
  private static boolean timed(DramEntry e) {
    return e != null && e.expiryMillis() != 0 && e.expiryMillis() != Long.MAX_VALUE;
  }

  /** True if some tracked deadline has passed at {@code nowMillis}. */
  boolean anyDue(long nowMillis) {
    Map.Entry<Due, ByteKey> first = dues.firstEntry();
    return first != null && first.getKey().expiryMillis() <= nowMillis;
  }

  /** True if no entry with a deadline is tracked (a read of the head only: cheap on every write). */
  boolean isEmpty() {
    return dues.isEmpty();
  }

  /**
   * Hands at most {@code limit} deadlines due at {@code nowMillis} to {@code expirer}, earliest first, each
   * forgotten first; returns how many. Returns 0 at once if another thread is sweeping.
   */
  int sweep(long nowMillis, int limit, Expirer expirer) {
    if (!sweeping.compareAndSet(false, true)) {
      return 0;
    }
    int n = 0;
    try {
      Map.Entry<Due, ByteKey> first;
      while (n < limit && (first = dues.firstEntry()) != null && first.getKey().expiryMillis() <= nowMillis) {
        if (dues.remove(first.getKey(), first.getValue())) {
          try {
            expirer.expire(first.getValue(), first.getKey().sequence(), nowMillis);
          } catch (RuntimeException | Error e) {
            dues.put(first.getKey(), first.getValue()); // not lost: the next sweep tries it again
            throw e;
          }
          n++;
        }
      }
    } finally {
      sweeping.set(false);
    }
    return n;
  }

  /** Forgets every deadline (the DRAM tier is being emptied). */
  void clear() {
    dues.clear();
  }

  /** The deadlines tracked (a count that walks the list: tests). */
  int tracked() {
    return dues.size();
  }
}
