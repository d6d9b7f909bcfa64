package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.SmallTestKeys.key;
import static io.hybridcache.core.engine.SmallTestKeys.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.device.FileDevice;
import io.hybridcache.core.device.MemoryDevice;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Free-running threads against a reference model on two overflowing sets, alone and behind a log:
 * writers own disjoint keys and publish each completed put or remove; readers check that a lookup never serves another key's value, a
 * version older than the last put or remove completed before it began, or a removed key's old value.
 * Then the region over a real {@link FileDevice} (O_DIRECT where the file system allows it).
 */
@Timeout(120)
class SmallSetsConcurrencyTest {
  private static final int VALUE = 100;
  private static final int KEYS = 80; // 40 a set against 27 slots: RRIP evicts all the time
  private static final int WRITERS = 2;
  private static final int READERS = 2;
  private static final int OPS = 15_000;

  @TempDir Path dir;

  @Test
  void neverAWrongOrStaleValueFromTheSets() throws Exception {
    SmallSets sets = new SmallSets(new MemoryDevice(1, 2 * 4096), 0, 1, SmallSets.Options.DEFAULT);
    neverAWrongOrStaleValue(sets);
    SmallSetCounters.Snapshot s = sets.stats();
    assertTrue(s.hits() > 0 && s.evicted() > 0, s.toString());
  }

  /** The same through a log of 4 pages (threshold 2) in front of the two sets. */
  @Test
  void neverAWrongOrStaleValueThroughTheLog() throws Exception {
    MemoryDevice device = new MemoryDevice(3, 2 * 4096);
    SmallSets sets = new SmallSets(device, 0, 1, SmallSets.Options.DEFAULT);
    SmallLog log = new SmallLog(device, 1, 2, sets, 2);
    neverAWrongOrStaleValue(log);
    assertTrue(log.setMoves.sum() > 0 && log.logHits.sum() > 0 && sets.stats().hits() > 0);
  }

  /**
   * The same with 1-bit index tags (nearly every log object of a set matches any key) and a threshold of
   * 40 (chains hold about 54), so that reclaims drop, readmit and force moves while puts, reads and removes run (the
   * log's lock is not held across its I/O).
   */
  @Test
  void neverAWrongOrStaleValueThroughTheLogWithTagCollisionsAndReadmission() throws Exception {
    SmallLog log = null;
    for (int run = 0; run < 5 && (log == null || log.objectsReadmitted.sum() == 0); run++) {
      // readmission needs a hit while in the log and room at the reclaim: the threads' timing decides, so
      // a run without one (rare) is repeated on a fresh region
      MemoryDevice device = new MemoryDevice(3, 2 * 4096);
      SmallSets sets = new SmallSets(device, 0, 1, SmallSets.Options.DEFAULT);
      log = new SmallLog(device, 1, 2, sets, 40, true, 1);
      neverAWrongOrStaleValue(log);
    }
    assertTrue(log.setMoves.sum() > 0 && log.logHits.sum() > 0 && log.objectsReadmitted.sum() > 0,
        "moves " + log.setMoves.sum() + ", log hits " + log.logHits.sum() + ", readmitted "
            + log.objectsReadmitted.sum());
  }

  /**
   * The same with a reclaimer thread emptying the log's oldest page whenever it runs low, while the puts
   * go on appending (their own flush reclaims only when the ring is full): moves, drops and readmissions
   * off the putting threads.
   */
  @Test
  void neverAWrongOrStaleValueThroughTheLogWithABackgroundReclaimer() throws Exception {
    MemoryDevice device = new MemoryDevice(3, 2 * 4096);
    SmallSets sets = new SmallSets(device, 0, 1, SmallSets.Options.DEFAULT);
    SmallLog log = new SmallLog(device, 1, 2, sets, 3, true, 1);
    java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
    Thread reclaimer = new Thread(() -> {
      while (!stop.get()) {
        if (!log.reclaimAhead()) {
          Thread.yield(); // nothing to reclaim yet: a poll, as the tier's reclaimer parks
        }
      }
    }, "reclaimer");
    reclaimer.start();
    try {
      neverAWrongOrStaleValue(log);
    } finally {
      stop.set(true);
      reclaimer.join(30_000);
    }
    assertTrue(log.backgroundReclaims.sum() > 0 && log.setMoves.sum() > 0 && log.logHits.sum() > 0,
        "background reclaims " + log.backgroundReclaims.sum() + ", inline " + log.inlineReclaims.sum()
            + ", moves " + log.setMoves.sum() + ", readmitted " + log.objectsReadmitted.sum());
  }

