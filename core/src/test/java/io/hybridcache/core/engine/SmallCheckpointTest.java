package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.SmallObjectStats;
import io.hybridcache.core.device.FaultInjectingDevice;
import io.hybridcache.core.device.FileDevice;
import io.hybridcache.core.device.PowerFailDevice;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The small-object engine's close-time checkpoint and warm open (issue 34, items 1, 4 and 8): a warm open
 * raises the cache's sequence counter above every version the engine holds, whatever state the log engine
 * opened in; the slot files are durable before the checkpoint says they are; the checkpoint is streamed
 * (no array per object at close) and a bad one opens cold, once.
 */
class SmallCheckpointTest {
  static final int SMALL = 100;

  @TempDir
  Path dir;

  /** 1 MiB of flash, half of it for the small engine (90 sets of 4 KiB, a log of 30 pages). */
  static CacheConfig.Builder config(Path dir) {
    return SmallEngineWiringTest.config(dir);
  }

  /**
   * Item 1: the small engine opens warm beside a log engine that opened unclean (here its device's sync
   * fails at close, so it saves nothing and writes no {@code CLEAN}; a kill -9 between the two saves or a
   * full disk failing the index checkpoint leave the same). An all-small workload never raised the log
   * engine's lease, so its counter restarts low; the warm open must raise it above every version the small
   * engine holds, or a new put gets a lower sequence than the old version it replaces and the set's merge
   * keeps the old one.
   */
  @Test
  void aWarmSmallEngineBesideAnUncleanLogEngineNeverServesTheOlderVersion() throws Exception {
    CacheConfig c = config(dir).build();
    int n = 1500;
    long before;
    AtomicReference<FaultInjectingDevice> log = new AtomicReference<>();
    FlashOpener.DeviceFactory devices = (d, slots, bytes, direct) -> d.getFileName().toString().equals(OwnedFiles.SMALL)
        ? FileDevice.open(d, slots, bytes, direct)
        : setAndGet(log, new FaultInjectingDevice(FileDevice.open(d, slots, bytes, direct)));
    try (Engine cache = Engine.open(c, devices)) {
      for (int version = 0; version <= 1; version++) { // v1 gets sequences n+1..2n: above v2's after a reset
        putAll(cache, n, version);
      }
      before = cache.sequence();
      log.get().failSyncs();
    }
    assertTrue(Files.exists(dir.resolve(OwnedFiles.SMALL).resolve(SmallCheckpoint.FILE)), "the small engine saved");
    assertFalse(Files.exists(dir.resolve(FlashOpener.CLEAN_MARKER)), "the log engine did not");
    try (Engine cache = Engine.open(c, devices)) {
      assertTrue(cache.smallTier().openedWarm(), "the small engine opened warm");
      assertTrue(cache.sequence() >= before, "the sequence counter " + cache.sequence()
          + " is at least that of the close, " + before + ", the highest the small engine may hold");
      putAll(cache, n, 2);
      churnUntilEverySetMoved(cache, n);
      int v2 = 0;
      for (int i = 0; i < n; i++) {
        byte[] v = cache.get(key(i));
        if (v != null) {
          assertEquals(2, TestCaches.versionOf(i, v), "key " + i + ": the last put was v2");
          v2++;
        }
      }
      assertTrue(v2 > 0, "some keys still served");
    }
  }

  private static <T> T setAndGet(AtomicReference<T> ref, T value) {
    ref.set(value);
    return value;
  }

  /** Puts other keys until the sets were each rewritten several times over and the log lapped thrice. */
  private static void churnUntilEverySetMoved(Engine cache, int from) {
    SmallTier small = cache.smallTier();
    SmallObjectStats start = cache.stats().smallObjects();
    long logBytes = small.logPages() * SmallSetPage.PAGE_BYTES;
    int next = from + 1_000_000;
    for (int round = 0; ; round++) {
      SmallObjectStats now = cache.stats().smallObjects();
      if (now.setRewrites() - start.setRewrites() >= 4 * small.sets()
          && now.bytesWritten() - start.bytesWritten() >= 3 * logBytes) {
        return;
      }
      assertTrue(round < 500, "the churn never moved every set: " + now);
      for (int i = 0; i < 300; i++, next++) {
        cache.put(key(next), value(next, 1, SMALL));
      }
      cache.writeBackAndDropDram();
    }
  }

