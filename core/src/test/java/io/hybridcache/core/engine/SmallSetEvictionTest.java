package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.SmallTestKeys.entry;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.engine.SmallSetPage.Entry;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** RRIP eviction of a set that overflows: what leaves, what stays, who wins a merge. */
class SmallSetEvictionTest {
  private static final int VALUE = 100; // 128 B an entry at these sequences: 31 fit a page
  private static final int FIT = SmallSetPage.CAPACITY_BYTES / entry(0, 1, VALUE, 1).bytes();

  private static List<Entry> full() {
    List<Entry> out = new ArrayList<>();
    for (int i = 0; i < FIT; i++) {
      out.add(entry(i, 1, VALUE, i + 1).withRrpv(SmallSetEviction.INSERT_RRPV));
    }
    return out;
  }

  private static Set<Integer> keysOf(List<Entry> entries) {
    Set<Integer> out = new TreeSet<>();
    for (Entry e : entries) {
      out.add(Integer.parseInt(new String(e.key()).replaceAll("\\D", "")));
    }
    return out;
  }

  @Test
  void overflowEvictsTheOldestUnreadAndKeepsTheRead() {
    assertEquals(31, FIT);
    int hits = (1 << 0) | (1 << 1) | (1 << 5); // entries 0, 1 and 5 were read
    List<Entry> batch = List.of(entry(100, 1, VALUE, 1000), entry(101, 1, VALUE, 1001), entry(102, 1, VALUE, 1002));
    SmallSetEviction.Result r = SmallSetEviction.merge(full(), hits, batch, 0, SmallSetPage.CAPACITY_BYTES);
    assertEquals(3, r.evicted());
    Set<Integer> kept = keysOf(r.kept());
    assertTrue(kept.containsAll(Set.of(0, 1, 5, 100, 101, 102)), kept.toString());
    assertTrue(!kept.contains(2) && !kept.contains(3) && !kept.contains(4), "the oldest unread left: " + kept);
    for (Entry e : r.kept()) {
      assertTrue(e.rrpv() <= SmallSetEviction.MAX_RRPV);
    }
    assertTrue(SmallSetPage.bytesOf(r.kept()) <= SmallSetPage.CAPACITY_BYTES);
  }

  /** A read entry survives later rewrites while unread newcomers that arrived after it are evicted first. */
  @Test
  void aReadEntryOutlivesNewerUnreadOnes() {
    List<Entry> page = full();
    int seq = 1000;
    for (int round = 0; round < 5; round++) {
      List<Entry> batch = new ArrayList<>();
      for (int j = 0; j < 5; j++, seq++) {
        batch.add(entry(seq, 1, VALUE, seq));
      }
      int hitOfEntry0 = 1 << indexOfKey(page, 0);
      page = SmallSetEviction.merge(page, hitOfEntry0, batch, 0, SmallSetPage.CAPACITY_BYTES).kept();
      assertTrue(keysOf(page).contains(0), "round " + round + ": " + keysOf(page));
    }
    assertTrue(!keysOf(page).contains(1), "unread old entries left");
  }

  @Test
  void theHigherSequenceWinsAndExpiredEntriesLeave() {
    List<Entry> old = List.of(entry(1, 1, VALUE, 10), entry(2, 5, VALUE, 50), new Entry(
        SmallTestKeys.key(3), new byte[1], KeyHash.of(SmallTestKeys.key(3)), 5, 1_000, 6));
    List<Entry> batch = List.of(entry(1, 2, VALUE, 20), entry(2, 4, VALUE, 40));
    SmallSetEviction.Result r = SmallSetEviction.merge(old, 0, batch, 2_000, SmallSetPage.CAPACITY_BYTES);
    assertEquals(1, r.replaced());
    assertEquals(1, r.stale());
    assertEquals(1, r.expired());
    assertEquals(2, r.kept().size());
    for (Entry e : r.kept()) {
      assertEquals(e.key()[e.key().length - 1] == '1' ? 20 : 50, e.sequence());
    }
  }

  private static int indexOfKey(List<Entry> page, int key) {
    for (int i = 0; i < page.size(); i++) {
      if (java.util.Arrays.equals(page.get(i).key(), SmallTestKeys.key(key))) {
        return i;
      }
    }
    return -1;
  }
}
