package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.api.SmallObjectStats;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The small-object engine wired into the cache (issue 27): configuration, the size switch on the write
 * path, reads through both engines, a key moving between engines never serving an older version, remove,
 * TTL, clear, keys(), stats over both engines, a cold reopen, and the segment-size rule for small budgets.
 */
class SmallEngineWiringTest {
  static final int SMALL = 100;
  static final int LARGE = 3000;

  @TempDir
  Path dir;

  /** 1 MiB of flash, half of it for the small engine (108 sets of 4 KiB, a log of 12 pages). */
  static CacheConfig.Builder config(Path dir) {
    return TestCaches.small(dir, IndexType.HEAP).smallObjectShare(0.5).smallObjectMaxBytes(2048);
  }

  /**
   * The engine on, a clean close (its checkpoint saved), then an open with it off on a log engine of the same
   * layout that removes a key, then on again: the removed version must not come back from the first
   * session's checkpoint (the review's finding: an open with the engine off leaves no file of it behind).
   */
  @Test
  void anOpenWithTheEngineOffLeavesNothingOfItThatAnOpenWithItOnCouldServe() throws Exception {
    CacheConfig on = config(dir).build();
    CacheConfig off = TestCaches.small(dir, IndexType.HEAP).flashBytes(on.logFlashBytes()).build();
    assertEquals(on.segmentCount(), off.segmentCount(), "the log engine's layout is the same: no layout change");
    try (Engine cache = TestCaches.open(on)) {
      cache.put(key(1), value(1, 1, SMALL));
      cache.writeBackAndDropDram();
      assertArrayEquals(value(1, 1, SMALL), cache.smallTier().get(key(1)), "v1 in the small engine");
    }
    try (Engine cache = TestCaches.open(off)) {
      assertNull(cache.smallTier());
      cache.remove(key(1));
    }
    try (Engine cache = TestCaches.open(on)) {
      assertTrue(cache.get(key(1)) == null, "removed while the engine was off, served again");
    }
  }

  @Test
  void offByDefaultAndTodaysBehaviourIsUnchanged() throws Exception {
    CacheConfig c = TestCaches.small(dir, IndexType.HEAP).build();
    assertEquals(0, c.smallObjectShare());
    assertEquals(CacheConfig.DEFAULT_SMALL_OBJECT_MAX_BYTES, c.smallObjectMaxBytes());
    assertEquals(16, c.segmentCount(), "the whole budget is the log engine's");
    try (Engine cache = TestCaches.open(c)) {
      assertNull(cache.smallTier());
      cache.put(key(1), value(1, 1, SMALL));
      cache.writeBackAndDropDram();
      assertArrayEquals(value(1, 1, SMALL), cache.get(key(1)));
      assertEquals(SmallObjectStats.OFF, cache.stats().smallObjects());
      assertEquals(1, cache.stats().logEngineEntries());
    }
    assertFalse(Files.exists(dir.resolve(OwnedFiles.SMALL)), "no small-object files when it is off");
  }