  private void neverAWrongOrStaleValue(SmallStore store) throws Exception {
    // per key, published after each completed put or remove: its version << 1 | 1 if it was a remove
    AtomicLongArray state = new AtomicLongArray(KEYS);
    ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      int id = w;
      threads.add(new Thread(() -> {
        SplittableRandom r = new SplittableRandom(id);
        for (int op = 1; op <= OPS; op++) {
          int k = r.nextInt(KEYS / WRITERS) * WRITERS + id;
          long version = (state.get(k) >>> 1) + 1;
          boolean remove = r.nextInt(10) == 0;
          if (remove) {
            store.remove(key(k));
          } else {
            store.put(key(k), value(k, (int) version, VALUE), version, 0);
          }
          state.set(k, version << 1 | (remove ? 1 : 0));
        }
      }, "writer" + w));
    }
    for (int t = 0; t < READERS; t++) {
      int id = t;
      threads.add(new Thread(() -> {
        SplittableRandom r = new SplittableRandom(100 + id);
        for (int op = 0; op < OPS * 2; op++) {
          int k = r.nextInt(KEYS);
          long published = state.get(k);
          long before = published >>> 1;
          boolean wasRemoved = (published & 1) == 1;
          byte[] v = store.get(key(k));
          if (v == null) {
            continue;
          }
          String s = new String(v, 0, 20, StandardCharsets.US_ASCII);
          String[] parts = s.split("/");
          long version = Long.parseLong(parts[0].substring(1));
          if (Integer.parseInt(parts[1]) != k) {
            errors.add("key " + k + " served " + s);
          } else if (version < before || (wasRemoved && version == before)) {
            errors.add("key " + k + " served version " + version + " after " + (wasRemoved ? "remove " : "put ")
                + before);
          }
        }
      }, "reader" + t));
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join();
    }
    assertTrue(errors.isEmpty(), errors.size() + " wrong values, first: " + errors.peek());
    for (int k = 0; k < KEYS; k++) { // quiescent: exactly the model, or evicted
      byte[] v = store.get(key(k));
      if ((state.get(k) & 1) == 1) {
        assertNull(v, "removed key " + k);
      } else if (v != null) {
        assertArrayEquals(value(k, (int) (state.get(k) >>> 1), VALUE), v, "key " + k);
      }
    }
  }

  @Test
  void theRegionWorksOverAFileDevice() throws Exception {
    try (FileDevice device = FileDevice.open(dir, 2, 1 << 20, true)) {
      SmallSets sets = new SmallSets(device, 1, 1, SmallSets.Options.DEFAULT); // slot 1 only: 256 sets
      for (int i = 0; i < 2_000; i++) {
        assertTrue(sets.put(key(i), value(i, 1, VALUE), i, 0));
      }
      int hits = 0;
      for (int i = 0; i < 2_000; i++) {
        byte[] v = sets.get(key(i));
        if (v != null) {
          assertArrayEquals(value(i, 1, VALUE), v);
          hits++;
        }
      }
      assertEquals(sets.stats().entries(), hits);
      assertTrue(hits > 1_500, "hits " + hits + ", direct I/O " + device.directIo());
      assertEquals(false, device.allocated(0), "the region stays in its slots");
    }
  }
}
