package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.LifetimeClass;
import io.hybridcache.core.api.VictimPolicy;
import io.hybridcache.core.device.MemoryDevice;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Reclaim: victim choice, reinsert vs evict, and the forced race where an update beats reinsertion. */
class ReclaimerTest {
  private static final int SEGMENT = 64 * 1024;

  private final MemoryDevice device = new MemoryDevice(8, SEGMENT);
  private final SegmentTable table = new SegmentTable(8);
  private final Counters counters = new Counters();
  private final AtomicLong seq = new AtomicLong();
  private final SegmentWriter writer = new SegmentWriter(device, table, counters, null, 16 * 1024, seq::get);

  ReclaimerTest() {
    table.rebuildFreeList();
    writer.slotSource(table::takeFreeSlot);
  }

  private static byte[] key(int i) {
    return ("key-" + i).getBytes(StandardCharsets.UTF_8);
  }

  /** Fills the first segment with keys 0..n-1 (indexed) and moves on so it is sealed; returns n. */
  private int fillFirstSegment(Index index) throws Exception {
    return fillSegment(index, 0);
  }

  /**
   * Appends keys from {@code base} until one lands in a new segment, indexing those of the segment the
   * first landed in (which is then sealed); returns how many were indexed.
   */
  private int fillSegment(Index index, int base) throws Exception {
    int i = base;
    long first = -1;
    while (true) {
      long p = writer.append(LifetimeClass.FRESH, KeyHash.of(key(i)), key(i), new byte[900], 0, seq.incrementAndGet());
      if (first < 0) {
        first = IndexEntry.segmentTag(p);
      }
      if (IndexEntry.segmentTag(p) != first) {
        return i - base; // key i went to the next segment and is not indexed
      }
      index.put(KeyHash.of(key(i)), p);
      i++;
    }
  }

  private Reclaimer reclaimer(Index index, double reinsertAllBelow) {
    return reclaimer(index, reinsertAllBelow, Double.POSITIVE_INFINITY);
  }

  private Reclaimer reclaimer(Index index, double reinsertAllBelow, double reinsertionBudget) {
    return new Reclaimer(device, table, index, writer, counters, VictimPolicy.greedy(), reinsertAllBelow,
        reinsertionBudget, 8L * SEGMENT, false, seq::get, System::currentTimeMillis);
  }

  @Test
  void accessedEntriesAreReinsertedOthersEvicted() throws Exception {
    Index index = new HeapIndex(1000);
    int n = fillFirstSegment(index);
    for (int i = 0; i < n; i += 2) {
      long h = KeyHash.of(key(i));
      index.replace(h, index.get(h), IndexEntry.withAccessed(index.get(h)));
    }
    Reclaimer r = reclaimer(index, 0.0);
    Segment victim = r.chooseVictim();
    assertEquals(1, victim.id());
    r.reclaim(victim);
    assertNull(table.get(1), "victim released");
    FlashReader reader = new FlashReader(device, table, counters, new ReadBuffers(4, 16 * 1024));
    for (int i = 0; i < n; i++) {
      long p = index.get(KeyHash.of(key(i)));
      if (i % 2 == 0) {
        assertEquals(LifetimeClass.SURVIVOR, table.byTag(IndexEntry.segmentTag(p)).lifetimeClass());
        assertEquals(new String(key(i), StandardCharsets.UTF_8),
            new String(reader.read(p).key(), StandardCharsets.UTF_8));
      } else {
        assertEquals(IndexEntry.NONE, p, "unaccessed entry evicted");
      }
    }
    assertEquals((n + 1) / 2, counters.reinserted.sum());
    assertEquals(n / 2, counters.reclaimEvicted.sum());
  }

  /** Marks keys base..base+n-1 read since written; returns the bytes one entry is accounted as. */
  private static int markAccessed(Index index, int base, int n) {
    int entryBytes = 0;
    for (int i = base; i < base + n; i++) {
      long h = KeyHash.of(key(i));
      index.replace(h, index.get(h), IndexEntry.withAccessed(index.get(h)));
      entryBytes = IndexEntry.sizeBytes(index.get(h));
    }
    return entryBytes;
  }

  @Test
  void theReinsertionBudgetBoundsWhatReadEntriesRewrite() throws Exception {
    Index index = new HeapIndex(1000);
    int n = fillSegment(index, 0);
    int m = fillSegment(index, 10_000); // segment 2: keys 10,000.. (and the first segment's overflow key)
    int entryBytes = markAccessed(index, 0, n);
    markAccessed(index, 10_000, m);
    counters.bytesAdmitted.add(10L * entryBytes * 10); // at a budget of 0.1: room for 10 entries
    Reclaimer r = reclaimer(index, 0.0, 0.1);
    r.reclaim(table.get(1));
    long reinserted = counters.reinserted.sum();
    assertTrue(n > 20, "the victim holds more read entries than the budget pays for: " + n);
    assertTrue(reinserted >= 10 && reinserted <= 11, "the budget's 10 entries (the last may overdraw it): " + reinserted);
    assertEquals(n - reinserted, counters.reclaimEvicted.sum(), "the read entries past the budget are evicted");

    r.reclaim(table.get(2)); // nothing admitted since: all its read entries are evicted
    assertEquals(reinserted, counters.reinserted.sum(), "a spent budget pays for no more");
    assertEquals(n - reinserted + m, counters.reclaimEvicted.sum());
  }

