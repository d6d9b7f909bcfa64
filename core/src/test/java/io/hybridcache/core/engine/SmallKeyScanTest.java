package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.SmallTestKeys.key;
import static io.hybridcache.core.engine.SmallTestKeys.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.device.FaultInjectingDevice;
import io.hybridcache.core.device.MemoryDevice;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The small engine's key scan ({@link SmallKeyScan}): every key of the sets and the log, a key the log
 * moves into an already scanned set or readmits while the scan runs (forced at the point between the set
 * pass and the log's snapshot), and a read error that empties instead of returning part.
 */
class SmallKeyScanTest {
  private static final int VALUE = 100;
  private static final int PAGE = 4096;

  private FaultInjectingDevice device;
  private SmallSets sets;

  /** {@code setSlots} slots of 8 pages of sets, then a log of 8 pages. */
  private SmallLog log(int setSlots, int threshold) {
    device = new FaultInjectingDevice(new MemoryDevice(setSlots + 1, 8L * PAGE));
    sets = new SmallSets(device, 0, setSlots, SmallSets.Options.DEFAULT);
    return new SmallLog(device, setSlots, 1, sets, threshold);
  }

  private static Set<ByteKey> keysOf(SmallKeyScan scan) {
    Set<ByteKey> out = new HashSet<>();
    scan.forEachRemaining(k -> out.add(new ByteKey(k)));
    return out;
  }

  private static List<Integer> present(SmallLog log, int from, int to) {
    List<Integer> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      if (log.get(key(i)) != null) {
        out.add(i);
      }
    }
    return out;
  }

  @Test
  void everyKeyOfTheSetsAndTheLogIsReturned() {
    SmallLog log = log(40, 2); // 320 sets in 40 slots: several 1 MiB chunks' worth of slot boundaries
    for (int i = 0; i < 3_000; i++) {
      log.put(key(i), value(i, 1, VALUE), i + 1, i % 10 == 0 ? 1 : 0); // one in 10 expired: not listed
    }
    List<Integer> held = present(log, 0, 3_000);
    assertTrue(held.size() > 1_500 && log.setMoves.sum() > 0, held.size() + " held");
    Throwable[] failed = {null};
    Set<ByteKey> listed = keysOf(new SmallKeyScan(sets, log, reason -> failed[0] = reason));
    assertNull(failed[0]);
    for (int i : held) {
      assertTrue(listed.contains(new ByteKey(key(i))), "key " + i);
    }
    for (int i = 0; i < 3_000; i += 10) {
      assertTrue(!listed.contains(new ByteKey(key(i))), "expired key " + i);
    }
  }

  /** Objects the log moves into sets the scan has passed, or readmits, before its snapshot: still returned. */
  @Test
  void objectsRelocatedBetweenTheSetPassAndTheLogSnapshotAreReturned() {
    SmallLog log = log(8, 1); // threshold 1: a reclaim moves every object of its page to its set
    for (int i = 0; i < 200; i++) {
      log.put(key(i), value(i, 1, VALUE), i + 1, 0);
    }
    List<Integer> before = present(log, 0, 200);
    for (int i = 0; i < 200; i += 2) {
      log.get(key(i)); // hit in the log: readmitted instead of dropped when their page is reclaimed
    }
    long moved = log.objectsMoved.sum();
    SmallKeyScan scan = new SmallKeyScan(sets, log, reason -> { throw new AssertionError(reason); });
    scan.afterSetPass = () -> {
      for (int i = 1_000; i < 1_400; i++) { // laps the 8-page log: every object of 0..199 leaves its page
        log.put(key(i), value(i, 1, VALUE), i + 1, 0);
      }
    };
    Set<ByteKey> listed = keysOf(scan);
    assertTrue(log.objectsMoved.sum() - moved > 100, "the forced step moved objects into their sets");
    List<Integer> after = present(log, 0, 200);
    int checked = 0;
    for (int i : before) {
      if (after.contains(i)) {
        assertTrue(listed.contains(new ByteKey(key(i))), "key " + i + " held throughout, not returned");
        checked++;
      }
    }
    assertTrue(checked > 100, checked + " keys held throughout");
  }

  /** A scan of a log of 500 objects over 64 sets that adds what it hands {@code onFailure} to {@code failures}. */
  private SmallKeyScan scanOfFilledLog(List<Throwable> failures) {
    SmallLog log = log(8, 2);
    for (int i = 0; i < 500; i++) {
      log.put(key(i), value(i, 1, VALUE), i + 1, 0);
    }
    return new SmallKeyScan(sets, log, failures::add);
  }

  @Test
  void aReadErrorEmptiesTheEngineInsteadOfReturningPart() {
    List<Throwable> failures = new ArrayList<>();
    SmallKeyScan scan = scanOfFilledLog(failures);
    device.failAllReads();
    scan.forEachRemaining(k -> { });
    assertEquals(1, failures.size());
    assertTrue(failures.get(0) instanceof java.io.IOException, failures.get(0).toString());
  }

  /**
   * No direct memory for the scan's chunk (allocated by its first step, not when the scan is made): the
   * scan ends, reported, with no key and nothing thrown out of hasNext.
   */
  @Test
  void noDirectMemoryForTheChunkEndsTheScanReported() {
    List<Throwable> failures = new ArrayList<>();
    SmallKeyScan scan = scanOfFilledLog(failures);
    scan.allocate = bytes -> {
      throw new OutOfMemoryError("test: cannot reserve " + bytes + " bytes of direct buffer memory");
    };
    assertTrue(!scan.hasNext(), "no key of a scan that could not read");
    assertEquals(1, failures.size());
    assertTrue(failures.get(0) instanceof OutOfMemoryError, failures.get(0).toString());
  }
}
