package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.device.FaultInjectingDevice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fault in the flash tier's maintenance work costs the least it can (issue 25, items 5 and 10): an
 * entry reclaim cannot reinsert is evicted, not a fault; any Throwable in reclaim costs its victim, never
 * a command the maintenance thread had taken (a barrier, the stop); a Throwable between an entry's append
 * and its install leaks no pending install, which reclaim and a checkpoint start wait for.
 */
@Timeout(120)
class MaintenanceFaultTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  private static final int VALUE = 400;

  @TempDir Path dir;
  private final AtomicReference<FaultInjectingDevice> device = new AtomicReference<>();

  private Engine open(CacheConfig cfg) {
    return TestCaches.openFaulty(cfg, device);
  }

  private static long deadline() {
    return System.nanoTime() + TIMEOUT.toNanos();
  }

  /**
   * The deterministic trigger: entries written with 16 KiB write buffers, the cache reopened with
   * 8 KiB ones (not part of the layout), and reclaim told to reinsert everything: the older, larger entries
   * cannot be reinserted. They are evicted; reclaim goes on, no barrier is lost, {@code keys()} keeps the
   * flash index and close leaves the clean marker.
   */
  @Test
  void anEntryLargerThanTheWriteBufferNowIsEvictedByReclaimNotAFault() {
    CacheConfig.Builder b = TestCaches.small(dir, IndexType.HEAP).closeTimeout(TIMEOUT)
        .reinsertAllBelowLiveRatio(1).reinsertionBudget(Double.POSITIVE_INFINITY);
    int big = 10_000;
    try (Engine c = open(b.build())) {
      for (int i = 0; i < 24; i++) {
        c.put(key(i), value(i, 1, big));
      }
      c.writeBackAndDropDram();
    }
    Engine c = open(b.writeBufferBytes(8 * 1024).build());
    assertTrue(c.flashTier().index().size() >= 20, "warm: the large entries are indexed");
    for (int i = 1000; i < 5000; i++) {
      c.put(key(i), value(i, 1, VALUE)); // fills flash: reclaim reaches the large entries' segments
    }
    assertTrue(c.flashTier().barrier(true, deadline()), "a barrier completes: " + c.stats());
    CacheStats s = c.stats();
    assertEquals(0, s.writerFaults(), "an entry too large to reinsert is evicted, not a fault: " + s.lastFault());
    assertTrue(s.reclaimedSegments() > 0, s.toString());
    for (Iterator<byte[]> it = c.keys(); it.hasNext(); ) {
      it.next();
    }
    assertEquals(0, c.stats().flashIndexDrops(), "keys() did not drop the flash index");
    closeCleanlyServingNoWrongValue(c, 24, 1, big);
  }

  /**
   * An Error from the device while reclaim reads its victim (an unsafe access fault) is a counted fault
   * that costs that victim: no segment stays RECLAIMING (a leaked slot), the barrier queued behind it
   * completes, the writer lives on and the stop is not lost.
   */
  @Test
  void anErrorInReclaimCostsItsVictimNotABarrierOrTheStop() {
    Engine c = open(TestCaches.small(dir, IndexType.HEAP).closeTimeout(TIMEOUT).build());
    for (int i = 0; i < 4000; i++) {
      c.put(key(i), value(i, 1, VALUE));
    }
    c.awaitFlashWrites();
    device.get().throwOnReads(new InternalError("injected: unsafe access in a reclaim read"));
    for (int i = 4000; i < 6000; i++) {
      c.put(key(i), value(i, 1, VALUE)); // evictions fill flash: reclaim reads its victims
    }
    boolean completed = c.flashTier().barrier(true, deadline());
    CacheStats s = c.stats();
    assertTrue(s.writerFaults() > 0, "the Error is a counted fault: " + s);
    assertTrue(s.lastFault().contains("InternalError"), s.lastFault());
    assertTrue(completed, "the barrier behind the fault completes: " + s);
    device.get().heal();
    assertTrue(c.flashTier().barrier(false, deadline()));
    for (Segment seg : c.flashTier().table().segments()) {
      assertFalse(seg.state() == Segment.State.RECLAIMING, "no victim left RECLAIMING: " + seg);
    }
    assertTrue(c.flashTier().writerAlive(), "the writer lives on");
    closeCleanlyServingNoWrongValue(c, 6000, 7, VALUE);
  }

  /** Every {@code step}th of keys 0..{@code keys} is a miss or its value; then close leaves the clean marker. */
  private void closeCleanlyServingNoWrongValue(Engine c, int keys, int step, int length) {
    for (int i = 0; i < keys; i += step) {
      byte[] v = c.get(key(i));
      if (v != null) {
        assertArrayEquals(value(i, 1, length), v);
      }
    }
    c.close();
    assertTrue(Files.exists(dir.resolve(FlashOpener.CLEAN_MARKER)), "the stop was not lost: a clean close");
  }

  /**
   * Item 10: a Throwable after an entry was appended and counted as pending, before its install (here an
   * Error from the point between the two), must not leak the count: reclaim and every checkpoint start
   * wait for it, the latter holding the writer's lock. Close, whose final checkpoint waits for it, returns
   * and writes the clean marker.
   */
  @Test
  void aThrowableBetweenAppendAndInstallLeaksNoPendingInstall() throws Exception {
    Engine c = open(TestCaches.small(dir, IndexType.HEAP).closeTimeout(TIMEOUT).faultRetryInterval(Duration.ZERO)
        .build());
    AtomicBoolean armed = new AtomicBoolean(true);
    c.flashTier().afterAppend(h -> {
      if (armed.compareAndSet(true, false)) {
        throw new OutOfMemoryError("injected: between append and install");
      }
    });
    for (int i = 0; i < 10_000 && armed.get(); i++) {
      c.put(key(i), value(i, 1, VALUE));
    }
    assertFalse(armed.get(), "an eviction reached the point between append and install");
    assertTrue(c.stats().writerFaults() > 0, "the Throwable is a counted fault");
    for (Segment seg : c.flashTier().table().segments()) {
      assertEquals(0, seg.pendingInstalls(), "no pending install leaked: " + seg);
    }
    CompletableFuture<Void> closed = CompletableFuture.runAsync(c::close, r -> {
      Thread t = new Thread(r, "closer");
      t.setDaemon(true); // a close spinning for ever must not keep the test JVM
      t.start();
    });
    closed.get(30, SECONDS);
    assertTrue(Files.exists(dir.resolve(FlashOpener.CLEAN_MARKER)), "the final checkpoint was taken");
  }
}
