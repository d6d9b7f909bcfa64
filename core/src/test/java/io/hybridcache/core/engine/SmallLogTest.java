package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.SmallTestKeys.key;
import static io.hybridcache.core.engine.SmallTestKeys.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.device.FaultInjectingDevice;
import io.hybridcache.core.device.FaultInjectingDevice.WriteFault;
import io.hybridcache.core.device.MemoryDevice;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The KLog-style front log: reads newest-first, threshold moves, drops that never uncover older versions. */
class SmallLogTest {
  private static final int VALUE = 100;
  private static final int PAGE = 4096;

  private FaultInjectingDevice device;
  private SmallSets sets;

  /** At least {@code setCount} sets in the first slots, a log of {@code logPages} pages in the last slot. */
  private SmallLog log(int setCount, int logPages, int threshold) {
    int setSlots = (setCount + logPages - 1) / logPages;
    device = new FaultInjectingDevice(new MemoryDevice(setSlots + 1, (long) logPages * PAGE));
    sets = new SmallSets(device, 0, setSlots, SmallSets.Options.DEFAULT);
    return new SmallLog(device, setSlots, 1, sets, threshold);
  }

  /**
   * A log of {@code logPages} pages over 64 sets with version 1 of key 1 in its set and version 2 in the
   * log, followed by {@code fillers} other objects of 128-130 B ({@link SmallTestKeys#PER_PAGE_100} fill a log page).
   */
  private SmallLog versionOneInSetVersionTwoLogged(int logPages, int threshold, int fillers) {
    SmallLog log = log(64, logPages, threshold);
    sets.put(key(1), value(1, 1, VALUE), 1, 0);
    log.put(key(1), value(1, 2, VALUE), 2, 0);
    for (int i = 100; i < 100 + fillers; i++) {
      log.put(key(i), value(i, 1, VALUE), i, 0);
    }
    return log;
  }

  @Test
  void readsComeFromTheBufferTheLogAndTheSetsAlwaysTheNewest() {
    SmallLog log = log(64, 8, 2);
    for (int round = 1; round <= 3; round++) {
      for (int i = 0; i < 2_000; i++) {
        log.put(key(i), value(i, round, VALUE), round * 10_000L + i, 0);
      }
    }
    int hits = 0;
    for (int i = 0; i < 2_000; i++) {
      byte[] v = log.get(key(i));
      if (v != null) {
        assertArrayEquals(value(i, 3, VALUE), v, "key " + i);
        hits++;
      }
    }
    assertTrue(hits > 1_000, "hits " + hits); // 64 sets x 31 + the log's ~250
    assertTrue(log.setMoves.sum() > 0 && log.logPagesWritten.sum() > 0);
  }

  /** A value read from the write buffer is the caller's: changing it changes neither the buffer nor flash. */
  @Test
  void aValueReadFromTheBufferIsACopy() {
    SmallLog log = log(64, 8, 1_000);
    log.put(key(1), value(1, 1, VALUE), 1, 0);
    log.get(key(1))[0] = 'X';
    assertArrayEquals(value(1, 1, VALUE), log.get(key(1)));
    for (int i = 100; i < 140; i++) { // flushes the page
      log.put(key(i), value(i, 1, VALUE), i, 0);
    }
    assertArrayEquals(value(1, 1, VALUE), log.get(key(1)));
  }

  /** Regression: a log page holding three versions of a key served the first (the oldest). */
  @Test
  void aLogPageWithSeveralVersionsOfAKeyServesTheNewest() {
    SmallLog log = log(64, 8, 1_000);
    for (int version = 1; version <= 3; version++) {
      log.put(key(1), value(1, version, VALUE), version, 0);
    }
    for (int i = 100; i < 140; i++) { // flushes the page
      log.put(key(i), value(i, 1, VALUE), i, 0);
    }
    assertTrue(log.logPagesWritten.sum() >= 1);
    assertArrayEquals(value(1, 3, VALUE), log.get(key(1)));
  }