  @Test
  void configurationIsValidatedAndNamesTheBadValue() {
    for (double bad : new double[] {-0.1, 0.95, Double.NaN, 1}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> config(dir).smallObjectShare(bad).build());
      assertTrue(e.getMessage().startsWith("smallObjectShare") && e.getMessage().contains(String.valueOf(bad)),
          e.getMessage());
    }
    for (int bad : new int[] {0, -1, CacheConfig.MAX_SMALL_OBJECT_BYTES + 1}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> config(dir).smallObjectMaxBytes(bad).build());
      assertTrue(e.getMessage().startsWith("smallObjectMaxBytes") && e.getMessage().contains(String.valueOf(bad)),
          e.getMessage());
    }
    for (double bad : new double[] {0, 0.04, 0.51, Double.NaN}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> config(dir).smallObjectLogShare(bad).build());
      assertTrue(e.getMessage().startsWith("smallObjectLogShare") && e.getMessage().contains(String.valueOf(bad)),
          e.getMessage());
    }
    assertEquals(CacheConfig.DEFAULT_SMALL_OBJECT_LOG_SHARE, config(dir).build().smallObjectLogShare());
    assertEquals(0.4, config(dir).smallObjectLogShare(0.4).build().toBuilder().build().smallObjectLogShare());
    IllegalArgumentException tooSmall = assertThrows(IllegalArgumentException.class,
        () -> config(dir).smallObjectShare(0.05).build()); // 52 KiB of 1 MiB
    assertTrue(tooSmall.getMessage().startsWith("smallObjectShare"), tooSmall.getMessage());
    IllegalArgumentException noRoomForLog = assertThrows(IllegalArgumentException.class,
        () -> config(dir).smallObjectShare(0.8).build()); // 3 segments of 64 KiB left
    assertTrue(noRoomForLog.getMessage().startsWith("flashBytes") && noRoomForLog.getMessage().contains("0.8"),
        noRoomForLog.getMessage());
    CacheConfig ok = config(dir).smallObjectMaxBytes(CacheConfig.MAX_SMALL_OBJECT_BYTES).build();
    assertEquals(512 * 1024, ok.smallObjectBytes());
    assertEquals(512 * 1024, ok.logFlashBytes());
    assertEquals(8, ok.segmentCount(), "the log engine holds the other half");
    CacheConfig again = ok.toBuilder().build();
    assertEquals(0.5, again.smallObjectShare());
    assertEquals(CacheConfig.MAX_SMALL_OBJECT_BYTES, again.smallObjectMaxBytes());
    assertTrue(ok.isSmallObject(24, 4016) && !ok.isSmallObject(24, 4017));
  }

  /** Issue 27: "flashBytes(256 MiB) alone is refused by build() today"; the segment follows the budget. */
  @Test
  void theDefaultSegmentSizeFollowsTheLogEnginesBudget() {
    long mib = CacheConfig.MIB;
    CacheConfig c256 = CacheConfig.builder(dir).flashBytes(256 * mib).build();
    assertEquals(16 * mib, c256.segmentBytes());
    assertEquals(16, c256.segmentCount());
    CacheConfig c384 = CacheConfig.builder(dir).flashBytes(384 * mib).build();
    assertEquals(16 * mib, c384.segmentBytes(), "384/16 = 24 MiB, rounded down to a power of two");
    assertEquals(24, c384.segmentCount());
    CacheConfig gib = CacheConfig.builder(dir).flashBytes(CacheConfig.GIB).build();
    assertEquals(64 * mib, gib.segmentBytes(), "1 GiB and more keep today's 64 MiB");
    assertEquals(64 * mib, CacheConfig.builder(dir).flashBytes(64 * CacheConfig.GIB).build().segmentBytes());
    CacheConfig split = CacheConfig.builder(dir).flashBytes(CacheConfig.GIB).smallObjectShare(0.5).build();
    assertEquals(32 * mib, split.segmentBytes(), "derived from the log engine's half");
    assertEquals(16, split.segmentCount());
    CacheConfig tiny = CacheConfig.builder(dir).flashBytes(16 * mib).build();
    assertEquals(2 * mib, tiny.segmentBytes(), "at least a 1 MiB write buffer + header and summary pages");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CacheConfig.builder(dir).flashBytes(8 * mib).build());
    assertTrue(e.getMessage().startsWith("flashBytes") && e.getMessage().contains("derived"), e.getMessage());
    CacheConfig set = CacheConfig.builder(dir).flashBytes(256 * mib).segmentBytes(4 * mib).build();
    assertEquals(4 * mib, set.segmentBytes(), "a set size is kept");
    assertEquals(16 * mib, c256.toBuilder().build().segmentBytes());
    assertEquals(64 * mib, c256.toBuilder().flashBytes(CacheConfig.GIB).build().segmentBytes(),
        "toBuilder keeps deriving");
  }

  @Test
  void smallEntriesGoToTheSmallEngineAndLargeOnesToTheLogAndStatsCoverBoth() {
    try (Engine cache = TestCaches.open(config(dir).build())) {
      putAndWriteBack(cache, 100, i -> i % 5 == 0);
      for (int i = 0; i < 100; i++) {
        assertArrayEquals(value(i, 1, i % 5 == 0 ? LARGE : SMALL), cache.get(key(i)), "key " + i);
      }
      CacheStats s = cache.stats();
      SmallObjectStats so = s.smallObjects();
      assertTrue(so.enabled());
      assertEquals(80, so.objectsAdmitted());
      long admitted = 0;
      for (int i = 0; i < 100; i++) {
        admitted += i % 5 == 0 ? 0 : EntryFormat.entryBytes(key(i).length, SMALL);
      }
      assertEquals(admitted, so.bytesAdmitted(), "entry bytes, as the log engine counts them");
      assertEquals(20, s.logEngineEntries(), "only the large entries are in the log engine's index");
      assertEquals(20 + so.entries(), s.flashEntries());
      assertEquals(100, s.flashHits());
      assertEquals(80, so.hits());
      assertTrue(s.bytesAdmitted() > so.bytesAdmitted() && s.indexMemoryBytes() > so.dramBytes());
      assertEquals(s.flashEntries() - so.entries(), s.logEngineEntries());
      assertTrue(so.dramBytes() > 0);
    }
  }

  /**
   * Regression: deviceReads counted the small engine's set-page reads but not the log-page reads of lookups,
   * so a hit served from a log page on flash looked free.
   */
  @Test
  void lookupsServedFromLogPagesOnFlashCountInDeviceReads() {
    try (Engine cache = TestCaches.open(config(dir).build())) {
      int n = 40; // more than a log page holds: the first ones are on flash, the last in the write buffer
      putAndWriteBack(cache, n, i -> false);
      CacheStats before = cache.stats();
      for (int i = 0; i < n; i++) {
        assertArrayEquals(value(i, 1, SMALL), cache.get(key(i)), "key " + i);
      }
      CacheStats after = cache.stats();
      SmallObjectStats b = before.smallObjects();
      SmallObjectStats a = after.smallObjects();
      assertEquals(n, a.logHits() - b.logHits(), "all served by the log (nothing moved to a set yet)");
      assertEquals(0, a.pageReads() - b.pageReads());
      long logReads = a.logPageReads() - b.logPageReads();
      assertTrue(logReads >= n - SmallLog.OBJECTS_PER_PAGE, logReads + " log-page reads");
      assertEquals(logReads, after.deviceReads() - before.deviceReads(), "each in deviceReads");
      assertEquals(a.pageReads() + a.logPageReads(), a.deviceReads());
    }
  }

  /**
   * Regression: the set pages that puts and removes read (a set rewrite is a read-modify-write) counted as
   * set-page reads of lookups, so deviceReads grew with writes alone.
   */
  @Test
  void putsAndRemovesAloneMakeNoDeviceReads() {
    try (Engine cache = TestCaches.open(config(dir).build())) {
      putAndWriteBack(cache, 1500, i -> false);
      for (int i = 0; i < 1500; i += 3) {
        cache.remove(key(i));
      }
      CacheStats s = cache.stats();
      assertTrue(s.smallObjects().setRewrites() > 0 && s.smallObjects().bloomFalsePositiveReads() == 0,
          s.smallObjects().toString());
      assertEquals(0, s.deviceReads(), "no lookup ran");
      assertEquals(0, s.smallObjects().pageReads());
    }
  }

  @Test
  void aKeyMovingBetweenEnginesNeverServesItsOlderVersion() {
    try (Engine cache = TestCaches.open(config(dir).build())) {
      byte[] k = key(7);
      long hash = new ByteKey(k).hash64();
      cache.put(k, value(7, 1, LARGE));
      cache.writeBackAndDropDram();
      assertTrue(cache.flashTier().address(hash) != IndexEntry.NONE, "v1 in the log engine");
      cache.put(k, value(7, 2, SMALL));
      assertEquals(IndexEntry.NONE, cache.flashTier().address(hash), "the put removed the log engine's v1");
      cache.writeBackAndDropDram();
      assertArrayEquals(value(7, 2, SMALL), cache.get(k));
      cache.dramTier().clear();
      assertArrayEquals(value(7, 2, SMALL), cache.smallTier().get(k), "v2 in the small engine");
      cache.put(k, value(7, 3, LARGE));
      assertArrayEquals(value(7, 2, SMALL), cache.smallTier().get(k), "a put without a TTL leaves v2 in place");
      assertTrue(cache.dramTier().get(new ByteKey(k)).smallStale(), "and flags v3 to remove it on its way out");
      cache.writeBackAndDropDram();
      assertNull(cache.smallTier().get(k), "v3's write to the log engine removed v2 first");
      assertArrayEquals(value(7, 3, LARGE), cache.get(k));
      cache.dramTier().clear();
      cache.put(k, value(7, 4, SMALL));
      cache.writeBackAndDropDram();
      assertTrue(cache.remove(k), "remove finds the small engine's version");
      assertNull(cache.get(k));
      assertNull(cache.smallTier().get(k));
      assertFalse(cache.containsKey(k));
    }
  }

  /**
   * Issue 27: a put over a version in the small engine does no I/O there (it cost a set page's read and
   * rewrite); the older version stays until the newer one is evicted into the small engine's log, which
   * shadows it, and the key never serves it meanwhile or after.
   */
  @Test
  void aPutOverASmallEngineVersionDoesNoIoAndItsEvictionShadowsTheOlder() {
    try (Engine cache = TestCaches.open(config(dir).build())) {
      int n = 1500; // more than the small log holds (30 pages of ~31): some move to their sets
      putAndWriteBack(cache, n, i -> false);
      int present = 0;
      for (int i = 0; i < n; i++) {
        present += cache.smallTier().get(key(i)) != null ? 1 : 0;
      }
      SmallObjectStats before = cache.stats().smallObjects();
      assertTrue(before.setRewrites() > 0 && present > n / 2, present + " present, " + before);
      for (int i = 0; i < n; i++) {
        cache.put(key(i), value(i, 2, SMALL));
        assertArrayEquals(value(i, 2, SMALL), cache.get(key(i)));
      }
      SmallObjectStats after = cache.stats().smallObjects();
      assertEquals(before.pageReads(), after.pageReads(), "no set page read by the puts");
      assertEquals(before.bytesWritten(), after.bytesWritten(), "no page written by the puts");
      int flagged = 0;
      for (int i = 0; i < n; i++) {
        flagged += cache.dramTier().get(new ByteKey(key(i))).smallStale() ? 1 : 0;
      }
      assertTrue(flagged >= present, flagged + " flagged of " + present + " present: each carries the duty");
      cache.writeBackAndDropDram();
      assertNeverOlder(cache, n, 2);
      for (int i = n; i < 8 * n; i++) { // other keys through the log: the v2s move to their sets or leave
        cache.put(key(i), value(i, 1, SMALL));
      }
      cache.writeBackAndDropDram();
      assertTrue(cache.stats().smallObjects().setRewrites() > after.setRewrites() + n / 10);
      assertNeverOlder(cache, n, 2);
    }
  }

  /** Every key in [0, n) misses or serves {@code version}; empties DRAM after. */
  private static void assertNeverOlder(Engine cache, int n, long version) {
    for (int i = 0; i < n; i++) {
      byte[] v = cache.get(key(i));
      assertTrue(v == null || TestCaches.versionOf(i, v) == version,
          "key " + i + " served version " + (v == null ? 0 : TestCaches.versionOf(i, v)));
    }
    cache.dramTier().clear();
  }

  /** A flagged entry that leaves DRAM refused by admission first removes the small engine's older version. */
  @Test
  void aRefusedEvictionRemovesTheOlderSmallVersion() {
    boolean[] admit = {true};
    io.hybridcache.core.api.AdmissionPolicy gate = new io.hybridcache.core.api.AdmissionPolicy() {
      @Override
      public boolean accept(long keyHash, int bytes) {
        return admit[0];
      }

      @Override
      public long rejected() {
        return 0;
      }

      @Override
      public String name() {
        return "gate";
      }
    };
    try (Engine cache = TestCaches.open(config(dir).admission(gate).build())) {
      byte[] k = key(5);
      cache.put(k, value(5, 1, SMALL));
      cache.writeBackAndDropDram();
      cache.put(k, value(5, 2, SMALL));
      assertArrayEquals(value(5, 1, SMALL), cache.smallTier().get(k), "left in place by the put");
      admit[0] = false;
      cache.dramTier().setMaximumBytes(0); // evicts v2, which admission refuses
      cache.dramTier().cleanUp();
      assertNull(cache.dramTier().get(new ByteKey(k)));
      assertNull(cache.smallTier().get(k), "the refused eviction removed v1 first");
      assertNull(cache.get(k), "a miss, never v1");
    }
  }

  /** Many keys, versions alternating small and large, each checked after every round: never older. */
  @Test
  void alternatingSizesAgainstAReferenceModel() {
    try (Engine cache = TestCaches.open(config(dir).build())) {
      int keys = 300;
      long[] newest = new long[keys];
      java.util.Random rnd = new java.util.Random(27);
      for (int round = 1; round <= 12; round++) {
        roundOfPutsAndRemoves(cache, newest, round, rnd, 6, true);
      }
      assertTrue(cache.stats().smallObjects().hits() > 0 && cache.stats().logEngineEntries() > 0);
    }
  }

  /** Puts version 1 of keys 0..n-1, large where {@code large} says so, then writes back and drops DRAM. */
  static void putAndWriteBack(Engine cache, int n, java.util.function.IntPredicate large) {
    for (int i = 0; i < n; i++) {
      cache.put(key(i), value(i, 1, large.test(i) ? LARGE : SMALL));
    }
    cache.writeBackAndDropDram();
  }

  /**
   * Puts (in {@code puts} of 10 cases, small or, if {@code mixed}, large at random) or removes (1 in 10) each
   * key, writes back and drops DRAM, then checks every key serves its newest version or misses; returns the hits.
   */
  static int roundOfPutsAndRemoves(Engine cache, long[] newest, int round, java.util.Random rnd, int puts,
      boolean mixed) {
    for (int i = 0; i < newest.length; i++) {
      int dice = rnd.nextInt(10);
      if (dice < puts) {
        newest[i] = round;
        cache.put(key(i), value(i, round, mixed && rnd.nextBoolean() ? LARGE : SMALL));
      } else if (dice == puts) {
        newest[i] = 0;
        cache.remove(key(i));
      }
    }
    cache.writeBackAndDropDram();
    int hits = 0;
    for (int i = 0; i < newest.length; i++) {
      byte[] v = cache.get(key(i));
      if (v != null) {
        assertEquals(newest[i], TestCaches.versionOf(i, v), "round " + round + " key " + i);
        hits++;
      }
    }
    cache.dramTier().clear();
    return hits;
  }

  /**
   * A small entry with a TTL goes to the small engine, which enforces its expiry; a hit there is promoted to
   * DRAM with that expiry, so the DRAM copy expires with it.
   */
  @Test
  void entriesWithATtlExpireInTheSmallEngineAndTheirPromotedCopiesToo() {
    try (Engine cache = TestCaches.open(config(dir).build())) {
      cache.put(key(1), value(1, 1, SMALL), Duration.ofMillis(300));
      long expiry = cache.dramTier().get(new ByteKey(key(1))).expiryMillis();
      cache.writeBackAndDropDram();
      assertEquals(1, cache.stats().smallObjects().objectsAdmitted());
      assertEquals(0, cache.stats().logEngineEntries());
      assertArrayEquals(value(1, 1, SMALL), cache.smallTier().get(key(1)), "in the small engine");
      assertArrayEquals(value(1, 1, SMALL), cache.get(key(1)));
      DramEntry promoted = cache.dramTier().get(new ByteKey(key(1)));
      assertEquals(expiry, promoted == null ? -1 : promoted.expiryMillis(), "promoted with its expiry");
      long until = System.currentTimeMillis() + 5_000;
      while (cache.get(key(1)) != null && System.currentTimeMillis() < until) {
        Thread.onSpinWait(); // waiting for the clock, not for another thread
      }
      assertNull(cache.get(key(1)), "expired in DRAM");
      cache.dramTier().clear();
      assertNull(cache.get(key(1)), "expired in the small engine");
      assertNull(cache.smallTier().get(key(1)));
      for (int i = 2; i < 50; i++) {
        cache.put(key(i), value(i, 1, SMALL));
      }
      cache.writeBackAndDropDram();
      for (int i = 2; i < 50; i++) {
        assertArrayEquals(value(i, 1, SMALL), cache.get(key(i)));
        assertEquals(0, cache.dramTier().get(new ByteKey(key(i))).expiryMillis(), "key " + i + " promoted, no TTL");
      }
    }
  }


  @Test
  void clearEmptiesBothEngines() {
    try (Engine cache = TestCaches.open(config(dir).build())) {
      putAndWriteBack(cache, 50, i -> i % 2 != 0);
      cache.clear();
      for (int i = 0; i < 50; i++) {
        assertNull(cache.get(key(i)), "key " + i);
      }
      assertEquals(1, cache.stats().smallObjects().resets());
      cache.put(key(1), value(1, 2, SMALL));
      cache.writeBackAndDropDram();
      assertArrayEquals(value(1, 2, SMALL), cache.get(key(1)), "the emptied engine takes new entries");
    }
  }

  /** keys() lists the small engine's keys too (sets and log pages), without emptying it. */
  @Test
  void keysReturnsEveryKeyOfBothEnginesAndKeepsThem() {
    try (Engine cache = TestCaches.open(config(dir).build())) {
      int n = 1500; // small keys in sets and in log pages, every third in the log engine
      putAndWriteBack(cache, n, i -> i % 3 == 0);
      for (int i = n; i < n + 10; i++) {
        cache.put(key(i), value(i, 1, SMALL)); // in DRAM
      }
      Set<Integer> held = new HashSet<>();
      for (int i = 0; i < n; i++) {
        if (i % 3 == 0 ? cache.flashTier().address(new ByteKey(key(i)).hash64()) != IndexEntry.NONE
            : cache.smallTier().get(key(i)) != null) {
          held.add(i);
        }
      }
      assertTrue(held.size() > n / 2, held.size() + " held");
      Set<Integer> listed = new HashSet<>();
      for (Iterator<byte[]> it = cache.keys(); it.hasNext(); ) {
        listed.add(TestCaches.keyIndex(it.next()));
      }
      for (int i : held) {
        assertTrue(listed.contains(i), (i % 3 == 0 ? "log engine" : "small engine") + " key " + i);
      }
      for (int i = n; i < n + 10; i++) {
        assertTrue(listed.contains(i), "DRAM key " + i);
      }
      assertEquals(0, cache.stats().smallObjects().resets(), "the small engine was listed, not emptied");
      cache.dramTier().clear();
      int still = 0;
      for (int i : held) {
        still += cache.get(key(i)) != null ? 1 : 0;
      }
      assertEquals(held.size(), still, "every key is still served after keys()");
    }
  }


  /**
   * After a clean close the small engine opens warm (its DRAM entries were written back into it, its state
   * saved): what it held comes back, removed keys and overwritten versions do not; a damaged checkpoint
   * opens cold.
   */
  @Test
  void aReopenAfterACleanCloseIsWarmForBothEngines() throws Exception {
    CacheConfig c = config(dir).build();
    int n = 1500; // more than the small log holds: sets and log pages both
    try (Engine cache = TestCaches.open(c)) {
      putAndWriteBack(cache, n, i -> i % 10 == 9);
      for (int i = 0; i < n; i += 7) {
        cache.remove(key(i)); // removed before the close: never back
      }
      for (int i = 1; i < n; i += 7) {
        cache.put(key(i), value(i, 2, SMALL)); // in DRAM at the close, over a version on flash
      }
    }
    Path checkpoint = dir.resolve(OwnedFiles.SMALL).resolve(SmallCheckpoint.FILE);
    assertTrue(Files.exists(checkpoint), "a clean close saves the small engine");
    int hits = 0;
    try (Engine cache = TestCaches.open(c)) {
      assertTrue(cache.smallTier().openedWarm());
      assertFalse(Files.exists(checkpoint), "deleted by the open, before anything is served");
      for (int i = 0; i < n; i++) {
        byte[] v = cache.get(key(i));
        if (i % 7 == 0) {
          assertNull(v, "removed key " + i);
        } else if (v != null) {
          assertEquals(i % 7 == 1 ? 2 : 1, TestCaches.versionOf(i, v), "key " + i);
          hits++;
        }
      }
      assertTrue(hits > n * 8 / 10, hits + " of " + n + " keys served after a warm open");
      assertTrue(cache.stats().smallObjects().hits() > n / 2, "from the small engine");
    }
    byte[] bytes = Files.readAllBytes(checkpoint); // the second close saved again
    bytes[bytes.length / 2] ^= 1;
    Files.write(checkpoint, bytes);
    try (Engine cache = TestCaches.open(c)) {
      assertFalse(cache.smallTier().openedWarm(), "a damaged checkpoint: cold");
      assertFalse(Files.exists(checkpoint));
      for (int i = 0; i < n; i++) {
        byte[] v = cache.get(key(i));
        if (i % 10 != 9) {
          assertNull(v, "small key " + i + " after a cold open");
        }
      }
    }
  }

  /**
   * After a warm open the checkpoint is gone, so an open that follows without a clean close (a crash;
   * here: the device files kept, the checkpoint absent) is cold: removes made since the warm open are
   * recorded nowhere on flash and must not be undone.
   */
  @Test
  void anOpenWithoutACheckpointIsColdEvenIfTheSlotFilesRemain() throws Exception {
    CacheConfig c = config(dir).build();
    try (Engine cache = TestCaches.open(c)) {
      putAndWriteBack(cache, 200, i -> false);
    }
    Path small = dir.resolve(OwnedFiles.SMALL);
    Files.delete(small.resolve(SmallCheckpoint.FILE)); // what a crash after a warm open leaves
    try (Engine cache = TestCaches.open(c)) {
      assertFalse(cache.smallTier().openedWarm());
      for (int i = 0; i < 200; i++) {
        assertNull(cache.get(key(i)), "key " + i);
      }
    }
  }


  /**
   * {@code smallObjectLogShare} sets how much of the engine's flash its log takes (in twentieths): a larger log
   * holds more objects before reclaim moves them into sets. A changed share is another layout: the next open
   * is cold (the checkpoint's geometry no longer fits), never served from the other layout's pages.
   */
  @Test
  void theLogShareSizesTheLogAndAChangedShareOpensCold() {
    assertEquals(2, SmallTier.logSlots(0.1));
    assertEquals(5, SmallTier.logSlots(CacheConfig.DEFAULT_SMALL_OBJECT_LOG_SHARE));
    assertEquals(8, SmallTier.logSlots(0.4));
    assertEquals(10, SmallTier.logSlots(CacheConfig.MAX_SMALL_OBJECT_LOG_SHARE));
    long[] logObjects = new long[2];
    long[] logPages = new long[2];
    long[] sets = new long[2];
    double[] shares = {0.1, 0.4};
    for (int i = 0; i < shares.length; i++) {
      Path d = dir.resolve("share-" + i);
      try (Engine cache = TestCaches.open(config(d).smallObjectLogShare(shares[i]).build())) {
        for (int k = 0; k < 20_000; k++) {
          cache.put(key(k), value(k, 1, SMALL));
        }
        cache.writeBackAndDropDram();
        logObjects[i] = cache.smallTier().logObjects();
        logPages[i] = cache.smallTier().logPages();
        sets[i] = cache.smallTier().sets();
      }
    }
    assertEquals(4 * logPages[0], logPages[1], "log pages at shares 0.1 / 0.4 (2 and 8 of 20 slots)");
    assertEquals(12 * sets[0], 18 * sets[1], "sets at shares 0.1 / 0.4 (18 and 12 of 20 slots)");
    assertTrue(logObjects[1] > logObjects[0], "objects in the log at shares 0.1 / 0.4: " + logObjects[0]
        + " / " + logObjects[1]);
    Path d = dir.resolve("share-1"); // closed cleanly at 0.4: warm at 0.4, cold at another share
    try (Engine cache = TestCaches.open(config(d).smallObjectLogShare(0.25).build())) {
      assertFalse(cache.smallTier().openedWarm(), "another layout opens cold");
      assertEquals(0, cache.stats().smallObjects().entries());
      for (int k = 0; k < 20_000; k += 97) {
        assertNull(cache.get(key(k)), "key " + k + " served from another layout");
      }
    }
  }
}
