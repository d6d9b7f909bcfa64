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
import io.hybridcache.core.api.Codec;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.api.TypedCache;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EngineTest {
  @TempDir Path dir;

  @Test
  void flashHitCostsExactlyOneDeviceRead() {
    flashHitCostsExactlyOneDeviceRead(IndexType.HEAP);
  }

  @Test
  @NeedsChronicle
  void flashHitCostsExactlyOneDeviceReadOnChronicle() {
    flashHitCostsExactlyOneDeviceRead(IndexType.CHRONICLE);
  }

  private void flashHitCostsExactlyOneDeviceRead(IndexType index) {
    try (Engine c = TestCaches.open(TestCaches.small(dir, index).build())) {
      for (int i = 0; i < 500; i++) {
        c.put(key(i), value(i, 1, 1000));
      }
      c.writeBackAndDropDram();
      CacheStats before = c.stats();
      long deviceReadsBefore = c.flashTier().device().counters().reads();
      for (int i = 0; i < 500; i++) {
        assertArrayEquals(value(i, 1, 1000), c.get(key(i)), "key " + i);
      }
      CacheStats after = c.stats();
      long flashHits = after.flashHits() - before.flashHits();
      assertEquals(500, flashHits);
      assertEquals(0, after.bufferHits() - before.bufferHits(), "everything was flushed");
      assertEquals(500, after.deviceReads() - before.deviceReads());
      assertEquals(500, c.flashTier().device().counters().reads() - deviceReadsBefore);
      assertEquals(1.0, after.deviceReadsPerFlashHit(), 1e-9);
      // promoted: the second read is a DRAM hit with no device read
      assertArrayEquals(value(7, 1, 1000), c.get(key(7)));
      assertEquals(after.dramHits() + 1, c.stats().dramHits());
      assertEquals(after.deviceReads(), c.stats().deviceReads());
    }
  }

  @Test
  @NeedsChronicle
  void putReplacesAndRemoveInvalidatesBothTiers() {
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.CHRONICLE).build())) {
      c.put(key(1), value(1, 1, 300));
      c.writeBackAndDropDram();
      assertTrue(c.containsKey(key(1)));
      c.put(key(1), value(1, 2, 300)); // must unlink the flash copy of version 1
      c.writeBackAndDropDram();
      assertArrayEquals(value(1, 2, 300), c.get(key(1)));
      assertTrue(c.remove(key(1)));
      assertNull(c.get(key(1)));
      assertFalse(c.containsKey(key(1)));
      c.writeBackAndDropDram();
      assertNull(c.get(key(1)), "removed entry must not come back from flash");
      assertFalse(c.remove(key(1)));
    }
  }

  @Test
  void expiredEntriesAreMisses() {
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).build())) {
      c.put(key(1), value(1, 1, 100), Duration.ofMillis(1));
      c.put(key(2), value(2, 1, 100), Duration.ofHours(1));
      c.writeBackAndDropDram();
      long deadline = System.currentTimeMillis() + 2;
      while (System.currentTimeMillis() < deadline) {
        Thread.onSpinWait(); // let the 1 ms TTL pass; the assertion below is on state, not on timing
      }
      assertNull(c.get(key(1)));
      assertArrayEquals(value(2, 1, 100), c.get(key(2)));
    }
  }

  @Test
  void clearEmptiesBothTiers() {
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).build())) {
      for (int i = 0; i < 100; i++) {
        c.put(key(i), value(i, 1, 200));
      }
      c.writeBack();
      c.clear();
      for (int i = 0; i < 100; i++) {
        assertNull(c.get(key(i)));
      }
      assertEquals(0, c.stats().flashEntries());
    }
  }

  @Test
  void cleanCloseReopensWarmWithEverything() {
    cleanCloseReopensWarmWithEverything(IndexType.HEAP);
  }

  @Test
  @NeedsChronicle
  void cleanCloseReopensWarmWithEverythingOnChronicle() {
    cleanCloseReopensWarmWithEverything(IndexType.CHRONICLE);
  }

  private void cleanCloseReopensWarmWithEverything(IndexType index) {
    CacheConfig cfg = TestCaches.small(dir, index).build();
    try (HybridCache c = TestCaches.open(cfg)) {
      for (int i = 0; i < 300; i++) {
        c.put(key(i), value(i, 3, 500));
      }
    }
    assertTrue(Files.exists(dir.resolve("CLEAN")));
    try (Engine c = TestCaches.open(cfg)) {
      assertFalse(Files.exists(dir.resolve("CLEAN")), "marker is consumed at open");
      assertEquals(300, c.stats().flashEntries());
      for (int i = 0; i < 300; i++) {
        assertArrayEquals(value(i, 3, 500), c.get(key(i)), "key " + i);
      }
      assertEquals(300, c.stats().flashHits());
    }
  }

  @Test
  @NeedsChronicle
  void flashNeverExceedsItsBudgetAndReclaimRuns() throws IOException {
    CacheConfig cfg = TestCaches.small(dir, IndexType.CHRONICLE).build();
    try (Engine c = TestCaches.open(cfg)) {
      for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 3000; i++) {
          c.put(key(i), value(i, round, 400));
        }
        c.writeBack();
      }
      CacheStats s = c.stats();
      assertTrue(s.reclaimedSegments() > 0, "reclaim ran: " + s);
      assertTrue(s.freeSegments() + s.activeSegments() + s.sealedSegments() <= cfg.segmentCount());
      long onDisk;
      try (Stream<Path> files = Files.list(dir.resolve("segments"))) {
        onDisk = files.filter(p -> p.toString().endsWith(".seg")).mapToLong(p -> p.toFile().length()).sum();
      }
      assertTrue(onDisk <= cfg.flashBytes(), "segment files " + onDisk + " > budget " + cfg.flashBytes());
      for (int i = 0; i < 3000; i++) {
        byte[] v = c.get(key(i));
        if (v != null) {
          assertEquals(3, TestCaches.versionOf(i, v), "key " + i + " must be the last version or a miss");
        }
      }
    }
  }

  @Test
  void typedView() {
    Codec<String> utf8 = Codec.utf8();
    try (HybridCache c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).build())) {
      TypedCache<String, String> t = c.typed(utf8, utf8);
      t.put("a", "alpha");
      assertEquals("alpha", t.get("a"));
      assertTrue(t.remove("a"));
      assertNull(t.get("a"));
    }
  }

  @Test
  void badArgumentsAreRejectedWithTheirName() {
    try (HybridCache c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).build())) {
      assertThrows(NullPointerException.class, () -> c.get(null));
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.put(new byte[0], new byte[1]));
      assertTrue(e.getMessage().contains("key length"), e.getMessage());
      assertThrows(IllegalArgumentException.class, () -> c.put(key(1), value(1, 1, 1), Duration.ZERO));
    }
  }

  @Test
  void oversizedValuesStayInDramAndAreCounted() {
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).build())) {
      byte[] big = new byte[64 * 1024];
      c.put(key(1), big);
      c.writeBackAndDropDram();
      assertNull(c.get(key(1)));
      c.put(key(2), big);
      for (int i = 10; i < 40; i++) {
        c.put(key(i), new byte[64 * 1024]); // push key 2 out of DRAM
      }
      assertTrue(c.stats().tooLargeRejected() > 0);
    }
  }

  @Test
  void configErrorsNameTheField() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CacheConfig.builder(dir).segmentBytes(1000).build());
    assertTrue(e.getMessage().startsWith("segmentBytes"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> CacheConfig.builder(dir).flashBytes(CacheConfig.MIB).segmentBytes(1 << 20).writeBufferBytes(1 << 16).build());
    assertTrue(e.getMessage().startsWith("flashBytes"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> CacheConfig.builder(null).build());
    assertTrue(e.getMessage().startsWith("directory"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> CacheConfig.builder(dir).reinsertAllBelowLiveRatio(1.5).build());
    assertTrue(e.getMessage().startsWith("reinsertAllBelowLiveRatio"), e.getMessage());
  }
}
