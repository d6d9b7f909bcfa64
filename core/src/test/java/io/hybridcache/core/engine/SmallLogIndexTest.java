package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.SmallTestKeys.key;
import static io.hybridcache.core.engine.SmallTestKeys.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.device.FaultInjectingDevice;
import io.hybridcache.core.device.MemoryDevice;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The log's partitioned index: against a plain list model, its DRAM, and tag collisions through the log. */
class SmallLogIndexTest {
  private static final int PAGE = 4096;

  /** One model entry: set, tag, slot, hit. */
  private static final class Obj {
    final int set;
    final int tag;
    final int slot;
    boolean hit;

    Obj(int set, int tag, int slot) {
      this.set = set;
      this.tag = tag;
      this.slot = slot;
    }
  }

  /**
   * Random adds, removes, whole-set removes, slot-range removes and hit marks on 40 sets (3 partitions of 16, the
   * last one partial) with 2,000 slots, checked against a list after every operation; tag widths that
   * make entries straddle words, one of 32 bits; partitions of 1, 16 and 64 sets. Slots are reused in any
   * order, so slot distances take the escape code too.
   */
  @ParameterizedTest
  @CsvSource({"1, 16", "3, 16", "10, 16", "32, 16", "10, 1", "10, 64", "32, 64"})
  void matchesAListModelAfterEveryOperation(int tagBits, int setsPerPartition) {
    SmallLogIndex index = new SmallLogIndex(40, 2_000, tagBits, setsPerPartition);
    List<Obj> model = new ArrayList<>(); // oldest first
    TreeSet<Integer> free = new TreeSet<>();
    for (int s = 0; s < 2_000; s++) {
      free.add(s);
    }
    SplittableRandom r = new SplittableRandom(tagBits);
    for (int op = 0; op < 20_000; op++) {
      int set = r.nextInt(40);
      int kind = r.nextInt(20);
      if (kind < 11 && !free.isEmpty()) {
        int slot = free.pollFirst();
        int tag = (int) (r.nextLong() >>> (64 - tagBits));
        index.add(set, tag, slot);
        model.add(new Obj(set, tag, slot));
      } else if (kind < 15 && !model.isEmpty()) {
        Obj o = model.get(r.nextInt(model.size()));
        assertTrue(index.remove(o.set, o.slot));
        assertTrue(!index.remove(o.set, o.slot), "removed once");
        model.remove(o);
        free.add(o.slot);
      } else if (kind < 16) {
        index.removeAll(set);
        model.stream().filter(o -> o.set == set).forEach(o -> free.add(o.slot));
        model.removeIf(o -> o.set == set);
      } else if (kind < 17) {
        int from = r.nextInt(2_000);
        int[] expected = model.stream().filter(o -> o.slot >= from && o.slot < from + 32)
            .mapToInt(o -> o.set).distinct().sorted().toArray();
        int[] got = index.removeSlots(from, from + 32);
        Arrays.sort(got);
        assertArrayEquals(expected, got, "op " + op);
        model.stream().filter(o -> o.slot >= from && o.slot < from + 32).forEach(o -> free.add(o.slot));
        model.removeIf(o -> o.slot >= from && o.slot < from + 32);
      } else if (!model.isEmpty()) {
        Obj o = model.get(r.nextInt(model.size()));
        index.markHit(o.set, o.slot);
        o.hit = true;
      }
      assertEquals(model.size(), index.liveObjects(), "op " + op);
      int s = r.nextInt(40);
      int t = r.nextInt(2) == 0 ? -1 : tagOfSome(model, s, r);
      int[] expected = new int[0];
      for (int i = model.size() - 1; i >= 0; i--) { // newest first
        Obj o = model.get(i);
        if (o.set == s && (t < 0 || o.tag == t)) {
          expected = Arrays.copyOf(expected, expected.length + 1);
          expected[expected.length - 1] = o.slot;
          assertTrue(index.contains(s, o.slot));
          assertEquals(o.hit, index.hit(s, o.slot), "op " + op + " hit bit of slot " + o.slot);
        }
      }
      assertArrayEquals(expected, index.slots(s, t), "op " + op + ": set " + s + " tag " + t);
      assertEquals(model.stream().filter(o -> o.set == s).count(), index.count(s));
      List<String> all = new ArrayList<>(); // what a checkpoint saves: each partition oldest first
      for (int p = 0; p * setsPerPartition < 40; p++) {
        int first = p * setsPerPartition;
        model.stream().filter(o -> o.set >= first && o.set < first + setsPerPartition)
            .forEach(o -> all.add(o.set + "/" + o.tag + "/" + o.slot + "/" + o.hit));
      }
      List<String> visited = new ArrayList<>();
      index.forEach((vs, vt, slot, hit) -> visited.add(vs + "/" + vt + "/" + slot + "/" + hit));
      assertEquals(all, visited, "op " + op);
    }
  }

