package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.device.FaultInjectingDevice;
import io.hybridcache.core.device.FileDevice;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Device errors and a full disk, injected by {@link FaultInjectingDevice} (a test fake over the real
 * FileDevice): the cache degrades to DRAM-only without an exception to the caller or a lost DRAM
 * entry, and returns to service when the device heals.
 */
class FaultTest {
  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(FaultInjectingDevice.WriteFault.class)
  void writeFaultsDegradeToDramAndRecover(FaultInjectingDevice.WriteFault fault) {
    AtomicReference<FaultInjectingDevice> device = new AtomicReference<>();
    CacheConfig cfg = TestCaches.small(dir, IndexType.HEAP).build();
    try (Engine c = Engine.open(cfg, (d, n, b, direct) -> {
      device.set(new FaultInjectingDevice(FileDevice.open(d, n, b, direct)));
      return device.get();
    })) {
      for (int i = 0; i < 200; i++) {
        c.put(key(i), value(i, 1, 400));
      }
      c.writeBackAndDropDram();
      device.get().failAllWrites(fault);
      for (int i = 1000; i < 4000; i++) {
        c.put(key(i), value(i, 1, 400)); // evictions cascade into a failing device
      }
      c.awaitFlashWrites();
      CacheStats s = c.stats();
      assertTrue(s.degraded() || s.ioErrors() > 0, "fault must be noticed: " + s);
      assertTrue(s.ioErrors() > 0);
      for (int i = 3900; i < 4000; i++) {
        assertArrayEquals(value(i, 1, 400), c.get(key(i)), "recent DRAM entries survive: " + i);
      }
      device.get().heal();
      for (int i = 5000; i < 8000; i++) {
        c.put(key(i), value(i, 1, 400)); // the writer retries (interval 0) and recovers
      }
      c.writeBackAndDropDram();
      assertFalse(c.stats().degraded(), "back in service after heal");
      int hits = 0;
      for (int i = 1000; i < 8000; i++) { // which keys DRAM kept (TinyLFU) decides which reach flash last
        if (i == 4000) {
          i = 5000;
        }
        byte[] v = c.get(key(i));
        if (v != null) {
          hits++;
          assertArrayEquals(value(i, 1, 400), v);
        }
      }
      assertTrue(hits > 500, "flash serves again after recovery: " + hits + " " + c.stats());
    }
  }

  @Test
  void readFaultsAreMissesNotExceptions() {
    readFaultsAreMissesNotExceptions(IndexType.HEAP);
  }

  @Test
  @NeedsChronicle
  void readFaultsAreMissesNotExceptionsOnChronicle() {
    readFaultsAreMissesNotExceptions(IndexType.CHRONICLE);
  }

  private void readFaultsAreMissesNotExceptions(IndexType index) {
    AtomicReference<FaultInjectingDevice> device = new AtomicReference<>();
    CacheConfig cfg = TestCaches.small(dir, index).build();
    try (Engine c = Engine.open(cfg, (d, n, b, direct) -> {
      device.set(new FaultInjectingDevice(FileDevice.open(d, n, b, direct)));
      return device.get();
    })) {
      for (int i = 0; i < 300; i++) {
        c.put(key(i), value(i, 1, 400));
      }
      c.writeBackAndDropDram();
      device.get().corruptAllReads();
      for (int i = 0; i < 150; i++) {
        byte[] v = c.get(key(i));
        if (v != null) {
          assertArrayEquals(value(i, 1, 400), v);
        }
      }
      assertTrue(c.stats().corruptReads() > 0, "bit flips on read are detected");
      device.get().heal();
      device.get().failAllReads();
      for (int i = 150; i < 300; i++) {
        byte[] v = c.get(key(i));
        if (v != null) {
          assertArrayEquals(value(i, 1, 400), v);
        }
      }
      c.awaitFlashWrites(); // the writer dropped the damaged segments before this returns
      CacheStats s = c.stats();
      assertTrue(s.ioErrors() > 0);
      assertTrue(s.segmentsDropped() > 0, "each failing segment is dropped: " + s);
      assertEquals(s.segmentsDropped() >= cfg.faultThreshold(), s.degraded(),
          "the tier degrades only once errors persist: " + s);
    }
  }
}
