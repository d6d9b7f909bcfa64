package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.SmallObjectStats;
import io.hybridcache.core.device.FaultInjectingDevice;
import io.hybridcache.core.device.FaultInjectingDevice.WriteFault;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The small-object engine's twins of the log engine's fault tests ({@link FaultTest}, {@link DiskFullTest}),
 * through the cache, with a {@link FaultInjectingDevice} under the small engine alone: a damaged page and a
 * read error are misses; a write error or a full disk never serves an older version and never hangs; a
 * Throwable out of the device empties the engine, counted; close returns while a small-engine write hangs.
 */
class SmallEngineFaultTest {
  private static final int SMALL = SmallEngineWiringTest.SMALL;
  private static final int KEYS = 1000; // 3x the log: most sets get written

  @TempDir
  Path dir;

  private final AtomicReference<FaultInjectingDevice> device = new AtomicReference<>();
  private final List<Engine> opened = new ArrayList<>();

  /**
   * Every cache a test closed has ended its close, also what went on in the background after a close
   * timed out (so no late file lands in the test's directory while it is deleted).
   */
  @AfterEach
  void everyCloseEnds() {
    for (Engine cache : opened) {
      if (cache.closing()) {
        assertTrue(cache.flashTier().awaitClosed(60, TimeUnit.SECONDS), "a close that never ends");
      }
    }
  }

  private Engine open(CacheConfig c) {
    Engine cache = openFaulty(c);
    opened.add(cache);
    return cache;
  }

  private Engine openFaulty(CacheConfig c) {
    return TestCaches.openSmallFaulty(c, device);
  }

  private Engine filled() {
    Engine cache = open(SmallEngineWiringTest.config(dir).build());
    for (int i = 0; i < KEYS; i++) {
      cache.put(key(i), value(i, 1, SMALL));
    }
    cache.writeBackAndDropDram();
    return cache;
  }

  /**
   * {@link #filled} with the engine's reclaimer stopped: the log is full after the fill, and a background
   * reclaim drops objects it does not readmit, which would change what a later pass can read (the tests
   * that compare passes read and remove only: nothing needs a reclaim).
   */
  private Engine filledAndQuiet() {
    Engine cache = filled();
    cache.smallTier().stopReclaimingAndWait();
    return cache;
  }

  /** Every read serves the key's only version or misses; returns the misses. */
  static int readAll(Engine cache, long version) {
    int misses = 0;
    for (int i = 0; i < KEYS; i++) {
      byte[] v = cache.get(key(i));
      if (v == null) {
        misses++;
      } else {
        assertArrayEquals(value(i, version, SMALL), v, "key " + i);
      }
    }
    cache.dramTier().clear(); // the next pass reads flash again
    return misses;
  }

  @Test
  void aDamagedPageIsAMissAndCounted() {
    try (Engine cache = filledAndQuiet()) {
      int baseline = readAll(cache, 1); // objects reclaim dropped below the threshold miss anyway
      assertTrue(baseline < KEYS / 2, baseline + " misses without a fault");
      device.get().corruptAllReads();
      int misses = readAll(cache, 1);
      SmallObjectStats s = cache.stats().smallObjects();
      assertTrue(misses >= KEYS - SmallLog.OBJECTS_PER_PAGE, misses + " misses: only the log's DRAM page serves");
      assertTrue(s.damagedPages() > 0, "damaged pages counted: " + s);
      device.get().heal();
      assertEquals(baseline, readAll(cache, 1), "the pages themselves were intact: reads hit again");
    }
  }

  @Test
  void aReadErrorIsAMissAndCounted() {
    try (Engine cache = filledAndQuiet()) {
      int baseline = readAll(cache, 1);
      device.get().failAllReads();
      long errors = cache.stats().smallObjects().ioErrors();
      int misses = readAll(cache, 1);
      assertTrue(misses >= KEYS - SmallLog.OBJECTS_PER_PAGE, misses + " misses");
      assertTrue(cache.stats().smallObjects().ioErrors() > errors, "read errors counted");
      device.get().heal();
      assertEquals(baseline, readAll(cache, 1), "reads hit again");
    }
  }

  @Test
  void writeErrorsNeverServeAnOlderVersionNorHang() {
    writeFaultsNeverServeAnOlderVersionNorHang(WriteFault.IO_ERROR);
  }

