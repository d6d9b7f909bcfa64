package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.SmallTestKeys.PER_PAGE_100;
import static io.hybridcache.core.engine.SmallTestKeys.key;
import static io.hybridcache.core.engine.SmallTestKeys.keysInSet;
import static io.hybridcache.core.engine.SmallTestKeys.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.device.Device;
import io.hybridcache.core.device.FaultInjectingDevice;
import io.hybridcache.core.device.MemoryDevice;
import io.hybridcache.core.engine.SmallSetPage.Entry;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The set region over a device: lookups, replacement, removal, RRIP overflow, damage and restarts. */
class SmallSetsTest {
  private static final int VALUE = 100;

  private final AtomicLong now = new AtomicLong(1_000_000);
  private final SmallSets.Options options = new SmallSets.Options(160, 4, 64, 16, now::get);

  private SmallSets region(Device device) {
    return new SmallSets(device, 0, device.slotCount(), options);
  }

  @Test
  void aPutIsServedAndANewerPutReplacesIt() {
    SmallSets sets = region(new MemoryDevice(2, 64 * 4096));
    for (int i = 0; i < 500; i++) {
      assertTrue(sets.put(key(i), value(i, 1, VALUE), i, 0));
    }
    for (int i = 0; i < 500; i += 2) {
      assertTrue(sets.put(key(i), value(i, 2, VALUE), 1000 + i, 0));
    }
    for (int i = 0; i < 500; i++) {
      byte[] v = sets.get(key(i));
      if (v != null) { // 128 sets of 27: a few may have overflowed
        assertArrayEquals(value(i, i % 2 == 0 ? 2 : 1, VALUE), v, "key " + i);
      }
    }
    SmallSetCounters.Snapshot s = sets.stats();
    assertTrue(s.hits() >= 490, s.toString());
    assertEquals(750, s.setRewrites());
    assertEquals(s.hits(), s.entries(), "every object still stored was found: " + s);
    assertNull(sets.get(key(10_000)));
  }

  @Test
  void aRemoveMakesTheKeyUnreachableAndLeavesItsNeighbours() {
    SmallSets sets = region(new MemoryDevice(1, 4096)); // one set: every key shares the page
    for (int i = 0; i < 10; i++) {
      sets.put(key(i), value(i, 1, VALUE), i, 0);
    }
    assertTrue(sets.remove(key(3)));
    assertFalse(sets.remove(key(3)));
    assertNull(sets.get(key(3)));
    for (int i = 0; i < 10; i++) {
      if (i != 3) {
        assertArrayEquals(value(i, 1, VALUE), sets.get(key(i)));
      }
    }
    assertEquals(9, sets.stats().entries());
  }

  @Test
  void anOlderSequenceNeverOverwritesANewerOne() {
    SmallSets sets = region(new MemoryDevice(1, 4096));
    sets.put(key(1), value(1, 2, VALUE), 20, 0);
    sets.put(key(1), value(1, 1, VALUE), 10, 0); // a late writer of an older version
    assertArrayEquals(value(1, 2, VALUE), sets.get(key(1)));
  }

  @Test
  void anExpiredEntryIsAMiss() {
    SmallSets sets = region(new MemoryDevice(1, 4096));
    sets.put(key(1), value(1, 1, VALUE), 1, now.get() + 10);
    assertArrayEquals(value(1, 1, VALUE), sets.get(key(1)));
    now.addAndGet(10);
    assertNull(sets.get(key(1)));
  }

  /**
   * Review of page format 2: entries of a few bytes fit far more than 255 to a page, but the set's object
   * count in DRAM is one byte. A merge keeps at most {@link SmallSetPage#MAX_ENTRIES}, so the count, the
   * entries metric and the objects a drop loses stay exact.
   */
  @Test
  void aPageOfTinyEntriesKeepsAtMost255AndItsCountsStayExact() {
    SmallSets sets = region(new MemoryDevice(1, 4096));
    for (int i = 0; i < 1_000; i++) {
      sets.put(new byte[] {(byte) (i >> 8), (byte) i}, new byte[0], i + 1, 0);
    }
    int held = 0;
    for (int i = 0; i < 1_000; i++) {
      held += sets.get(new byte[] {(byte) (i >> 8), (byte) i}) != null ? 1 : 0;
    }
    assertEquals(SmallSetPage.MAX_ENTRIES, held, "entries a page keeps");
    assertEquals(held, sets.stats().entries(), "the entries metric");
    sets.drop(0);
    assertEquals(held, sets.stats().objectsLost(), "objects a drop loses");
    assertEquals(0, sets.stats().entries());
  }

  /** A set of one page (31 objects of 100 B) that keeps taking objects keeps the one that is read (RRIP), evicts the rest. */
  @Test
  void anOverflowingSetEvictsByRripAndKeepsTheReadObject() {
    SmallSets sets = region(new MemoryDevice(1, 4096));
    for (int i = 0; i < PER_PAGE_100; i++) {
      sets.put(key(i), value(i, 1, VALUE), i, 0);
    }
    assertEquals(PER_PAGE_100, sets.stats().entries(), PER_PAGE_100 + " objects of 128-130 B fill a page");
    for (int i = PER_PAGE_100; i < 200; i++) {
      assertArrayEquals(value(5, 1, VALUE), sets.get(key(5)), "before insert " + i);
      sets.put(key(i), value(i, 1, VALUE), i, 0);
    }
    assertNull(sets.get(key(4)), "unread and old: evicted");
    assertEquals(PER_PAGE_100, sets.stats().entries());
    assertEquals(200 - PER_PAGE_100, sets.stats().evicted());
  }

