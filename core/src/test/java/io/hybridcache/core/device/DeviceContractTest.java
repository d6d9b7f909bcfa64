package io.hybridcache.core.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link Device} contract, run against every implementation by a subclass per device. Each test
 * opens its devices through {@link #newDevice}; they are closed after the test.
 */
abstract class DeviceContractTest {
  static final int BLOCK = Device.ALIGNMENT;
  static final long SLOT_BYTES = 64 * 1024;

  private final List<Device> opened = new ArrayList<>();

  /** A fresh, empty device of {@code slotCount} slots of {@code slotBytes}. */
  protected abstract Device createDevice(int slotCount, long slotBytes) throws IOException;

  final Device newDevice(int slotCount, long slotBytes) throws IOException {
    Device device = createDevice(slotCount, slotBytes);
    opened.add(device);
    return device;
  }

  @AfterEach
  void closeDevices() throws IOException {
    for (Device device : opened) {
      device.close();
    }
  }

  /** A direct aligned buffer of {@code bytes} filled with a pattern derived from {@code seed}. */
  static ByteBuffer pattern(long seed, int bytes) {
    byte[] data = new byte[bytes];
    new Random(seed).nextBytes(data);
    ByteBuffer buffer = Device.allocateAligned(bytes);
    buffer.put(data).flip();
    return buffer;
  }

  static byte[] bytes(ByteBuffer buffer) {
    byte[] data = new byte[buffer.remaining()];
    buffer.duplicate().get(data);
    return data;
  }

  static byte[] read(Device device, int slot, long offset, int bytes) throws IOException {
    ByteBuffer dst = Device.allocateAligned(bytes);
    device.read(slot, offset, dst);
    assertFalse(dst.hasRemaining(), "read fills the buffer");
    return bytes(dst.flip());
  }

  @Test
  void roundTripAtAlignedOffsetsAcrossTwoSlots() throws IOException {
    Device device = newDevice(4, SLOT_BYTES);
    long[] offsets = {0, 2 * BLOCK, SLOT_BYTES - 4 * BLOCK};
    for (int slot : new int[] {0, 3}) {
      for (long offset : offsets) {
        ByteBuffer src = pattern(slot * 1000L + offset, 2 * BLOCK);
        device.write(slot, offset, src);
        assertFalse(src.hasRemaining(), "write consumes the buffer");
      }
    }
    for (int slot : new int[] {0, 3}) {
      for (long offset : offsets) {
        assertArrayEquals(bytes(pattern(slot * 1000L + offset, 2 * BLOCK)),
            read(device, slot, offset, 2 * BLOCK), "slot " + slot + " offset " + offset);
      }
    }
    byte[] whole = read(device, 0, 0, (int) SLOT_BYTES);
    assertArrayEquals(bytes(pattern(0, 2 * BLOCK)), Arrays.copyOfRange(whole, 0, 2 * BLOCK));
  }

  @Test
  void readAndWriteUseTheBufferPositionToLimit() throws IOException {
    Device device = newDevice(1, SLOT_BYTES);
    ByteBuffer src = Device.allocateAligned(3 * BLOCK);
    src.put(pattern(7, 3 * BLOCK)).position(BLOCK).limit(2 * BLOCK);
    device.write(0, BLOCK, src);
    assertEquals(2 * BLOCK, src.position());
    ByteBuffer dst = Device.allocateAligned(3 * BLOCK).position(2 * BLOCK);
    device.read(0, BLOCK, dst);
    assertEquals(3 * BLOCK, dst.position());
    assertArrayEquals(Arrays.copyOfRange(bytes(pattern(7, 3 * BLOCK)), BLOCK, 2 * BLOCK),
        bytes(dst.position(2 * BLOCK)));
  }

  @Test
  void allocatedAfterTheFirstWriteOnly() throws IOException {
    Device device = newDevice(3, SLOT_BYTES);
    for (int slot = 0; slot < 3; slot++) {
      assertFalse(device.allocated(slot), "slot " + slot + " before any write");
    }
    device.write(1, BLOCK, pattern(1, BLOCK));
    assertFalse(device.allocated(0));
    assertTrue(device.allocated(1));
    assertFalse(device.allocated(2));
    assertArrayEquals(new byte[BLOCK], read(device, 1, 0, BLOCK), "unwritten part of a slot reads zeros");
  }

  @Test
  void readingASlotNeverWrittenThrows() throws IOException {
    Device device = newDevice(2, SLOT_BYTES);
    assertThrows(IOException.class, () -> device.read(1, 0, Device.allocateAligned(BLOCK)));
    assertEquals(0, device.counters().reads(), "a failed read is not counted");
  }

  @Test
  void eachReadCallIsOneCountedRead() throws IOException {
    Device device = newDevice(2, SLOT_BYTES);
    DeviceCounters.Snapshot start = device.counters().snapshot();
    device.write(0, 0, pattern(1, (int) SLOT_BYTES));
    device.write(1, 0, pattern(2, BLOCK));
    device.write(1, BLOCK, pattern(3, 4 * BLOCK));
    read(device, 0, 0, BLOCK);
    read(device, 0, 0, (int) SLOT_BYTES);
    read(device, 1, BLOCK, 4 * BLOCK);
    read(device, 1, 0, 2 * BLOCK);
    DeviceCounters.Snapshot delta = device.counters().snapshot().minus(start);
    assertEquals(3, delta.writes());
    assertEquals(SLOT_BYTES + 5 * BLOCK, delta.bytesWritten());
    assertEquals(4, delta.reads());
    assertEquals(BLOCK + SLOT_BYTES + 6 * BLOCK, delta.bytesRead());
    assertEquals(0, delta.discards());
  }

  @Test
  void discardThenReadReturnsZerosOrOldDataWithoutError() throws IOException {
    Device device = newDevice(2, SLOT_BYTES);
    ByteBuffer old = pattern(5, (int) SLOT_BYTES);
    device.write(0, 0, old.duplicate());
    device.discard(0);
    device.discard(1); // never written: a no-op
    assertTrue(device.allocated(0), "a discarded slot stays allocated");
    assertFalse(device.allocated(1));
    byte[] after = read(device, 0, 0, (int) SLOT_BYTES);
    byte[] before = bytes(old);
    for (int block = 0; block < SLOT_BYTES / BLOCK; block++) {
      byte[] got = Arrays.copyOfRange(after, block * BLOCK, (block + 1) * BLOCK);
      byte[] was = Arrays.copyOfRange(before, block * BLOCK, (block + 1) * BLOCK);
      assertTrue(Arrays.equals(got, new byte[BLOCK]) || Arrays.equals(got, was),
          "block " + block + " after discard is neither zeros nor the old data");
    }
    assertEquals(2, device.counters().discards());
    device.write(0, BLOCK, pattern(6, BLOCK));
    assertArrayEquals(bytes(pattern(6, BLOCK)), read(device, 0, BLOCK, BLOCK), "slot reusable after discard");
  }

  @Test
  void rejectsUnalignedOrOutOfRangeArguments() throws IOException {
    Device device = newDevice(2, SLOT_BYTES);
    device.write(0, 0, pattern(1, BLOCK));
    ByteBuffer ok = Device.allocateAligned(BLOCK);
    assertThrows(IllegalArgumentException.class, () -> device.write(0, 512, pattern(1, BLOCK)));
    assertThrows(IllegalArgumentException.class, () -> device.read(0, 512, ok.clear()));
    assertThrows(IllegalArgumentException.class, () -> device.write(0, 0, pattern(1, BLOCK).limit(100)));
    assertThrows(IllegalArgumentException.class, () -> device.write(0, 0, ByteBuffer.allocate(BLOCK)));
    ByteBuffer misaligned = Device.allocateAligned(2 * BLOCK).position(512).limit(512 + BLOCK);
    assertThrows(IllegalArgumentException.class, () -> device.read(0, 0, misaligned));
    assertThrows(IllegalArgumentException.class, () -> device.read(0, SLOT_BYTES, ok.clear()));
    assertThrows(IllegalArgumentException.class, () -> device.write(0, SLOT_BYTES - BLOCK, pattern(1, 2 * BLOCK)));
    assertThrows(IllegalArgumentException.class, () -> device.read(0, -BLOCK, ok.clear()));
    assertThrows(IndexOutOfBoundsException.class, () -> device.read(2, 0, ok.clear()));
    assertThrows(IndexOutOfBoundsException.class, () -> device.write(-1, 0, pattern(1, BLOCK)));
    assertThrows(IndexOutOfBoundsException.class, () -> device.allocated(2));
    assertThrows(IllegalArgumentException.class, () -> device.setWriteLifeHint(0, 6));
    assertEquals(1, device.counters().writes());
    assertEquals(0, device.counters().reads());
  }

  @Test
  void callsAfterCloseFail() throws IOException {
    Device device = newDevice(1, SLOT_BYTES);
    device.write(0, 0, pattern(1, BLOCK));
    device.sync();
    device.close();
    assertThrows(IOException.class, () -> device.read(0, 0, Device.allocateAligned(BLOCK)));
    assertThrows(IOException.class, () -> device.write(0, 0, pattern(1, BLOCK)));
    assertThrows(IOException.class, device::sync);
    device.close(); // idempotent
  }

  /** 8 threads, each on its own slot, write and read back whole-slot and per-block patterns. */
  @Test
  void concurrentReadersAndWritersOnDifferentSlots() throws Exception {
    int threads = 8;
    int rounds = 40;
    int chunk = 4 * BLOCK;
    Device device = newDevice(threads, SLOT_BYTES);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int slot = t;
        futures.add(pool.submit(() -> {
          start.await();
          for (int round = 0; round < rounds; round++) {
            long seed = slot * 1_000_000L + round;
            byte[] expected = bytes(pattern(seed, (int) SLOT_BYTES));
            for (int at = 0; at < SLOT_BYTES; at += chunk) {
              ByteBuffer src = Device.allocateAligned(chunk);
              src.put(expected, at, chunk).flip();
              device.write(slot, at, src);
            }
            assertArrayEquals(expected, read(device, slot, 0, (int) SLOT_BYTES), "slot " + slot);
            int block = round % (int) (SLOT_BYTES / BLOCK);
            assertArrayEquals(Arrays.copyOfRange(expected, block * BLOCK, (block + 1) * BLOCK),
                read(device, slot, (long) block * BLOCK, BLOCK), "slot " + slot + " block " + block);
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> future : futures) {
        future.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
      if (!pool.awaitTermination(30, TimeUnit.SECONDS)) {
        fail("worker threads did not stop");
      }
    }
    DeviceCounters counters = device.counters();
    assertEquals((long) threads * rounds * (SLOT_BYTES / chunk), counters.writes());
    assertEquals((long) threads * rounds * 2, counters.reads());
    assertEquals((long) threads * rounds * (SLOT_BYTES + BLOCK), counters.bytesRead());
  }
}