  /** One thread, random puts and removes of 80 keys, 2 sets, a 4-page log: every key checked after each operation. */
  @Test
  void matchesAReferenceModelAfterEveryOperation() {
    device = new FaultInjectingDevice(new MemoryDevice(3, 2 * PAGE));
    sets = new SmallSets(device, 0, 1, SmallSets.Options.DEFAULT);
    SmallLog log = new SmallLog(device, 1, 2, sets, 2);
    long[] versions = new long[80];
    boolean[] removed = new boolean[80];
    SplittableRandom r = new SplittableRandom(1);
    for (int op = 0; op < 10_000; op++) {
      int k = r.nextInt(80);
      versions[k]++;
      removed[k] = r.nextInt(10) == 0;
      if (removed[k]) {
        log.remove(key(k));
      } else {
        log.put(key(k), value(k, (int) versions[k], VALUE), versions[k], 0);
      }
      for (int j = 0; j < 80; j++) {
        byte[] v = log.get(key(j));
        if (v != null) {
          assertTrue(!removed[j], "op " + op + ": removed key " + j + " served");
          assertArrayEquals(value(j, (int) versions[j], VALUE), v, "op " + op + ": key " + j);
        }
      }
    }
    assertTrue(log.setMoves.sum() > 0 && sets.stats().evicted() > 0, "moves and evictions happened");
  }

  /**
   * A key whose older version sits in its set is put again through the log; its log object is then
   * reclaimed below the threshold. Dropping it would uncover version 1: it is moved instead.
   */
  @Test
  void aReclaimNeverDropsAnObjectThatShadowsAnOlderSetVersion() {
    SmallLog log = versionOneInSetVersionTwoLogged(2, 1_000, 100); // threshold never met; page of key 1 reclaimed
    assertArrayEquals(value(1, 2, VALUE), log.get(key(1)));
    assertArrayEquals(value(1, 2, VALUE), sets.get(key(1)), "moved to its set, not dropped");
    assertTrue(log.forcedMoves.sum() >= 1);
    assertTrue(log.objectsDropped.sum() > 0, "objects with no set version were dropped");
  }

  @Test
  void aRemoveReachesTheLogAndTheSet() {
    SmallLog log = log(64, 4, 1);
    sets.put(key(1), value(1, 1, VALUE), 1, 0);
    log.put(key(1), value(1, 2, VALUE), 2, 0);
    log.put(key(1), value(1, 3, VALUE), 3, 0);
    assertTrue(log.remove(key(1)));
    assertNull(log.get(key(1)));
    for (int i = 100; i < 400; i++) { // reclaims and moves
      log.put(key(i), value(i, 1, VALUE), i, 0);
    }
    assertNull(log.get(key(1)));
    assertNull(sets.get(key(1)));
  }

  /**
   * Version 2 in the log, version 1 in the set, and the remove's set-page read fails its check (a flipped
   * bit): the remove unlinks version 2, so it must make the set's version 1 unreachable too (poison the set),
   * never uncover it; nor may a set-only version survive such a remove.
   */
  @Test
  void aRemoveWhoseSetPageFailsItsCheckUncoversNoOlderVersion() {
    SmallLog log = versionOneInSetVersionTwoLogged(8, 1_000, 0); // version 2 in the buffer: no log page read
    int other = 2;
    while (sets.setOf(KeyHash.of(key(other))) == sets.setOf(KeyHash.of(key(1)))) {
      other++; // a set of its own: the first remove's poison must not hide the second case
    }
    sets.put(key(other), value(other, 1, VALUE), 3, 0); // only in its set
    int[] keys = {1, other};
    for (int i = 0; i < keys.length; i++) {
      int k = keys[i];
      device.corruptNextReads(1);
      log.remove(key(k));
      assertEquals(i + 1, device.injectedCorruptions(), "the remove's set-page read was the corrupted one");
      device.heal();
      assertNull(log.get(key(k)), "key " + k + ": the page reads clean again, version 1 must not come back");
    }
  }

  /** The newest version's log page cannot be read: a miss, never the older version in the set. */
  @Test
  void anUnreadableLogPageIsAMissNotAnOlderVersion() {
    SmallLog log = versionOneInSetVersionTwoLogged(8, 1_000, 40); // the page of key 1 is flushed
    device.failNextReads(1);
    assertNull(log.get(key(1)));
    assertArrayEquals(value(1, 2, VALUE), log.get(key(1)));
  }

  /**
   * A lookup stopped after reading the log page that holds the key while a remove completes: it must look
   * again (and miss), not serve what it read. Without the unlink counter it serves version 2.
   */
  @Test
  @Timeout(60)
  void aLookupOverlappingARemoveLooksAgain() throws Exception {
    SmallLog log = versionOneInSetVersionTwoLogged(8, 1_000, 40); // the page of key 1 is flushed
    CountDownLatch resume = new CountDownLatch(1);
    CompletableFuture<byte[]> got = lookupStoppedAfterItsLogRead(log, key(1), resume);
    assertTrue(log.remove(key(1)));
    resume.countDown();
    assertNull(got.get(30, TimeUnit.SECONDS));
  }