  private static int tagOfSome(List<Obj> model, int set, SplittableRandom r) {
    List<Obj> of = model.stream().filter(o -> o.set == set).toList();
    return of.isEmpty() ? 0 : of.get(r.nextInt(of.size())).tag;
  }

  /** Nothing for unused slots or empty sets; a few bytes per indexed object; arrays shrink when emptied. */
  @Test
  void costsAFewBytesPerLiveObjectAndNothingPerUnusedSlot() {
    SmallLogIndex index = new SmallLogIndex(4_096, 1 << 20, SmallLog.TAG_BITS);
    long empty = index.dramBytes();
    assertEquals(4_096L / SmallLogIndex.SETS_PER_PARTITION * (SmallLogIndex.PARTITION_OVERHEAD - 16), empty,
        "references and counts only");
    SplittableRandom r = new SplittableRandom(1);
    for (int i = 0; i < 100_000; i++) { // a log object of a random set in each slot, in log order
      index.add(r.nextInt(4_096), i & 1023, i);
    }
    double perObject = (double) (index.dramBytes() - empty) / 100_000;
    System.out.printf("log index: %.1f bits an entry (%d fixed), %.2f B per live object with slack and array headers%n",
        index.meanEntryBits(), index.fixedBits(), perObject);
    int setBits = Integer.numberOfTrailingZeros(SmallLogIndex.SETS_PER_PARTITION);
    assertEquals(setBits + 1 + SmallLog.TAG_BITS, index.fixedBits());
    // Rice code of a geometric distance of mean g (= partitions here): about log2(g) + 2.5 bits
    double distanceBits = Math.log(4_096.0 / SmallLogIndex.SETS_PER_PARTITION) / Math.log(2) + 3;
    assertTrue(index.meanEntryBits() < index.fixedBits() + distanceBits,
        "slot distances cost about log2(partitions) + 2.5 bits: " + index.meanEntryBits());
    assertTrue(perObject < 1.1 * index.meanEntryBits() / 8, "B per object " + perObject);
    for (int set = 0; set < 4_096; set++) {
      index.removeAll(set);
    }
    assertEquals(empty, index.dramBytes(), "emptied partitions hold no array");
  }

  @Test
  void refusesBadSizes() {
    assertThrows(IllegalArgumentException.class, () -> new SmallLogIndex(0, 10, 10));
    assertThrows(IllegalArgumentException.class, () -> new SmallLogIndex(10, 10, 33));
  }

  /**
   * Tags of 1 bit: half of a set's log objects match any key, so lookups, removes, shadow checks and
   * reclaims confirm nearly every match by its full key. Random puts, removes and reads of 120 keys over 16
   * sets and an 8-page log (threshold 12: moves, forced moves, readmissions and drops), against a model.
   */
  @Test
  void tagCollisionsNeverServeAnotherKeysValue() {
    FaultInjectingDevice device = new FaultInjectingDevice(new MemoryDevice(3, 8 * PAGE));
    SmallSets sets = new SmallSets(device, 0, 2, SmallSets.Options.DEFAULT);
    SmallLog log = new SmallLog(device, 2, 1, sets, 12, true, 1);
    long[] versions = new long[120];
    boolean[] removed = new boolean[120];
    SplittableRandom r = new SplittableRandom(7);
    for (int op = 0; op < 6_000; op++) {
      int k = r.nextInt(120);
      versions[k]++;
      removed[k] = r.nextInt(8) == 0;
      if (removed[k]) {
        log.remove(key(k));
      } else {
        log.put(key(k), value(k, (int) versions[k], 100), versions[k], 0);
      }
      for (int n = 0; n < 20; n++) {
        int j = r.nextInt(120);
        byte[] v = log.get(key(j));
        if (v != null) {
          assertTrue(!removed[j], "op " + op + ": removed key " + j + " served");
          assertArrayEquals(value(j, (int) versions[j], 100), v, "op " + op + ": key " + j);
        }
      }
    }
    assertTrue(log.setMoves.sum() > 0 && log.objectsReadmitted.sum() > 0 && log.objectsDropped.sum() > 0,
        "moves " + log.setMoves.sum() + ", readmitted " + log.objectsReadmitted.sum() + ", dropped "
            + log.objectsDropped.sum());
  }

