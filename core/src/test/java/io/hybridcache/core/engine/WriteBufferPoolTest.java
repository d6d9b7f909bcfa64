package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.LifetimeClass;
import io.hybridcache.core.device.MemoryDevice;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * Write buffers shared by every lifetime class (issue 25, item 12): a writer never makes more than its
 * total, and a class whose buffer another class took loses no entry, whether read from the buffer, while
 * its write is in flight, or from the device.
 */
class WriteBufferPoolTest {
  private static final int SEGMENT = 64 * 1024;
  private static final int BUFFER = 16 * 1024;
  private static final int CLASSES = 5;

  private final MemoryDevice device = new MemoryDevice(16, SEGMENT);
  private final SegmentTable table = new SegmentTable(16);
  private final Counters counters = new Counters();
  private final AtomicLong seq = new AtomicLong();
  /** Two buffers per class, two in all: every class after the first takes another's. */
  private final SegmentWriter writer = new SegmentWriter(device, table, counters, null, BUFFER, 2, 2, seq::get, null);
  private final FlashReader reader = new FlashReader(device, table, counters, new ReadBuffers(4, BUFFER));

  WriteBufferPoolTest() {
    table.rebuildFreeList();
    writer.slotSource(table::takeFreeSlot);
  }

  private static byte[] key(int i) {
    return ("k" + i).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(int i) {
    byte[] v = new byte[300 + i % 700];
    for (int j = 0; j < v.length; j++) {
      v[j] = (byte) (i * 31 + j);
    }
    return v;
  }

  private static LifetimeClass lifetimeClass(int i) {
    return LifetimeClass.named(LifetimeClass.FIRST_CALLER_ID + i % CLASSES, "c" + i % CLASSES);
  }

  @Test
  void classesTakingEachOthersBuffersLoseNoEntryAndMakeNoMoreThanTheTotal() throws Exception {
    int entries = 120; // 5 classes, 24 KiB or so each: their segments neither fill nor need reclaim
    AtomicLongArray packed = new AtomicLongArray(entries);
    AtomicBoolean done = new AtomicBoolean();
    ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
    Thread concurrentReader = new Thread(() -> { // reads each entry while others take its buffer
      while (!done.get()) {
        for (int i = 0; i < entries; i++) {
          long p = packed.get(i);
          if (p != 0) {
            check(i, p, wrong);
          }
        }
      }
    });
    concurrentReader.start();
    try {
      for (int i = 0; i < entries; i++) {
        long p = writer.append(lifetimeClass(i), i, key(i), value(i), 0, seq.incrementAndGet());
        assertNotEquals(IndexEntry.NONE, p, "entry " + i + " appended");
        packed.set(i, p);
        check(i, p, wrong); // at once: from its buffer
      }
    } finally {
      done.set(true);
      concurrentReader.join();
    }
    writer.flushAll();
    for (int i = 0; i < entries; i++) {
      check(i, packed.get(i), wrong); // from the device
    }
    assertEquals(0, counters.corruptReads.sum(), "no read found padding or another entry");
    assertTrue(wrong.isEmpty(), () -> wrong.size() + " wrong reads, first: " + wrong.peek());
    assertEquals(WriteBufferPool.boundBytes(2, BUFFER), writer.bufferMemory(), "two buffers made, no more");
    assertTrue(counters.deviceReads.sum() >= entries, "the last pass read the device");
  }

  private void check(int i, long p, ConcurrentLinkedQueue<String> wrong) {
    try {
      EntryFormat.Entry e = reader.read(p);
      if (e == null) {
        wrong.add("entry " + i + " read as a miss");
      } else if (!java.util.Arrays.equals(value(i), e.value()) || !java.util.Arrays.equals(key(i), e.key())) {
        wrong.add("entry " + i + " read another value");
      }
    } catch (java.io.IOException ex) {
      wrong.add("entry " + i + ": " + ex);
    }
  }

  @Test
  void aClassWhoseBufferWasTakenContinuesItsSegmentOnTheNextPage() throws Exception {
    LifetimeClass a = lifetimeClass(0);
    LifetimeClass b = lifetimeClass(1);
    LifetimeClass c = lifetimeClass(2);
    long first = writer.append(a, 1, key(1), value(1), 0, seq.incrementAndGet());
    writer.append(b, 2, key(2), value(2), 0, seq.incrementAndGet());
    writer.append(c, 3, key(3), value(3), 0, seq.incrementAndGet()); // takes a's (appended least recently)
    long second = writer.append(a, 4, key(4), value(4), 0, seq.incrementAndGet());
    assertEquals(IndexEntry.segmentTag(first), IndexEntry.segmentTag(second), "the same segment");
    long at = IndexEntry.offset(second);
    assertEquals(0, at % io.hybridcache.core.device.Device.ALIGNMENT, "a new page: " + at);
    writer.flushAll();
    assertNotNull(reader.read(first));
    assertArrayEquals(value(4), reader.read(second).value());
  }
}