  /**
   * The reclaim cannot read the oldest log page: its objects' keys are unknown, so each set they belong
   * to is dropped whole; the older version in the set must not come back.
   */
  @Test
  void anUnreadablePageAtReclaimDropsItsSetsRatherThanUncoverOlderVersions() {
    // key 1 first in log page 0, flushed at the 32nd put; page 1 filled up to its 31st object
    SmallLog log = versionOneInSetVersionTwoLogged(2, 1_000, 2 * SmallTestKeys.PER_PAGE_100 - 1);
    device.failNextReads(1);
    log.put(key(200), value(200, 1, VALUE), 200, 0); // flushes page 1: the ring is full, page 0 is reclaimed
    assertEquals(1, log.ioErrors.sum());
    assertNull(log.get(key(1)), "neither version 2 (lost) nor version 1 (its set was dropped)");
    assertNull(sets.get(key(1)));
  }

  /** A log page that cannot be written is drained into the sets at once. */
  @Test
  void aFailedLogWriteMovesItsObjectsToTheirSets() {
    SmallLog log = versionOneInSetVersionTwoLogged(8, 1_000, 0);
    device.failNextWrites(1, WriteFault.IO_ERROR);
    for (int i = 100; i < 140; i++) {
      log.put(key(i), value(i, 1, VALUE), i, 0);
    }
    assertEquals(1, log.ioErrors.sum());
    assertArrayEquals(value(1, 2, VALUE), log.get(key(1)));
    assertArrayEquals(value(1, 2, VALUE), sets.get(key(1)), "drained to its set");
  }

  /**
   * Application write amplification with the log: 100,000 objects of 100 B (24 B keys) into 3,703 sets
   * behind a log of the given share of the pages. Prints WA, objects per set rewrite, drops and DRAM.
   */
  @ParameterizedTest
  @CsvSource({"185, 1", "185, 2", "370, 2", "740, 3"})
  void writeAmplificationWithTheLog(int logPages, int threshold) {
    int setCount = 100_000 / 27; // as with format 1 (27 objects of 148 B a page): compare the same geometry
    SmallLog log = log(setCount, logPages, threshold);
    Figures fill = Figures.after(log, sets, 0, 100_000, Figures.ZERO);
    Figures steady = Figures.after(log, sets, 100_000, 200_000, fill); // the cache full: the sets evict
    for (Figures f : new Figures[] {fill, steady}) {
      double wa = (double) (f.logBytes + f.setBytes) / f.admitted;
      long stored = f.stored; // at the end of the phase
      System.out.printf("small log %d pages (%.1f%% of %d set pages), threshold %d, %s: app write amplification"
          + " %.2f (log %.2f + sets %.2f), %.2f objects per set rewrite, %d dropped (%d forced moves in all), %d in sets,"
          + " DRAM %.2f B per object in sets (sets %.2f + log index %.2f)%n",
          logPages, 100.0 * logPages / sets.sets(), sets.sets(), threshold, f == fill ? "first fill" : "steady",
          wa, (double) f.logBytes / f.admitted, (double) f.setBytes / f.admitted, (double) f.moved / f.rewrites,
          f.dropped, log.forcedMoves.sum(), stored, (double) (sets.dramBytes() + log.dramBytes()) / stored,
          (double) sets.dramBytes() / stored, (double) log.dramBytes() / stored);
      assertTrue(wa < 33, "below the log-less 33: " + wa);
    }
  }

  /** Counts over one phase of {@link #writeAmplificationWithTheLog} (differences to {@code before}). */
  private record Figures(
      long admitted, long logBytes, long setBytes, long moved, long rewrites, long dropped, long stored) {
    static final Figures ZERO = new Figures(0, 0, 0, 0, 0, 0, 0);

    static Figures after(SmallLog log, SmallSets sets, int from, int to, Figures before) {
      for (int i = from; i < to; i++) {
        log.put(key(i), value(i, 1, VALUE), i, 0);
      }
      Figures total = new Figures(log.bytesAdmitted.sum(), log.logPagesWritten.sum() * PAGE,
          sets.stats().pageBytesWritten(), sets.stats().objectsInserted(), sets.stats().setRewrites(),
          log.objectsDropped.sum(), sets.stats().entries());
      return new Figures(total.admitted - before.admitted, total.logBytes - before.logBytes,
          total.setBytes - before.setBytes, total.moved - before.moved, total.rewrites - before.rewrites,
          total.dropped - before.dropped, total.stored);
    }
  }