  /** A page written at another set's place is not served there, even for a key its filter admits. */
  @Test
  void aPageOfAnotherSetIsAMiss() throws Exception {
    MemoryDevice device = new MemoryDevice(1, 2 * 4096);
    SmallSets sets = region(device);
    int k = keysInSet(sets, 0, 0, 1).get(0);
    sets.put(key(k), value(k, 1, VALUE), 1, 0);
    ByteBuffer forged = Device.allocateAligned(4096);
    ByteBuffer mine = Device.allocateAligned(4096);
    device.read(0, 0, mine);
    long epoch = mine.order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(16);
    SmallSetPage.encode(forged, 1, epoch, 1, List.of(Entry.of(key(k), value(k, 9, VALUE), 2, 0)));
    device.write(0, 0, forged);
    assertNull(sets.get(key(k)), "set 1's page at set 0's place");
    assertEquals(1, sets.stats().damagedPages());
  }

  @Test
  void aCorruptReadIsAMiss() {
    FaultInjectingDevice device = new FaultInjectingDevice(new MemoryDevice(1, 4096));
    SmallSets sets = region(device);
    sets.put(key(1), value(1, 1, VALUE), 1, 0);
    for (int n = 0; n < 50; n++) {
      device.corruptNextReads(1);
      assertNull(sets.get(key(1)));
    }
    assertEquals(50, sets.stats().damagedPages());
    assertArrayEquals(value(1, 1, VALUE), sets.get(key(1)), "the page itself is intact");
  }

  /** A page torn by a crash (its first half new, the rest old) is a miss for every key. */
  @Test
  void aTornPageIsAMiss() throws Exception {
    MemoryDevice device = new MemoryDevice(1, 4096);
    SmallSets sets = region(device);
    for (int i = 0; i < 20; i++) {
      sets.put(key(i), value(i, 1, VALUE), i, 0);
    }
    ByteBuffer before = Device.allocateAligned(4096);
    device.read(0, 0, before);
    for (int i = 0; i < 20; i++) {
      sets.put(key(i), value(i, 2, VALUE), 100 + i, 0);
    }
    ByteBuffer torn = Device.allocateAligned(4096);
    device.read(0, 0, torn);
    torn.put(2048, before, 2048, 2048); // the second half of the older page, as a crash leaves it
    device.write(0, 0, torn.clear());
    for (int i = 0; i < 20; i++) {
      assertNull(sets.get(key(i)), "key " + i);
    }
  }

  /**
   * A region is cold at every open: a page of the previous open is never merged back. Without the epoch,
   * the put of key b would carry the old a back into the filter and serve a version removed after restart.
   */
  @Test
  void aReopenedRegionNeverServesAVersionOfAnEarlierOpen() {
    MemoryDevice device = new MemoryDevice(1, 4096);
    SmallSets first = region(device);
    first.put(key(1), value(1, 1, VALUE), 1, 0);
    SmallSets second = region(device);
    assertNull(second.get(key(1)), "cold");
    assertFalse(second.remove(key(1)), "nothing reachable to remove");
    second.put(key(2), value(2, 1, VALUE), 2, 0);
    assertNull(second.get(key(1)), "the page of the first open is not merged back");
    assertArrayEquals(value(2, 1, VALUE), second.get(key(2)));
    assertEquals(1, second.stats().entries());
  }

  /** Page buffers come from one bounded pool: 200 reading threads hold no more than 16 of them. */
  @Test
  void manyReadingThreadsShareABoundedBufferPool() throws Exception {
    SmallSets sets = region(new MemoryDevice(1, 64 * 4096));
    for (int i = 0; i < 200; i++) {
      sets.put(key(i), value(i, 1, VALUE), i, 0);
    }
    List<Thread> readers = new java.util.ArrayList<>();
    for (int t = 0; t < 200; t++) {
      int k = t;
      readers.add(new Thread(() -> sets.get(key(k))));
    }
    readers.forEach(Thread::start);
    for (Thread t : readers) {
      t.join();
    }
    assertTrue(sets.stats().hits() > 150);
    long bound = ReadBuffers.boundBytes(options.readBuffers(), SmallSetPage.PAGE_BYTES);
    assertTrue(sets.buffers().retainedBytes() <= bound, sets.buffers().retainedBytes() + " > " + bound);
  }

  @Test
  void optionsAndBatchesAreChecked() {
    MemoryDevice device = new MemoryDevice(1, 4096);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new SmallSets(device, 0, 1, new SmallSets.Options(100, 4, 64, 16, now::get)));
    assertTrue(e.getMessage().contains("bloomBitsPerSet") && e.getMessage().contains("100"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new SmallSets(device, 0, 2, options));
    SmallSets two = region(new MemoryDevice(1, 2 * 4096));
    int other = keysInSet(two, 1, 0, 1).get(0);
    assertThrows(IllegalArgumentException.class,
        () -> two.insert(0, List.of(Entry.of(key(other), value(other, 1, 1), 1, 0))));
  }
}
