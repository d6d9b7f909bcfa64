package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.device.FaultInjectingDevice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer never dies and close always returns: an Error thrown on the writer is a counted, visible
 * fault; a device that never answers costs close its timeout, not a hang; close waits for calls in
 * flight and later calls get {@link IllegalStateException}. Plus the small contracts of the API.
 */
class WriterAndCloseTest {
  private static final int VALUE = 400;

  @TempDir Path dir;
  private final AtomicReference<FaultInjectingDevice> device = new AtomicReference<>();

  private Engine open(CacheConfig cfg) {
    return TestCaches.openFaulty(cfg, device);
  }

  /** A cache whose 600 keys are all on flash (DRAM emptied). */
  private Engine openWithKeysOnFlash(IndexType index) {
    Engine c = open(TestCaches.small(dir, index).build());
    for (int i = 0; i < 600; i++) {
      c.put(key(i), value(i, 1, VALUE));
    }
    c.writeBackAndDropDram();
    return c;
  }

  @Test
  void anErrorOnTheWriterIsACountedFaultAndTheWriterLivesOn() throws Exception {
    anErrorOnTheWriterIsACountedFaultAndTheWriterLivesOn(IndexType.HEAP);
  }

  @Test
  @NeedsChronicle
  void anErrorOnTheWriterIsACountedFaultAndTheWriterLivesOnOnChronicle() throws Exception {
    anErrorOnTheWriterIsACountedFaultAndTheWriterLivesOn(IndexType.CHRONICLE);
  }

  private void anErrorOnTheWriterIsACountedFaultAndTheWriterLivesOn(IndexType index) throws Exception {
    Engine c = open(TestCaches.small(dir, index).faultRetryInterval(Duration.ofHours(1)).build());
    device.get().throwOnWrites(new InternalError("injected: unsafe access on an unbacked mapping"));
    for (int i = 0; i < 4000; i++) {
      c.put(key(i), value(i, 1, VALUE)); // evictions reach the writer, whose device writes throw
    }
    c.awaitFlashWrites(); // a barrier still completes
    CacheStats s = c.stats();
    assertTrue(s.writerFaults() > 0, s.toString());
    assertTrue(s.degraded(), "a writer fault degrades the tier: " + s);
    assertTrue(s.lastFault().contains("InternalError"), s.lastFault());
    assertTrue(c.flashTier().writerAlive(), "the writer thread lives on");
    for (int i = 3900; i < 4000; i++) {
      assertArrayEquals(value(i, 1, VALUE), c.get(key(i)), "DRAM keeps serving");
    }
    long start = System.nanoTime();
    c.close();
    assertTrue(System.nanoTime() - start < SECONDS.toNanos(10), "close returns");
  }

  @Test
  void closeReturnsWithinItsTimeoutWhenTheDeviceHangs() throws Exception {
    Duration timeout = Duration.ofSeconds(1);
    CacheConfig cfg = TestCaches.small(dir, IndexType.HEAP).closeTimeout(timeout).build();
    Engine c = open(cfg);
    device.get().holdWrites();
    for (int i = 0; i < 4000; i++) {
      c.put(key(i), value(i, 1, VALUE));
    }
    assertTrue(device.get().awaitHeldWrite(30, SECONDS), "the writer is stuck in a device write");
    long start = System.nanoTime();
    c.close();
    long tookMillis = (System.nanoTime() - start) / 1_000_000;
    System.out.println("close() with a hung device took " + tookMillis + " ms (closeTimeout " + timeout + ")");
    assertTrue(tookMillis < timeout.toMillis() + 2000, "close is bounded: " + tookMillis + " ms");
    assertFalse(Files.exists(dir.resolve(FlashOpener.CLEAN_MARKER)), "no clean marker over a hung writer");
    device.get().releaseWrites();
    assertTrue(c.flashTier().awaitClosed(30, SECONDS), "once the device moves, the writer ends and close finishes");
    assertFalse(Files.exists(dir.resolve(FlashOpener.CLEAN_MARKER)), "still no clean marker: the stop was not in time");
  }

  /**
   * Forced interleaving: a reader is parked inside its device read when close starts; close marks the
   * cache closed (new calls throw) but waits for the reader, which returns its value, before it closes
   * the index and device.
   */
  @Test
  void closeWaitsForAReaderInFlightAndLaterCallsThrow() throws Exception {
    closeWaitsForAReaderInFlightAndLaterCallsThrow(IndexType.HEAP);
  }

  @Test
  @NeedsChronicle
  void closeWaitsForAReaderInFlightAndLaterCallsThrowOnChronicle() throws Exception {
    closeWaitsForAReaderInFlightAndLaterCallsThrow(IndexType.CHRONICLE);
  }