  @Test
  void copyingBelowTheLiveRatioSpendsTheBudgetToo() throws Exception {
    Index index = new HeapIndex(1000);
    int n = fillSegment(index, 0);
    counters.bytesAdmitted.add(1L << 30);
    reclaimer(index, 1.0, 0.0).reclaim(table.get(1)); // live bytes below the whole budget: copy all, if paid
    assertEquals(0, counters.reinserted.sum(), "a zero budget moves nothing");
    assertEquals(n, counters.reclaimEvicted.sum());
    int m = fillSegment(index, 10_000); // into segment 2, after the first one's overflow key
    reclaimer(index, 1.0, Double.POSITIVE_INFINITY).reclaim(table.get(2));
    assertTrue(counters.reinserted.sum() >= (long) (Reclaimer.REINSERT_CAP * m) - 1,
        "without a budget, moved up to the per-victim cap: " + counters.reinserted.sum() + " of " + m);
  }

  @Test
  void greedyPicksTheSegmentWithMostGarbage() throws Exception {
    Index index = new HeapIndex(1000);
    fillFirstSegment(index);
    for (int i = 0; i < 200; i++) { // fill segment 2 and seal it too
      writer.append(LifetimeClass.FRESH, KeyHash.of(key(10_000 + i)), key(10_000 + i), new byte[900], 0, seq.incrementAndGet());
    }
    Segment one = table.get(1);
    Segment two = table.get(2);
    one.addGarbage(one.writtenBytes() / 4);
    two.addGarbage(two.writtenBytes() / 2);
    assertSame(two, reclaimer(index, 0).chooseVictim());
    Reclaimer fifo = new Reclaimer(device, table, index, writer, counters, VictimPolicy.fifo(), 0,
        Double.POSITIVE_INFINITY, 8L * SEGMENT, false, seq::get, System::currentTimeMillis);
    assertSame(one, fifo.chooseVictim());
  }

  /** Forced interleaving: a caller's update lands between reclaim's read of the index and its CAS. */
  @Test
  void aConcurrentUpdateAlwaysWinsOverReinsertion() throws Exception {
    HeapIndex real = new HeapIndex(1000);
    int n = fillFirstSegment(real);
    long target = KeyHash.of(key(3));
    long newer = IndexEntry.pack(io.hybridcache.core.engine.SegmentAddress.of(99, 4096), 100);
    Index racing = new ForwardingIndex(real) {
      boolean raced;

      @Override
      public boolean replace(long hash, long expected, long update) {
        if (hash == target && !raced) {
          raced = true;
          real.put(hash, newer); // the caller's put wins the race
        }
        return super.replace(hash, expected, update);
      }
    };
    reclaimer(racing, 1.0).reclaim(table.get(1));
    assertEquals(newer, real.get(target), "the update must survive reclaim");
    assertEquals(n - 1, counters.reinserted.sum() + counters.reclaimEvicted.sum(), "every other entry moved or dropped");
    assertTrue(counters.reinserted.sum() >= (long) (Reclaimer.REINSERT_CAP * (n - 1)) - 1, "reinsertion up to the cap");
    long garbage = table.segments().stream().mapToLong(Segment::garbageBytes).sum();
    assertTrue(garbage > 0, "the losing reinserted copy is accounted as garbage");
  }

  @Test
  void theSummaryLetsReclaimEvictWithoutReadingTheSegment() throws Exception {
    Index index = new HeapIndex(1000);
    int n = fillFirstSegment(index);
    long readBefore = device.counters().bytesRead();
    reclaimer(index, 0.0).reclaim(table.get(1));
    long read = device.counters().bytesRead() - readBefore;
    assertTrue(read <= 8192, "read only the summary, not the segment: " + read);
    assertEquals(n, counters.reclaimEvicted.sum());
    for (int i = 0; i < n; i++) {
      assertEquals(IndexEntry.NONE, index.get(KeyHash.of(key(i))));
    }
  }

  @Test
  void aDamagedSummaryFallsBackToScanning() throws Exception {
    Index index = new HeapIndex(1000);
    int n = fillFirstSegment(index);
    writer.awaitFlushes();
    java.nio.ByteBuffer zeros = io.hybridcache.core.device.Device.allocateAligned(4096);
    device.write(table.get(1).slot(), SEGMENT - 4096, zeros); // wipe the footer
    long readBefore = device.counters().bytesRead();
    reclaimer(index, 0.0).reclaim(table.get(1));
    assertTrue(device.counters().bytesRead() - readBefore > SEGMENT / 2, "scanned the segment");
    assertEquals(n, counters.reclaimEvicted.sum());
  }

  /**
   * A reclaim's move is a transfer of a key group's flash bytes (the copy counted, the original taken off the
   * victim at once), not a second count until the victim is freed: during a reclaim that moves a group's entries
   * its count never rises above what it was (it would refuse that group's evictions for nothing).
   */
  @Test
  void aMoveDoesNotCountAGroupsEntryTwice() throws Exception {
    GroupBytes groups = new GroupBytes(KeyGroupsPruneTest.BY_FIRST_BYTE); // every key here: group 'k', no cap
    long k = 'k';
    writer.groups(groups);
    Index index = new HeapIndex(1000);
    int n = fillSegment(index, 0);
    long before = groups.flashBytes(k);
    assertTrue(before > 0, "the group's bytes counted at their appends");
    Reclaimer r = reclaimer(index, 1.0); // moves the live entries, up to the per-victim cap
    r.groups(groups);
    java.util.List<Long> seen = new java.util.ArrayList<>();
    r.afterMove(() -> seen.add(groups.flashBytes(k)));
    r.reclaim(table.get(1));
    assertTrue(seen.size() > n / 2, "moved: " + seen.size() + " of " + n);
    for (int i = 0; i < seen.size(); i++) {
      assertTrue(seen.get(i) <= before, "after move " + i + " the group counts " + seen.get(i) + ", before " + before);
    }
  }
}
