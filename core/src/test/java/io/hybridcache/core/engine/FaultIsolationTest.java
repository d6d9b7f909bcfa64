package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.device.FaultInjectingDevice;
import io.hybridcache.core.device.FileDevice;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One fault costs the least it can: an interrupted reader its own lookup, a damaged segment file its
 * segment, a persistent fault the tier until recovery (which read-only load triggers too), and a bulk
 * invalidation that cannot scan the tier the whole flash index, never a partial result.
 */
class FaultIsolationTest {
  private static final int KEYS = 600;
  private static final int VALUE = 400;

  @TempDir Path dir;
  private final AtomicReference<FaultInjectingDevice> device = new AtomicReference<>();
  private final AtomicReference<FileDevice> files = new AtomicReference<>();

  private Engine open(CacheConfig cfg) {
    return Engine.open(cfg, (d, n, b, direct) -> {
      files.set(FileDevice.open(d, n, b, direct));
      device.set(new FaultInjectingDevice(files.get()));
      return device.get();
    });
  }

  /** KEYS entries, all on flash (DRAM emptied). */
  private static void fill(Engine c) {
    for (int i = 0; i < KEYS; i++) {
      c.put(key(i), value(i, 1, VALUE));
    }
    c.writeBackAndDropDram();
  }

  private static int flashHits(Engine c) {
    int hits = 0;
    for (int i = 0; i < KEYS; i++) {
      byte[] v = c.get(key(i));
      if (v != null) {
        assertArrayEquals(value(i, 1, VALUE), v, "never a wrong value");
        hits++;
      }
    }
    return hits;
  }

  @Test
  void anInterruptedReaderCostsAtMostItsOwnMissAndKeepsItsFlag() throws Exception {
    try (Engine c = open(TestCaches.small(dir, IndexType.HEAP).build())) {
      fill(c);
      byte[] got = CompletableFuture.supplyAsync(() -> {
        Thread.currentThread().interrupt();
        try {
          byte[] v = c.get(key(7));
          assertTrue(Thread.currentThread().isInterrupted(), "the caller keeps its interrupt");
          return v;
        } finally {
          Thread.interrupted();
        }
      }, r -> new Thread(r).start()).get(30, SECONDS);
      assertArrayEquals(value(7, 1, VALUE), got, "the read itself still succeeds");
      CacheStats s = c.stats();
      assertFalse(s.degraded(), s.toString());
      assertEquals(0, s.ioErrors(), s.toString());
      c.writeBackAndDropDram();
      assertEquals(KEYS, flashHits(c), "every other reader still hits flash");
    }
  }

  @Test
  void aTruncatedSegmentFileCostsOnlyItsSegment() throws Exception {
    aTruncatedSegmentFileCostsOnlyItsSegment(IndexType.HEAP);
  }

  @Test
  @NeedsChronicle
  void aTruncatedSegmentFileCostsOnlyItsSegmentOnChronicle() throws Exception {
    aTruncatedSegmentFileCostsOnlyItsSegment(IndexType.CHRONICLE);
  }

  private void aTruncatedSegmentFileCostsOnlyItsSegment(IndexType index) throws Exception {
    try (Engine c = open(TestCaches.small(dir, index).build())) {
      fill(c);
      Segment victim = sealedSegment(c);
      long inVictim = entriesIn(c, victim);
      assertTrue(inVictim > 0);
      try (RandomAccessFile f = new RandomAccessFile(files.get().slotPath(victim.slot()).toFile(), "rw")) {
        f.setLength(4096); // the header survives, the entries are gone
      }
      int hits = flashHits(c);
      c.awaitFlashWrites(); // the writer has dropped the segment when this returns
      CacheStats s = c.stats();
      assertFalse(s.degraded(), "one damaged file does not take the tier down: " + s);
      assertEquals(1, s.segmentsDropped(), s.toString());
      assertEquals(inVictim, s.entriesDropped(), "the segment's entries left the index: " + s);
      assertEquals(KEYS - inVictim, hits, "every entry of the other segments is still served");
      assertEquals(KEYS - inVictim, s.flashEntries(), s.toString());
    }
  }

  @Test
  void aDeletedSegmentFileFoundAfterARestartCostsOnlyItsSegment() throws Exception {
    CacheConfig cfg = TestCaches.small(dir, IndexType.HEAP).build();
    long inVictim;
    Path victimFile;
    try (Engine c = open(cfg)) {
      fill(c);
      Segment victim = sealedSegment(c);
      inVictim = entriesIn(c, victim);
      victimFile = files.get().slotPath(victim.slot());
    }
    Files.delete(victimFile);
    try (Engine c = open(cfg)) {
      int hits = flashHits(c);
      c.awaitFlashWrites();
      CacheStats s = c.stats();
      assertFalse(s.degraded(), s.toString());
      assertEquals(1, s.segmentsDropped(), s.toString());
      assertEquals(KEYS - inVictim, hits);
    }
  }