  private void closeWaitsForAReaderInFlightAndLaterCallsThrow(IndexType index) throws Exception {
    Engine c = openWithKeysOnFlash(index);
    device.get().holdReads();
    AtomicBoolean readerReturned = new AtomicBoolean();
    CompletableFuture<byte[]> reader = CompletableFuture.supplyAsync(() -> {
      byte[] v = c.get(key(5));
      readerReturned.set(true);
      return v;
    }, r -> new Thread(r, "reader").start());
    assertTrue(device.get().awaitHeldRead(30, SECONDS), "the reader is inside its device read");
    CompletableFuture<Boolean> closed = CompletableFuture.supplyAsync(() -> {
      c.close();
      return readerReturned.get(); // close returned: the reader must have left first
    }, r -> new Thread(r, "closer").start());
    awaitClosedBit(c);
    assertThrows(IllegalStateException.class, () -> c.get(key(6)), "a call after close starts throws");
    assertFalse(closed.isDone(), "close waits for the reader in flight");
    device.get().releaseReads();
    assertArrayEquals(value(5, 1, VALUE), reader.get(30, SECONDS));
    assertTrue(closed.get(30, SECONDS), "close returned only after the reader");
  }

  @Test
  void closeUnderEightReadingThreads() throws Exception {
    closeUnderEightReadingThreads(IndexType.HEAP);
  }

  @Test
  @NeedsChronicle
  void closeUnderEightReadingThreadsOnChronicle() throws Exception {
    closeUnderEightReadingThreads(IndexType.CHRONICLE);
  }

  private void closeUnderEightReadingThreads(IndexType index) throws Exception {
    Engine c = openWithKeysOnFlash(index);
    ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
    CountDownLatch started = new CountDownLatch(8);
    List<Thread> readers = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      int me = t;
      Thread th = new Thread(() -> {
        started.countDown();
        for (int i = 0; ; i++) {
          int k = (i * 8 + me) % 600;
          try {
            byte[] v = (i & 1) == 0 ? c.get(key(k)) : (c.containsKey(key(k)) ? value(k, 1, VALUE) : null);
            if (v != null) {
              assertArrayEquals(value(k, 1, VALUE), v);
            }
          } catch (IllegalStateException closed) {
            return;
          } catch (Throwable e) {
            unexpected.add(e);
            return;
          }
        }
      });
      readers.add(th);
      th.start();
    }
    started.await();
    c.close();
    for (Thread th : readers) {
      th.join(SECONDS.toMillis(30));
      assertFalse(th.isAlive());
    }
    assertTrue(unexpected.isEmpty(), () -> "only IllegalStateException after close: " + unexpected);
    assertThrows(IllegalStateException.class, () -> c.get(key(1)));
    assertThrows(IllegalStateException.class, () -> c.containsKey(key(1)));
    assertThrows(IllegalStateException.class, c::keys);
  }

  @Test
  void getReturnsACopy() {
    try (Engine c = open(TestCaches.small(dir, IndexType.HEAP).build())) {
      c.put(key(1), value(1, 1, VALUE));
      byte[] first = c.get(key(1));
      first[0] ^= 0x55;
      assertArrayEquals(value(1, 1, VALUE), c.get(key(1)), "a DRAM hit is not changed by the caller");
      c.writeBackAndDropDram();
      byte[] fromFlash = c.get(key(1));
      fromFlash[0] ^= 0x55;
      byte[] again = c.get(key(1)); // now the promoted DRAM copy
      assertNotSame(fromFlash, again);
      assertArrayEquals(value(1, 1, VALUE), again, "a flash hit's promoted copy is not changed by the caller");
    }
  }

  @Test
  void anEntryNoTierCanHoldIsCountedAndReplacesTheOldVersion() {
    CacheConfig cfg = TestCaches.small(dir, IndexType.HEAP).build();
    try (Engine c = open(cfg)) {
      c.put(key(1), value(1, 1, VALUE));
      byte[] huge = new byte[(int) cfg.dramBytes() + 1];
      c.put(key(1), huge);
      assertNull(c.get(key(1)), "the older version is gone");
      assertEquals(1, c.stats().tooLargeRejected());
    }
  }

  @Test
  void ttlsSaturateInsteadOfOverflowing() {
    long now = System.currentTimeMillis();
    assertEquals(Long.MAX_VALUE, Engine.expiryOf(ChronoUnit.FOREVER.getDuration(), now));
    assertEquals(Long.MAX_VALUE, Engine.expiryOf(Duration.ofMillis(Long.MAX_VALUE - 5), now));
    assertEquals(now + 1000, Engine.expiryOf(Duration.ofSeconds(1), now));
    try (Engine c = open(TestCaches.small(dir, IndexType.HEAP).build())) {
      c.put(key(1), value(1, 1, VALUE), ChronoUnit.FOREVER.getDuration());
      c.put(key(2), value(2, 1, VALUE), Duration.ofDays(365L * 300));
      assertArrayEquals(value(1, 1, VALUE), c.get(key(1)));
      assertArrayEquals(value(2, 1, VALUE), c.get(key(2)));
    }
  }

  @Test
  void aWriteBufferThatWouldReachTheSummaryPageIsRejected() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TestCaches.small(dir, IndexType.HEAP).writeBufferBytes(TestCaches.SEGMENT - 4096).build());
    assertTrue(e.getMessage().contains("writeBufferBytes"), e.getMessage());
    TestCaches.small(dir, IndexType.HEAP).writeBufferBytes(TestCaches.SEGMENT - 8192).build();
  }

  private static void awaitClosedBit(Engine c) {
    long deadline = System.nanoTime() + SECONDS.toNanos(30);
    while (!c.closing()) {
      assertTrue(System.nanoTime() < deadline, "close did not start");
      Thread.onSpinWait();
    }
  }
}
