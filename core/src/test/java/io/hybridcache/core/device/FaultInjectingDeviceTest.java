package io.hybridcache.core.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.device.FaultInjectingDevice.WriteFault;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * {@link FaultInjectingDevice}: each switch, healing, exact counts under concurrency, and (with no
 * switch armed) the shared {@link DeviceContractTest} over a {@link MemoryDevice}.
 */
class FaultInjectingDeviceTest extends DeviceContractTest {

  @Override
  protected Device createDevice(int slotCount, long slotBytes) {
    return new FaultInjectingDevice(new MemoryDevice(slotCount, slotBytes));
  }

  private FaultInjectingDevice device(int slots) throws IOException {
    return (FaultInjectingDevice) newDevice(slots, SLOT_BYTES);
  }

  @Test
  void nextWritesFailAsADiskFullThenPassAgain() throws IOException {
    FaultInjectingDevice device = device(2).failNextWrites(2, WriteFault.DISK_FULL);
    for (int i = 0; i < 2; i++) {
      IOException e = assertThrows(IOException.class, () -> device.write(0, 0, pattern(1, BLOCK)));
      assertTrue(e.getMessage().contains("No space left on device"), e.getMessage());
    }
    assertFalse(device.allocated(0), "an injected failure writes nothing");
    device.write(0, 0, pattern(1, BLOCK));
    assertArrayEquals(bytes(pattern(1, BLOCK)), read(device, 0, 0, BLOCK));
    assertEquals(2, device.injectedWriteFaults());
    assertEquals(2, device.injectedFaults());
    assertEquals(1, device.counters().writes(), "the delegate counts only what reached it");
  }

  @Test
  void allWritesFailWithAnIoErrorUntilHealed() throws IOException {
    FaultInjectingDevice device = device(1).failAllWrites(WriteFault.IO_ERROR);
    for (int i = 0; i < 5; i++) {
      IOException e = assertThrows(IOException.class, () -> device.write(0, 0, pattern(1, BLOCK)));
      assertTrue(e.getMessage().contains("Input/output error"), e.getMessage());
    }
    device.heal();
    device.write(0, 0, pattern(1, BLOCK));
    assertEquals(5, device.injectedWriteFaults());
  }

  @Test
  void readsFailThenPass() throws IOException {
    FaultInjectingDevice device = device(1);
    device.write(0, 0, pattern(1, BLOCK));
    device.failNextReads(1);
    assertThrows(IOException.class, () -> read(device, 0, 0, BLOCK));
    assertArrayEquals(bytes(pattern(1, BLOCK)), read(device, 0, 0, BLOCK));
    device.failAllReads();
    assertThrows(IOException.class, () -> read(device, 0, 0, BLOCK));
    assertThrows(IOException.class, () -> read(device, 0, 0, BLOCK));
    device.heal();
    read(device, 0, 0, BLOCK);
    assertEquals(3, device.injectedReadFaults());
    assertEquals(2, device.counters().reads());
  }

  @Test
  void corruptedReadsDifferInExactlyOneBit() throws IOException {
    FaultInjectingDevice device = device(1);
    device.write(0, 0, pattern(3, 4 * BLOCK));
    byte[] good = bytes(pattern(3, 4 * BLOCK));
    device.corruptNextReads(3);
    for (int i = 0; i < 3; i++) {
      byte[] got = read(device, 0, 0, 4 * BLOCK);
      int flippedBits = 0;
      for (int j = 0; j < got.length; j++) {
        flippedBits += Integer.bitCount((got[j] ^ good[j]) & 0xff);
      }
      assertEquals(1, flippedBits, "read " + i);
    }
    assertArrayEquals(good, read(device, 0, 0, 4 * BLOCK), "only the next 3 reads are corrupted");
    device.corruptAllReads();
    assertFalse(java.util.Arrays.equals(good, read(device, 0, 0, 4 * BLOCK)));
    device.heal();
    assertArrayEquals(good, read(device, 0, 0, 4 * BLOCK));
    assertEquals(4, device.injectedCorruptions());
  }

  @Test
  void exactlyNWritesFailWhenThreadsRace() throws Exception {
    int threads = 8;
    int writesPerThread = 50;
    FaultInjectingDevice device = device(threads).failNextWrites(100, WriteFault.DISK_FULL);
    AtomicLong failed = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int slot = t;
        futures.add(pool.submit(() -> {
          start.await();
          for (int i = 0; i < writesPerThread; i++) {
            try {
              device.write(slot, (long) (i % 16) * BLOCK, pattern(i, BLOCK));
            } catch (IOException e) {
              failed.incrementAndGet();
            }
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> future : futures) {
        future.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
      assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
    }
    assertEquals(100, failed.get());
    assertEquals(100, device.injectedWriteFaults());
    assertEquals(threads * writesPerThread - 100, device.counters().writes());
  }
}