  @Test
  void oneReadErrorCostsOneSegment() throws Exception {
    try (Engine c = open(TestCaches.small(dir, IndexType.HEAP).build())) {
      fill(c);
      device.get().failNextReads(1);
      int hits = flashHits(c);
      c.awaitFlashWrites();
      CacheStats s = c.stats();
      assertFalse(s.degraded(), s.toString());
      assertEquals(1, s.segmentsDropped());
      assertEquals(KEYS, hits + s.entriesDropped(), "only the failed segment's entries miss: " + s);
      assertTrue(s.lastFault().contains("injected read fault"), s.lastFault());
    }
  }

  @Test
  void persistentReadErrorsDegradeAndReadOnlyLoadRecovers() throws Exception {
    try (Engine c = open(TestCaches.small(dir, IndexType.HEAP).faultThreshold(1).build())) {
      fill(c);
      device.get().failNextReads(1);
      assertNull(c.get(key(3)));
      assertTrue(c.stats().degraded(), "threshold 1: one error degrades");
      // no writes from here on: the writer's idle loop must recover (retry interval 0)
      awaitTrue(() -> !c.stats().degraded(), "recovery without writes");
      int hits = flashHits(c);
      assertTrue(hits > 0 && hits < KEYS, "the sealed segments that still read are kept: " + hits);
    }
  }

  /** Chronicle: its index persists across an unclean stop, so entries left in it would come back. */
  @Test
  @NeedsChronicle
  void keysWhileDegradedDropsTheFlashIndexSoNothingComesBack() throws Exception {
    try (Engine c = open(TestCaches.small(dir, IndexType.CHRONICLE).faultThreshold(1)
        .faultRetryInterval(java.time.Duration.ofHours(1)).build())) {
      fill(c);
      device.get().failNextReads(1);
      c.get(key(0));
      assertTrue(c.stats().degraded());
      for (Iterator<byte[]> it = c.keys(); it.hasNext(); ) {
        c.remove(it.next()); // a TRUNCATE
      }
      assertEquals(0, c.stats().flashEntries(), "the whole flash index is dropped");
      assertEquals(1, c.stats().flashIndexDrops());
    }
    // reopen (recovery) with the same directory: nothing truncated comes back
    try (Engine c = open(TestCaches.small(dir, IndexType.CHRONICLE).build())) {
      assertEquals(0, flashHits(c), "truncated keys never return");
    }
  }

  @Test
  void aReadErrorMidScanDropsTheFlashIndex() throws Exception {
    try (Engine c = open(TestCaches.small(dir, IndexType.HEAP).build())) {
      fill(c);
      device.get().failAllReads();
      int returned = 0;
      for (Iterator<byte[]> it = c.keys(); it.hasNext(); it.next()) {
        returned++;
      }
      device.get().heal();
      assertEquals(0, returned, "DRAM is empty and the scan failed");
      assertEquals(1, c.stats().flashIndexDrops());
      assertEquals(0, flashHits(c), "no key the scan could not return is served afterwards");
    }
  }

  /** keysOrFail (a caller listing one namespace of a shared engine): a failed scan throws and drops nothing. */
  @Test
  void aReadErrorMidScanOfKeysOrFailThrowsAndKeepsTheFlashIndex() throws Exception {
    try (Engine c = open(TestCaches.small(dir, IndexType.HEAP).build())) {
      fill(c);
      long entries = c.stats().flashEntries();
      device.get().failAllReads();
      Iterator<byte[]> it = c.keysOrFail();
      IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> {
        while (it.hasNext()) {
          it.next();
        }
      });
      device.get().heal();
      assertTrue(e.getMessage().contains("cannot be listed"), e.getMessage());
      assertEquals(0, c.stats().flashIndexDrops());
      assertEquals(entries, c.stats().flashEntries(), "the flash index is kept");
      assertTrue(flashHits(c) > 0, "its entries are still served");
    }
  }

  private static Segment sealedSegment(Engine c) {
    return c.flashTier().table().segments().stream().filter(s -> s.state() == Segment.State.SEALED)
        .filter(s -> entriesIn(c, s) > 0).findFirst().orElseThrow();
  }

  private static long entriesIn(Engine c, Segment s) {
    long[] n = {0};
    c.flashTier().index().forEach((h, p) -> {
      if (IndexEntry.segmentTag(p) == c.flashTier().table().tagOf(s.id())) {
        n[0]++;
      }
    });
    return n[0];
  }

  /** Waits for a condition the writer's own loop brings about (no sleep as synchronization). */
  private static void awaitTrue(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
      Thread.onSpinWait();
    }
  }
}