  /**
   * Item 4: after a clean close, an OS crash or power loss may undo every write the device was not told to
   * make durable; a set page that reverts to an older image of the same epoch (a valid page) must not be
   * served by the warm open that follows, so the slot files are synced before the checkpoint is written.
   */
  @Test
  void aPowerFailAfterACleanCloseNeverServesAnOlderVersion() throws Exception {
    CacheConfig c = config(dir).build();
    PowerFailDevice.Images images = new PowerFailDevice.Images();
    FlashOpener.DeviceFactory devices = (d, slots, bytes, direct) -> d.getFileName().toString().equals(OwnedFiles.SMALL)
        ? new PowerFailDevice(FileDevice.open(d, slots, bytes, direct), d, images)
        : FileDevice.open(d, slots, bytes, direct);
    int n = 1500; // more than the log holds: sets are written in both sessions
    try (Engine cache = Engine.open(c, devices)) {
      putAll(cache, n, 1);
    }
    images.settled(); // the kernel wrote back v1 in its own time
    try (Engine cache = Engine.open(c, devices)) {
      assertTrue(cache.smallTier().openedWarm());
      putAll(cache, n, 2);
    }
    images.powerFail(); // after the clean close: what was not synced reverts to v1's pages
    int v2 = 0;
    try (Engine cache = Engine.open(c, devices)) {
      assertTrue(cache.smallTier().openedWarm(), "the checkpoint was durable");
      for (int i = 0; i < n; i++) {
        byte[] v = cache.get(key(i));
        if (v != null) {
          assertEquals(2, TestCaches.versionOf(i, v), "key " + i + ": the last put was v2");
          v2++;
        }
      }
    }
    assertTrue(v2 > n / 2, v2 + " of " + n + " keys served warm");
  }

  private static void putAll(Engine cache, int n, int version) {
    for (int i = 0; i < n; i++) {
      cache.put(key(i), value(i, version, SMALL));
    }
    cache.writeBackAndDropDram();
  }

  /**
   * Item 8: a checkpoint that cannot even be read into memory (here 3 GiB, sparse: more than an array
   * holds) opens cold, is deleted, and the open after works; never an Error out of the open, never a
   * directory that no later open can use.
   */
  @Test
  void aCheckpointTooLargeToReadOpensColdAndOnlyOnce() throws Exception {
    CacheConfig c = config(dir).build();
    try (Engine cache = TestCaches.open(c)) {
      putAll(cache, 200, 1);
    }
    Path checkpoint = dir.resolve(OwnedFiles.SMALL).resolve(SmallCheckpoint.FILE);
    try (RandomAccessFile f = new RandomAccessFile(checkpoint.toFile(), "rw")) {
      f.setLength(3L << 30);
    }
    try (Engine cache = TestCaches.open(c)) {
      assertFalse(cache.smallTier().openedWarm(), "cold");
      assertFalse(Files.exists(checkpoint), "the bad checkpoint is deleted");
      putAll(cache, 200, 2);
    }
    try (Engine cache = TestCaches.open(c)) {
      assertTrue(cache.smallTier().openedWarm(), "the open after is warm again");
      assertEquals(2, TestCaches.versionOf(7, cache.get(key(7))));
    }
  }

  /**
   * Item 8: a checkpoint whose read throws an Error (injected: an OutOfMemoryError) or whose state does not
   * fit the region opens cold, is deleted, and the next open of the cache works (and is warm again).
   */
  @Test
  void aCheckpointWhoseReadThrowsAnErrorOrDoesNotFitOpensColdAndOnlyOnce() throws Exception {
    CacheConfig c = config(dir).build();
    Path checkpoint = dir.resolve(OwnedFiles.SMALL).resolve(SmallCheckpoint.FILE);
    List<SmallCheckpoint.Reader> bad = List.of((f, g) -> {
      throw new OutOfMemoryError("injected");
    }, (f, g) -> {
      SmallCheckpoint.Loaded l = SmallCheckpoint.read(f, g);
      return new SmallCheckpoint.Loaded(Long.MAX_VALUE, l.sets(), new SmallLog.Saved(l.log().epoch(),
          l.log().tailPage(), l.log().bufferPage(), new SmallLogIndex(1, 64, g.tagBits())));
    });
    for (SmallCheckpoint.Reader reader : bad) {
      try (Engine cache = TestCaches.open(c)) {
        putAll(cache, 200, 1);
      }
      assertTrue(Files.exists(checkpoint));
      SmallTier tier = SmallTier.open(c, FileDevice::open, null, reader);
      try {
        assertFalse(tier.openedWarm(), "cold");
        assertEquals(0, tier.maxSequence(), "nothing taken from the checkpoint");
        assertFalse(Files.exists(checkpoint), "the bad checkpoint is deleted");
      } finally {
        tier.close();
      }
      try (Engine cache = TestCaches.open(c)) {
        assertFalse(cache.smallTier().openedWarm(), "the next open works, cold");
        putAll(cache, 200, 2);
      }
      try (Engine cache = TestCaches.open(c)) {
        assertTrue(cache.smallTier().openedWarm(), "and the one after is warm again");
        assertEquals(2, TestCaches.versionOf(7, cache.get(key(7))));
      }
    }
  }