  /** Readmission: an object read while in the log outlives its page's reclaim; an unread one is dropped. */
  @Test
  void anObjectReadWhileInTheLogIsRelogged() {
    FaultInjectingDevice device = new FaultInjectingDevice(new MemoryDevice(2, 64L * PAGE));
    SmallSets sets = new SmallSets(device, 0, 1, SmallSets.Options.DEFAULT);
    SmallLog log = new SmallLog(device, 1, 1, sets, 1_000, true, SmallLog.TAG_BITS); // threshold never met
    log.put(key(1), value(1, 1, 100), 1, 0);
    log.put(key(2), value(2, 1, 100), 2, 0);
    for (int i = 100; i < 140; i++) { // flushes the page of keys 1 and 2
      log.put(key(i), value(i, 1, 100), i, 0);
    }
    assertArrayEquals(value(1, 1, 100), log.get(key(1))); // read from flash: the hit bit is set
    for (int i = 1_000; i < 1_000 + 64 * SmallTestKeys.PER_PAGE_100; i++) { // a lap of the ring: the page of keys 1 and 2 reclaimed
      log.put(key(i), value(i, 1, 100), i, 0);
    }
    assertTrue(log.objectsReadmitted.sum() >= 1);
    assertArrayEquals(value(1, 1, 100), log.get(key(1)), "re-logged");
    assertNull(log.get(key(2)), "dropped: never read");
    assertNull(sets.get(key(1)), "not through its set");
  }

  /**
   * Forced interleaving: a lookup stops after reading the log page that holds key 1 (version 2; version 1
   * in its set); meanwhile a lap of the ring readmits key 1 to a new slot (it was read before) and a
   * remove of key 1 completes. The lookup must look again and miss: without the unlink counter it serves
   * version 2 after the remove returned.
   */
  @Test
  @Timeout(60)
  void aLookupOverlappingAReadmissionAndARemoveMisses() throws Exception {
    FaultInjectingDevice device = new FaultInjectingDevice(new MemoryDevice(2, 64L * PAGE));
    SmallSets sets = new SmallSets(device, 0, 1, SmallSets.Options.DEFAULT);
    SmallLog log = new SmallLog(device, 1, 1, sets, 1_000, true, SmallLog.TAG_BITS);
    sets.put(key(1), value(1, 1, 100), 1, 0);
    log.put(key(1), value(1, 2, 100), 2, 0);
    for (int i = 100; i < 140; i++) { // flushes the page of key 1
      log.put(key(i), value(i, 1, 100), i, 0);
    }
    assertArrayEquals(value(1, 2, 100), log.get(key(1))); // the hit bit: key 1 will be readmitted
    CountDownLatch resume = new CountDownLatch(1);
    CompletableFuture<byte[]> got = SmallLogTest.lookupStoppedAfterItsLogRead(log, key(1), resume);
    for (int i = 1_000; i < 1_000 + 64 * SmallTestKeys.PER_PAGE_100; i++) {
      log.put(key(i), value(i, 1, 100), i, 0);
    }
    assertTrue(log.objectsReadmitted.sum() >= 1, "key 1 readmitted");
    assertTrue(log.remove(key(1)));
    resume.countDown();
    assertNull(got.get(30, TimeUnit.SECONDS));
  }
}
