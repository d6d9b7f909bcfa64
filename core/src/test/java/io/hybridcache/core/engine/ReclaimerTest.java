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
    int i = 0;
    long first = -1;
    while (true) {
      long p = writer.append(LifetimeClass.FRESH, KeyHash.of(key(i)), key(i), new byte[900], 0, seq.incrementAndGet());
      if (first < 0) {
        first = IndexEntry.segmentTag(p);
      }
      if (IndexEntry.segmentTag(p) != first) {
        return i; // key i went to the next segment and is not indexed
      }
      index.put(KeyHash.of(key(i)), p);
      i++;
    }
  }

  private Reclaimer reclaimer(Index index, double reinsertAllBelow) {
    return new Reclaimer(device, table, index, writer, counters, VictimPolicy.greedy(), reinsertAllBelow,
        8L * SEGMENT, false, seq::get, System::currentTimeMillis);
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
    FlashReader reader = new FlashReader(device, table, counters);
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
        8L * SEGMENT, false, seq::get, System::currentTimeMillis);
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
}