  /** 128 MiB of flash, 64 MiB for the small engine: a log of 4,095 pages (131,040 slots), 12,285 sets. */
  static CacheConfig largeish(Path dir) {
    return config(dir).flashBytes(128 * CacheConfig.MIB).build();
  }

  /**
   * Item 8: a large-ish engine (100,000 objects, all in its log, which it does not yet reclaim) saves
   * without an array per object (less than a byte of heap per object on the saving thread: the state is
   * streamed from the live index) and reopens warm with the same lookups: every key the same value and
   * sequence.
   */
  @Test
  void aLargeEngineSavesWithoutAnArrayPerObjectAndReopensWithTheSameLookups() throws Exception {
    CacheConfig c = largeish(dir);
    int n = 100_000;
    List<SmallSetPage.Entry> saved = new ArrayList<>(n);
    long logObjects;
    long allocated;
    long warmUp = saveAllocation(config(dir.resolve("warm-up")).build(), 100); // classes loaded, code compiled
    SmallTier tier = SmallTier.open(c, FileDevice::open, null);
    try {
      for (int i = 0; i < n; i++) {
        byte[] k = key(i);
        assertTrue(tier.put(k, new ByteKey(k).hash64(), value(i, 1, SMALL), i + 1, 0,
            System.nanoTime() + 10_000_000_000L), "put " + i);
      }
      tier.stopReclaimingAndWait();
      logObjects = tier.logObjects();
      assertEquals(n, logObjects, "every object in the log");
      for (int i = 0; i < n; i++) {
        saved.add(tier.lookup(key(i)));
      }
      long start = allocatedBytes();
      tier.close(true, System.nanoTime() + 10_000_000_000L);
      allocated = allocatedBytes() - start;
    } finally {
      tier.close();
    }
    System.out.println("SmallCheckpointTest: the save of " + logObjects + " log objects allocated " + allocated
        + " bytes of heap (of 100 objects, before: " + warmUp + " bytes)");
    assertTrue(allocated < logObjects, "the save allocated " + allocated + " B for " + logObjects
        + " log objects: less than a byte per object, so no array per object");
    SmallTier again = SmallTier.open(c, FileDevice::open, null);
    try {
      assertTrue(again.openedWarm());
      assertEquals(n, again.maxSequence(), "the highest sequence held");
      for (int i = 0; i < n; i++) {
        SmallSetPage.Entry was = saved.get(i);
        SmallSetPage.Entry is = again.lookup(key(i));
        assertNotNull(was, "key " + i);
        assertNotNull(is, "key " + i);
        assertArrayEquals(was.value(), is.value(), "key " + i);
        assertEquals(was.sequence(), is.sequence(), "key " + i);
      }
    } finally {
      again.close();
    }
  }

  /** Heap the save of a tier of {@code n} objects allocated on this thread. */
  private static long saveAllocation(CacheConfig c, int n) throws Exception {
    Files.createDirectories(c.directory());
    SmallTier tier = SmallTier.open(c, FileDevice::open, null);
    try {
      for (int i = 0; i < n; i++) {
        byte[] k = key(i);
        tier.put(k, new ByteKey(k).hash64(), value(i, 1, SMALL), i + 1, 0, System.nanoTime() + 10_000_000_000L);
      }
      tier.stopReclaimingAndWait();
      long start = allocatedBytes();
      tier.close(true, System.nanoTime() + 10_000_000_000L);
      return allocatedBytes() - start;
    } finally {
      tier.close();
    }
  }

  /** Heap this thread allocated so far (HotSpot's {@code com.sun.management} figure, read reflectively). */
  private static long allocatedBytes() {
    long b;
    try {
      Class<?> hotspot = Class.forName("com.sun.management.ThreadMXBean");
      Object mx = ManagementFactory.getThreadMXBean();
      Assumptions.assumeTrue(hotspot.isInstance(mx), "no per-thread allocation figures");
      b = (long) hotspot.getMethod("getCurrentThreadAllocatedBytes").invoke(mx);
    } catch (ReflectiveOperationException e) {
      Assumptions.abort("no per-thread allocation figures: " + e);
      return -1;
    }
    Assumptions.assumeTrue(b >= 0, "per-thread allocation figures off");
    return b;
  }
}