  @Test
  void aFullDiskNeverServesAnOlderVersionNorHangs() {
    writeFaultsNeverServeAnOlderVersionNorHang(WriteFault.DISK_FULL);
  }

  /** Reference model: rounds of puts (versions) and removes, writes failing in rounds 3 to 6. */
  private void writeFaultsNeverServeAnOlderVersionNorHang(WriteFault fault) {
    assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
      try (Engine cache = open(SmallEngineWiringTest.config(dir).build())) {
        long[] newest = new long[KEYS];
        Random rnd = new Random(7);
        int hitsAfterHeal = 0;
        for (int round = 1; round <= 9; round++) {
          if (round == 3) {
            device.get().failAllWrites(fault);
          } else if (round == 7) {
            device.get().heal();
          }
          int hits = SmallEngineWiringTest.roundOfPutsAndRemoves(cache, newest, round, rnd, 7, false);
          hitsAfterHeal += round >= 8 ? hits : 0;
        }
        assertTrue(device.get().injectedWriteFaults() > 0, "writes failed");
        assertTrue(cache.stats().smallObjects().ioErrors() > 0, "counted: " + cache.stats().smallObjects());
        assertTrue(hitsAfterHeal > 0, "the healed engine serves again");
      }
    });
  }

  /** A Throwable (an Error, as an unsafe access fault raises) out of the device: counted, the engine emptied. */
  @Test
  void aThrowableOutOfTheDeviceEmptiesTheEngineAndIsCounted() {
    try (Engine cache = filled()) {
      device.get().throwOnReads(new InternalError("test: a fault of a mapped read"));
      assertTrue(readAll(cache, 1) >= KEYS - SmallLog.OBJECTS_PER_PAGE, "misses, never an error out of get");
      device.get().heal();
      SmallObjectStats s = cache.stats().smallObjects();
      assertTrue(s.faults() > 0 && s.resets() > 0, s.toString());
      assertEquals(KEYS, readAll(cache, 1), "emptied: what was there is gone, never served from an old epoch");
      byte[] got;
      long resets;
      do { // the reclaimer may meet the Error before the heal and empty the engine again a little later: once
        resets = cache.stats().smallObjects().resets();
        cache.put(key(1), value(1, 2, SMALL));
        cache.writeBackAndDropDram();
        got = cache.get(key(1));
      } while (cache.stats().smallObjects().resets() != resets);
      assertArrayEquals(value(1, 2, SMALL), got, "and it takes new entries");
    }
  }

  /**
   * An Error out of the device while {@code keys()} scans the small engine (an {@code InternalError}, as a
   * fault of a mapped read raises): the iterator ends normally, the fault is counted once, the engine is
   * emptied (every key it held is invalidated, never left out of the scan and still served), and it goes
   * on serving new entries.
   */
  @Test
  void anErrorInAKeyScanEmptiesTheEngineAndIsCounted() {
    try (Engine cache = filledAndQuiet()) { // no reclaimer to meet the Error besides the scan
      assertTrue(readAll(cache, 1) < KEYS / 2, "the engine holds most keys");
      SmallObjectStats before = cache.stats().smallObjects();
      device.get().throwOnReads(new InternalError("test: a fault of a mapped read"));
      java.util.Iterator<byte[]> keys = cache.keys();
      int listed = 0;
      while (keys.hasNext()) { // an Error out of hasNext fails the test here
        keys.next();
        listed++;
      }
      device.get().heal();
      SmallObjectStats after = cache.stats().smallObjects();
      assertEquals(before.faults() + 1, after.faults(), "the scan's Error counted once: " + after);
      assertEquals(before.resets() + 1, after.resets(), "the engine emptied: " + after);
      assertEquals(KEYS, readAll(cache, 1), "every key of the engine invalidated (" + listed + " listed)");
      cache.put(key(1), value(1, 2, SMALL));
      cache.writeBackAndDropDram();
      assertArrayEquals(value(1, 2, SMALL), cache.get(key(1)), "and it takes new entries");
    }
  }

  /**
   * Issue 34 item 2 through the cache: each key is removed (or put again with a TTL, which removes its
   * small-engine versions too) while the engine's next read returns a flipped bit (the remove's first page
   * read: the key's log page or its set page); then the device heals and DRAM is dropped: no key may be
   * served again (before: a set page that failed its check was left as it was, and a clean read served it).
   */
  @Test
  void aRemoveWhosePageReadFailsItsCheckStillMakesTheKeyUnreachable() {
    try (Engine cache = filledAndQuiet()) {
      int served = KEYS - readAll(cache, 1);
      assertTrue(served > KEYS / 2, served + " small hits");
      for (int i = 0; i < KEYS; i++) {
        device.get().corruptNextReads(1);
        if (i % 2 == 0) {
          cache.remove(key(i));
        } else {
          cache.put(key(i), value(i, 2, SMALL), Duration.ofHours(1));
        }
        device.get().heal();
      }
      assertTrue(device.get().injectedCorruptions() > 0, "removes read pages");
      cache.dramTier().clear(); // the TTL puts' new versions were in DRAM only
      int stillServed = 0;
      for (int i = 0; i < KEYS; i++) {
        stillServed += cache.get(key(i)) != null ? 1 : 0;
      }
      assertEquals(0, stillServed, "keys served after their remove: " + cache.stats().smallObjects());
      assertTrue(cache.stats().smallObjects().damagedPages() > 0, "counted: " + cache.stats().smallObjects());
    }
  }

  /**
   * A clear (or a fault) whose new region cannot be made (no memory left): clear() does not throw, and the
   * engine serves and takes nothing (it was to be emptied) until a later reset succeeds (the reclaimer's
   * next turn; called here on the test's thread), then it serves again (the review's finding on item 5).
   */
  @Test
  void anEngineThatCannotBeEmptiedServesNothingUntilItIs() {
    try (Engine cache = filledAndQuiet()) {
      assertTrue(readAll(cache, 1) < KEYS / 2, "the engine holds most keys");
      cache.smallTier().failNewRegions(1);
      cache.clear(); // must not throw
      assertTrue(!cache.smallTier().inService(), "out of service");
      assertEquals(KEYS, readAll(cache, 1), "nothing of before the clear is served");
      assertTrue(cache.smallTier().retryResetNow(), "emptied once memory is back");
      assertEquals(KEYS, readAll(cache, 1), "still nothing of before the clear");
      cache.put(key(1), value(1, 2, SMALL));
      cache.writeBackAndDropDram();
      assertArrayEquals(value(1, 2, SMALL), cache.get(key(1)), "in service again");
    }
  }

  /**
   * A Throwable on the reclaimer thread (its reclaim reads the oldest log page): counted, the engine
   * emptied, and the thread lives on and reclaims again once the device heals.
   */
  @Test
  void aThrowableOnTheReclaimerIsCountedAndTheThreadLivesOn() {
    try (Engine cache = filled()) {
      SmallTier small = cache.smallTier();
      device.get().throwOnReads(new InternalError("test: a fault of a mapped read"));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      for (int i = KEYS; small.reclaimerFaults.sum() == 0 && System.nanoTime() - deadline < 0; i++) {
        cache.put(key(i % (20 * KEYS)), value(i, 1, SMALL)); // evictions fill the log: the reclaimer wakes
      }
      assertTrue(small.reclaimerFaults.sum() > 0, "the reclaimer met the Error: " + cache.stats().smallObjects());
      device.get().heal();
      assertTrue(small.reclaimerAlive(), "the reclaimer lives on");
      assertTrue(cache.stats().smallObjects().faults() >= small.reclaimerFaults.sum());
      for (int i = 0; small.backgroundReclaims() == 0 && System.nanoTime() - deadline < 0; i++) {
        cache.put(key(i % (20 * KEYS)), value(i, 2, SMALL));
      }
      assertTrue(small.backgroundReclaims() > 0, "and reclaims again in the new region");
    }
  }

  /**
   * A small-engine write that never returns (a hung device) holds a caller; close still returns. Once the
   * device moves and the call ends, the close that went on in the background closes the small engine (its
   * reclaimer ended, its device closed) before it releases the directory: a reopen then works.
   */
  @Test
  void closeReturnsWhileASmallEngineWriteHangs() throws Exception {
    CacheConfig config = SmallEngineWiringTest.config(dir).closeTimeout(Duration.ofSeconds(1)).build();
    Engine cache = open(config);
    for (int i = 0; i < KEYS; i++) {
      cache.put(key(i), value(i, 1, SMALL));
    }
    device.get().holdWrites();
    CompletableFuture<Void> flush = CompletableFuture.runAsync(cache::flush);
    assertTrue(device.get().awaitHeldWrite(10, TimeUnit.SECONDS), "the flush reached a device write");
    assertTimeoutPreemptively(Duration.ofSeconds(20), cache::close);
    device.get().releaseWrites();
    try {
      flush.get(10, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      assertTrue(e.getCause() instanceof IllegalStateException, e.toString()); // closed under it
    }
    FaultInjectingDevice hung = device.get();
    assertTrue(cache.flashTier().awaitClosed(30, TimeUnit.SECONDS), "the background close ends with the call");
    assertTrue(hung.closed(), "the small engine's device is closed before the directory is released");
    assertTrue(!cache.smallTier().reclaimerAlive(), "its reclaimer has ended");
    try (Engine again = open(config)) {
      again.put(key(0), value(0, 2, SMALL));
      assertArrayEquals(value(0, 2, SMALL), again.get(key(0)));
    }
  }

  /**
   * Issue 34 item 5: with the reclaimer idle (the log's I/O lock free) and the device's writes held, a
   * remove of a key in a set page (its rewrite is the write that hangs) returns within 5 s: it waits for
   * the removal's I/O at most {@code max(cascadeWait, 1 s)}, then empties the engine (a counted fault), so
   * the key then reads null, also once the held write lands. A hung device costs one wait: the other
   * removes return at once (nothing of theirs is left to remove).
   */
  @Test
  void aRemoveReturnsWhileTheDeviceHangsAndTheKeyThenReadsNull() throws Exception {
    Engine cache = filledAndQuiet();
    try {
      int served = KEYS - readAll(cache, 1);
      assertTrue(served > KEYS / 2, served + " small hits");
      device.get().holdWrites();
      int[] hung = {-1};
      int[] slow = {0};
      long[] longest = {0};
      assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
        for (int i = 0; i < KEYS; i++) {
          long t0 = System.nanoTime();
          cache.remove(key(i));
          long ms = (System.nanoTime() - t0) / 1_000_000;
          longest[0] = Math.max(longest[0], ms);
          slow[0] += ms >= SmallTier.MIN_REMOVE_WAIT_MILLIS / 2 ? 1 : 0;
          if (hung[0] < 0 && device.get().awaitHeldWrite(0, TimeUnit.SECONDS)) {
            hung[0] = i; // this remove's set-page rewrite hangs in the device
          }
        }
      }, "a remove hangs behind the hung small-engine device");
      assertTrue(hung[0] >= 0, "a remove reached a set-page write");
      assertTrue(longest[0] < 5000, "a remove took " + longest[0] + " ms");
      assertTrue(slow[0] <= 1, slow[0] + " removes waited for the hung device");
      SmallObjectStats s = cache.stats().smallObjects();
      assertTrue(s.faults() > 0 && s.resets() > 0, "the engine was emptied, counted: " + s);
      assertEquals(null, cache.get(key(hung[0])), "the removed key");
      // the hung write still holds the removal's thread: a remove of a key the new region holds (in its log's
      // DRAM buffer) neither waits behind it nor starts another thread; it empties the engine at once
      cache.put(key(KEYS), value(KEYS, 1, SMALL));
      cache.writeBackAndDropDram();
      assertArrayEquals(value(KEYS, 1, SMALL), cache.get(key(KEYS)), "the new region holds it");
      long resets = cache.stats().smallObjects().resets();
      long t0 = System.nanoTime();
      assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertTrue(cache.remove(key(KEYS))));
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ms < SmallTier.MIN_REMOVE_WAIT_MILLIS / 2, "a remove behind the hung one waited " + ms + " ms");
      assertEquals(resets + 1, cache.stats().smallObjects().resets(), "emptied instead");
      assertEquals(null, cache.get(key(KEYS)));
      long removers = Thread.getAllStackTraces().keySet().stream()
          .filter(t -> t.getName().startsWith("hybridcache-small-remove-")).count();
      assertEquals(1, removers, "one removal thread, however many removes met the hung device");
      device.get().releaseWrites(); // the held write lands now, on a page of the new epoch
      for (int i = 0; i < KEYS; i++) {
        assertEquals(null, cache.get(key(i)), "key " + i + " after the held write landed");
      }
    } finally {
      device.get().releaseWrites();
      assertTimeoutPreemptively(Duration.ofSeconds(20), cache::close);
    }
  }

  /**
   * Issue 34 item 5 at close: flagged DRAM entries (a put of a large value over a key the small engine
   * holds: its older version must be removed before the new one is written back to the log engine) and a
   * device whose writes hang. close() returns within {@code closeTimeout} (+ 2 s of slack), also with a
   * {@code cascadeWait} of 10 s (a remove's own wait); once the device moves, the
   * close that went on behind it ends, and a reopen serves the new version or nothing, never the older one.
   */
  @Test
  void closeReturnsWhileTheRemovalOfAFlaggedEntrysOlderVersionHangs() throws Exception {
    Duration closeTimeout = Duration.ofSeconds(1);
    // a remove waits max(cascadeWait, 1 s) for the device: 10 s here, which the close must not add to its own
    CacheConfig config = SmallEngineWiringTest.config(dir).closeTimeout(closeTimeout)
        .cascadeWait(Duration.ofSeconds(10)).build();
    Engine cache = open(config);
    int large = 200; // fit in DRAM: no eviction before the close
    try {
      for (int i = 0; i < KEYS; i++) {
        cache.put(key(i), value(i, 1, SMALL));
      }
      cache.writeBackAndDropDram();
      cache.smallTier().stopReclaimingAndWait(); // the log's I/O lock stays free
      for (int i = 0; i < large; i++) {
        cache.put(key(i), value(i, 2, SmallEngineWiringTest.LARGE)); // flagged: the small engine holds v1
      }
      device.get().holdWrites();
      assertTimeoutPreemptively(closeTimeout.plusSeconds(2), cache::close,
          "close waits past its closeTimeout behind the removal");
      assertTrue(device.get().awaitHeldWrite(0, TimeUnit.SECONDS), "the close's removals reached a device write");
    } finally {
      device.get().releaseWrites();
    }
    assertTrue(cache.flashTier().awaitClosed(30, TimeUnit.SECONDS), "the background close ends once the device moved");
    try (Engine again = open(config)) {
      for (int i = 0; i < large; i++) {
        byte[] v = again.get(key(i));
        if (v != null) {
          assertArrayEquals(value(i, 2, SmallEngineWiringTest.LARGE), v, "key " + i);
        }
      }
    }
  }

  /**
   * The log engine's hung-device twin: an eviction into the small engine never writes on the caller's
   * thread. With the engine's device hung, a writing thread's eviction waits at most {@code cascadeWait},
   * once; later evictions are refused at once (counted) while the device does not move; a reading thread's
   * eviction never waits for the hung write. Once the device moves, evictions are taken again.
   */
  @Test
  void aHungDeviceHoldsEvictionsAtMostCascadeWaitOnceThenRefusesThem() throws Exception {
    long waitMillis = 300;
    Engine cache = open(SmallEngineWiringTest.config(dir).cascadeWait(Duration.ofMillis(waitMillis))
        .closeTimeout(Duration.ofSeconds(1)).build());
    try {
      int n = 20 * KEYS; // several times what the 1 MiB DRAM tier holds: every put evicts
      for (int i = 0; i < n; i++) {
        cache.put(key(i), value(i, 1, SMALL));
      }
      assertTrue(cache.stats().smallObjects().objectsAdmitted() > 0, "puts evict into the small engine");
      device.get().holdWrites();
      long refused = cache.stats().queueRejected();
      int[] slow = {0};
      long[] longest = {0};
      assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
        for (int i = n; i < 2 * n; i++) { // new keys: each evicts a dirty entry into the small engine
          long t0 = System.nanoTime();
          cache.put(key(i), value(i, 1, SMALL));
          long ms = (System.nanoTime() - t0) / 1_000_000;
          longest[0] = Math.max(longest[0], ms);
          slow[0] += ms >= waitMillis / 2 ? 1 : 0;
        }
      }, "puts hang behind the hung small-engine device");
      assertTrue(device.get().awaitHeldWrite(10, TimeUnit.SECONDS), "the engine reached a device write");
      // one eviction's wait; and a put over a key the engine may hold whose eviction is then refused waits
      // once (at least 1 s) to remove the older version, and then empties the engine instead
      assertTrue(slow[0] <= 2, slow[0] + " puts waited for the hung device; longest " + longest[0] + " ms");
      assertTrue(longest[0] < SmallTier.MIN_REMOVE_WAIT_MILLIS + 2000, "a put waited " + longest[0] + " ms");
      assertTrue(cache.stats().queueRejected() > refused, "the refused evictions are counted");
      // A reading thread's eviction (a flash hit promoted into DRAM evicts a dirty entry) never waits for it.
      cache.put(key(2 * n), value(2 * n, 1, SMALL)); // at least one dirty entry stays in DRAM
      long[] longestGet = {0};
      assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
        for (int i = 0; i < n; i++) {
          long t0 = System.nanoTime();
          byte[] v = cache.get(key(i));
          longestGet[0] = Math.max(longestGet[0], (System.nanoTime() - t0) / 1_000_000);
          if (v != null) {
            assertArrayEquals(value(i, 1, SMALL), v, "key " + i);
          }
        }
      }, "gets hang behind the hung small-engine device");
      assertTrue(longestGet[0] < waitMillis, "a get waited " + longestGet[0] + " ms");
      device.get().releaseWrites();
      long admitted = cache.stats().smallObjects().objectsAdmitted();
      assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
        for (int i = 3 * n; cache.stats().smallObjects().objectsAdmitted() == admitted; i++) {
          cache.put(key(i), value(i, 1, SMALL)); // taken again once the device moves
        }
      }, "evictions are never taken again after the device moved");
    } finally {
      device.get().releaseWrites();
      assertTimeoutPreemptively(Duration.ofSeconds(20), cache::close);
      assertTrue(cache.flashTier().awaitClosed(30, TimeUnit.SECONDS), "close ends once the device moved");
    }
  }

  /**
   * The log engine's interrupted-caller twin ({@code FaultIsolationTest.anInterruptedReaderCostsAtMostItsOwnMissAndKeepsItsFlag}):
   * a caller with its interrupt flag set reads, puts and removes small keys as any other (its reads are
   * served, its removes take effect), keeps its flag, and costs the engine nothing (no fault, no reset).
   */
  @Test
  void anInterruptedCallerKeepsItsFlagAndCostsTheEngineNothing() throws Exception {
    try (Engine cache = filledAndQuiet()) {
      int before = KEYS - readAll(cache, 1);
      assertTrue(before > KEYS / 2, before + " small hits");
      int[] served = {0};
      CompletableFuture.runAsync(() -> {
        try {
          for (int i = 0; i < KEYS; i++) {
            Thread.currentThread().interrupt();
            byte[] v = cache.get(key(i));
            assertTrue(Thread.currentThread().isInterrupted(), "the caller keeps its interrupt (get)");
            if (v != null) {
              assertArrayEquals(value(i, 1, SMALL), v, "key " + i);
              served[0]++;
            }
            if (i % 10 == 0) {
              cache.remove(key(i)); // a remove reads and rewrites the key's set
              assertTrue(Thread.currentThread().isInterrupted(), "the caller keeps its interrupt (remove)");
            }
          }
        } finally {
          Thread.interrupted();
        }
      }, r -> new Thread(r).start()).get(60, TimeUnit.SECONDS);
      assertEquals(before, served[0], "an interrupted caller's reads are served as any other's: " + cache.stats().smallObjects() + " " + cache.stats());
      SmallObjectStats s = cache.stats().smallObjects();
      assertEquals(0, s.faults(), s.toString());
      assertEquals(0, s.resets(), s.toString());
      cache.dramTier().clear();
      for (int i = 0; i < KEYS; i += 10) {
        assertEquals(null, cache.get(key(i)), "removed key " + i);
      }
      int after = 0;
      for (int i = 1; i < KEYS; i++) {
        after += i % 10 != 0 && cache.get(key(i)) != null ? 1 : 0;
      }
      assertTrue(after >= before * 8 / 10, after + " of the other keys still served (" + before + " before)");
    }
  }
}
