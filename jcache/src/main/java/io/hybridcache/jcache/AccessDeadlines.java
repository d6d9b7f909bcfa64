package io.hybridcache.jcache;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The access-expiry deadlines of one cache, kept in DRAM instead of in the stored entries, so that a hit of an
 * {@code expire-after-access} cache writes nothing. Thread-safe (a concurrent map; a hit records without a lock).
 *
 * <p>Design note. A mark extends one stored version of a key: it holds the expiry time stored in the entry
 * ({@link Stored#expireAt()}) it was computed from, and applies only while the key's stored entry has that time
 * ({@link #deadline}). Every write of the key (under its lock) drops the mark ({@link #forget}); a hit that read
 * the version before such a write may put its mark back after the write, but that mark names the old version's
 * stored time and is ignored for the new one. The one case it is not ignored, a new version stored with the same
 * time (an update whose policy keeps the expiry), is the case where the spec keeps the old deadline, which the
 * racing access had just extended: the mark is then right.
 *
 * <p>Bounds. The entry is written with the new deadline instead (under the key's lock, the old rewrite) when the
 * deadline moved more than {@link #REWRITE_AFTER_MILLIS} past the stored time, because the engine frees an
 * entry {@link ValueStore#ENGINE_TTL_SLACK} after its stored time whether or not a mark extends it: so a hot
 * key is rewritten at most once per 30 s, and never by a burst of hits. Past {@link #MAX_MARKS} keys, a hit of a
 * key without a mark purges the expired marks first, a scan of every mark (about 100,000 steps), at most once per
 * {@link #PURGE_INTERVAL_MILLIS} of hit time per cache (the first such hit once that time is up); if the map is
 * still full, or a purge ran less than that ago, its deadline is written into the entry. So such a hit costs O(1)
 * but for one scan a second, and a mark that expired since the last purge holds its room until the next. Marks
 * are not persisted: after a restart an entry expires at its stored time, at most {@link #REWRITE_AFTER_MILLIS}
 * earlier than its last access asked, never later.
 */
final class AccessDeadlines {
  /** How far an access deadline may move past the entry's stored expiry before it is written into the entry. */
  static final long REWRITE_AFTER_MILLIS = ValueStore.ENGINE_TTL_SLACK.toMillis() / 2;
  /** Keys with a mark, at most, per cache (about 100 B each). */
  static final int MAX_MARKS = 100_000;
  /** When full, the marks are scanned for expired ones at most once per this many milliseconds of hit time. */
  static final long PURGE_INTERVAL_MILLIS = 1_000;

  /** An access deadline {@code at} for the stored version whose expiry time is {@code stored}. */
  private record Mark(long stored, long at) {}

  private final ConcurrentHashMap<Object, Mark> marks = new ConcurrentHashMap<>();
  /** The hit time from which a full map may be scanned for expired marks again. */
  private final AtomicLong purgeDue = new AtomicLong(Long.MIN_VALUE);
  /** Scans of every mark for expired ones (tests). */
  private final LongAdder purges = new LongAdder();

  /** The expiry time of stored version {@code s} of the key {@code id}: its mark's, or the stored one. */
  long deadline(Object id, Stored<?> s) {
    if (marks.isEmpty()) {
      return s.expireAt();
    }
    Mark m = marks.get(id);
    return m != null && m.stored() == s.expireAt() ? m.at() : s.expireAt();
  }

  /**
   * Records access deadline {@code at} for stored version {@code s}; false if the caller must write it into the
   * entry instead (too far past the stored time, or no room).
   */
  boolean record(Object id, Stored<?> s, long at, long now) {
    long stored = s.expireAt();
    if (stored != Stored.ETERNAL && at > stored && at - stored > REWRITE_AFTER_MILLIS) {
      return false;
    }
    if (marks.size() >= MAX_MARKS && !marks.containsKey(id) && !purged(now)) {
      return false;
    }
    marks.put(id, new Mark(stored, at));
    return true;
  }

  /**
   * Drops the expired marks if no purge ran in the last {@link #PURGE_INTERVAL_MILLIS} (one caller at a time);
   * true if there is room now.
   */
  private boolean purged(long now) {
    long due = purgeDue.get();
    if (now < due || !purgeDue.compareAndSet(due, now + PURGE_INTERVAL_MILLIS)) {
      return false;
    }
    purges.increment();
    marks.values().removeIf(m -> m.at() <= now); // an expired mark extends nothing: its entry is expired anyway
    return marks.size() < MAX_MARKS;
  }

  /** Drops the mark of {@code id}: its entry was written or removed (called under the key's lock). */
  void forget(Object id) {
    if (!marks.isEmpty()) {
      marks.remove(id);
    }
  }

  /** Drops every mark (the cache was emptied). */
  void clear() {
    marks.clear();
  }

  /** Marks that keep an entry live at {@code now} past its stored expiry time ({@link Population}). */
  long extendedAt(long now) {
    if (marks.isEmpty()) {
      return 0;
    }
    long n = 0;
    for (Mark m : marks.values()) {
      if (m.stored() <= now && m.at() > now) {
        n++;
      }
    }
    return n;
  }

  /** True if no key has a mark (most caches: no access expiry). */
  boolean isEmpty() {
    return marks.isEmpty();
  }

  /** Scans of every mark for expired ones so far (tests). */
  long purges() {
    return purges.sum();
  }

  /** Keys with a mark (tests). */
  int size() {
    return marks.size();
  }
}
