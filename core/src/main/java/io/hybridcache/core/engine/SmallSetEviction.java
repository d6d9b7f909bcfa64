package io.hybridcache.core.engine;

import io.hybridcache.core.engine.SmallSetPage.Entry;
import java.util.ArrayList;
import java.util.List;

/**
 * Merges a batch of new entries into one set's page and chooses what the page evicts: RRIP with the
 * prediction kept on flash and one hit bit per slot in DRAM (Kangaroo's RRIParoo, SOSP 2021, after
 * Jaleel et al., ISCA 2010).
 *
 * <p>Thread-safe: stateless; the caller holds the set's lock.
 *
 * <p><b>Policy.</b> Each entry carries a re-reference prediction value (RRPV) 0..{@value #MAX_RRPV} in the
 * page. A rewrite first drops expired entries and entries a newer version in the batch replaces (the
 * higher sequence wins, whichever side it is on); old entries whose DRAM hit bit is set are promoted to
 * RRPV 0; new entries come in at {@value #INSERT_RRPV} ("long re-reference", so an entry that is never
 * read leaves before one that was). While the entries do not fit, every RRPV is aged until one reaches
 * {@value #MAX_RRPV}, and of those the oldest (lowest sequence) is evicted. Kept entries stay in page
 * order, old ones first, so the positions the hit bits name are stable for the old ones.
 */
final class SmallSetEviction {
  static final int MAX_RRPV = 7;
  static final int INSERT_RRPV = MAX_RRPV - 1;

  private SmallSetEviction() {}

  /**
   * What a merge produced: the page's new entries, the entries evicted to make room (old or new), counts of
   * the entries that left it otherwise (expired, replaced by a newer version) and of batch entries older than
   * the page's version.
   */
  record Result(List<Entry> kept, List<Entry> victims, int expired, int replaced, int stale) {
    int evicted() {
      return victims.size();
    }
  }

  /**
   * @param old the page's entries in page order
   * @param hitBits bit i set = old entry i was read since the page was written
   * @param batch new entries of this set (no duplicate keys)
   */
  static Result merge(List<Entry> old, int hitBits, List<Entry> batch, long nowMillis, int capacityBytes) {
    List<Entry> kept = new ArrayList<>(old.size() + batch.size());
    List<Entry> incoming = new ArrayList<>(batch);
    int expired = 0;
    int replaced = 0;
    int stale = 0;
    for (int i = 0; i < old.size(); i++) {
      Entry e = old.get(i);
      int newer = indexOfKey(incoming, e);
      if (e.expired(nowMillis)) {
        expired++;
      } else if (newer >= 0 && incoming.get(newer).sequence() >= e.sequence()) {
        replaced++;
      } else {
        if (newer >= 0) { // the page holds a newer version than the batch: keep it
          incoming.remove(newer);
          stale++;
        }
        boolean hit = i < Integer.SIZE && (hitBits & (1 << i)) != 0;
        kept.add(hit ? e.withRrpv(0) : e);
      }
    }
    for (Entry e : incoming) {
      if (!e.expired(nowMillis)) {
        kept.add(e.withRrpv(INSERT_RRPV));
      }
    }
    List<Entry> victims = new ArrayList<>();
    int bytes = SmallSetPage.bytesOf(kept);
    while (bytes > capacityBytes || kept.size() > SmallSetPage.MAX_ENTRIES) {
      Entry victim = kept.remove(victim(kept));
      bytes -= victim.bytes();
      victims.add(victim);
    }
    return new Result(kept, victims, expired, replaced, stale);
  }

  /** Ages every entry until one has {@link #MAX_RRPV}; returns the oldest such entry's index. */
  private static int victim(List<Entry> entries) {
    int max = 0;
    for (Entry e : entries) {
      max = Math.max(max, e.rrpv());
    }
    int age = MAX_RRPV - max;
    int victim = -1;
    for (int i = 0; i < entries.size(); i++) {
      Entry e = entries.get(i).withRrpv(entries.get(i).rrpv() + age);
      entries.set(i, e);
      if (e.rrpv() == MAX_RRPV && (victim < 0 || e.sequence() < entries.get(victim).sequence())) {
        victim = i;
      }
    }
    return victim;
  }

  private static int indexOfKey(List<Entry> entries, Entry e) {
    for (int i = 0; i < entries.size(); i++) {
      if (SmallSetPage.sameKey(entries.get(i), e)) {
        return i;
      }
    }
    return -1;
  }
}