  /**
   * Starts a lookup of {@code key} on a thread of its own and returns once it has read a log page: it
   * waits there until {@code resume} is counted down, then completes the returned future.
   */
  static CompletableFuture<byte[]> lookupStoppedAfterItsLogRead(SmallLog log, byte[] key, CountDownLatch resume)
      throws InterruptedException {
    CountDownLatch reached = new CountDownLatch(1);
    AtomicBoolean once = new AtomicBoolean();
    log.probe((point, pos) -> {
      if (Thread.currentThread().getName().equals("lookup") && once.compareAndSet(false, true)) {
        reached.countDown();
        try {
          resume.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });
    CompletableFuture<byte[]> got = new CompletableFuture<>();
    new Thread(() -> got.complete(log.get(key)), "lookup").start();
    assertTrue(reached.await(30, TimeUnit.SECONDS), "the lookup read a log page");
    return got;
  }

  /**
   * I/O threads only change when the reclaim's log-page reads happen (several at once, before the moves)
   * and which thread makes each set move (several at once), never what the log does: the same puts into a
   * log with them and a log without end with the same moves, drops and readmissions and serve the same value
   * for every key.
   */
  @Test
  void aPrefetchingReclaimDoesWhatASequentialOneDoes() throws Exception {
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
    try {
      SmallLog plain = log(64, 8, 2);
      SmallLog prefetching = log(64, 8, 2);
      prefetching.ioThreads(pool);
      for (SmallLog log : new SmallLog[] {plain, prefetching}) {
        for (int round = 1; round <= 3; round++) {
          for (int i = 0; i < 2_000; i++) {
            log.put(key(i), value(i, round, VALUE), round * 10_000L + i, 0);
            if (i % 7 == 0) {
              log.get(key(i / 2)); // hit bits: readmission candidates
            }
          }
        }
      }
      assertTrue(prefetching.prefetchedPages.sum() > 100, prefetching.prefetchedPages.sum() + " pages prefetched");
      assertEquals(0, plain.prefetchedPages.sum());
      assertTrue(prefetching.movesAside.sum() > 100, prefetching.movesAside.sum() + " set moves beside the reclaim's thread");
      assertEquals(0, plain.movesAside.sum());
      assertEquals(plain.setMoves.sum(), prefetching.setMoves.sum());
      assertEquals(plain.objectsMoved.sum(), prefetching.objectsMoved.sum());
      assertEquals(plain.objectsDropped.sum(), prefetching.objectsDropped.sum());
      assertEquals(plain.objectsReadmitted.sum(), prefetching.objectsReadmitted.sum());
      for (int i = 0; i < 2_000; i++) {
        assertArrayEquals(plain.get(key(i)), prefetching.get(key(i)), "key " + i);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * A set move made on a prefetch thread that meets an Error (as a fault of a mapped read raises) hands it to
   * the reclaim, which throws it as a move on its own thread would have (the tier's reclaimer then counts it
   * and empties the engine): never lost on a pool thread.
   */
  @Test
  @Timeout(60)
  void anErrorOfASetMoveBesideTheReclaimReachesTheReclaim() {
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4,
        r -> new Thread(r, "mover"));
    try {
      SmallLog log = log(64, 8, 2);
      log.ioThreads(pool);
      AtomicBoolean thrown = new AtomicBoolean();
      sets.probe((point, set) -> {
        if (point == SmallSets.Point.BEFORE_PAGE_WRITE && Thread.currentThread().getName().equals("mover")
            && thrown.compareAndSet(false, true)) {
          throw new InternalError("test: a fault of a set write beside the reclaim");
        }
      });
      InternalError seen = null;
      for (int i = 0; i < 20_000 && seen == null; i++) {
        try {
          log.put(key(i), value(i, 1, VALUE), i, 0); // a full buffer's put writes it and reclaims
        } catch (InternalError e) {
          seen = e;
        }
      }
      assertTrue(thrown.get(), "a move ran beside the reclaim: " + log.movesAside.sum());
      assertTrue(seen != null && seen.getMessage().startsWith("test:"), "the reclaim threw the mover's Error: " + seen);
    } finally {
      pool.shutdownNow();
    }
  }
}
