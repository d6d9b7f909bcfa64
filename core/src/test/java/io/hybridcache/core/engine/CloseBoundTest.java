package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.device.FaultInjectingDevice;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Close is bounded by {@code closeTimeout} in total, and the directory lock outlives every thread of the
 * cache that can still write (issue 25, items 7 and 9).
 */
@Timeout(120)
class CloseBoundTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(1);
  private static final int VALUE = 400;

  @TempDir Path dir;
  private final AtomicReference<FaultInjectingDevice> device = new AtomicReference<>();

  private Engine open(CacheConfig cfg) {
    return TestCaches.openFaulty(cfg, device);
  }

  /**
   * Item 7: a large index (a million entries for the final checkpoint to copy) and a slow device: the writer
   * stops at once, but the device's sync after it (close persisting the tier) takes 3 s. Close returns
   * within its 1 s timeout; the persisting finishes behind it, under the directory lock, and still leaves
   * a clean close.
   */
  @Test
  void closeReturnsWithinItsTimeoutWhenPersistingIsSlow() {
    CacheConfig cfg = TestCaches.small(dir, IndexType.HEAP).closeTimeout(TIMEOUT).build();
    Engine c = open(cfg);
    for (int i = 0; i < 3000; i++) {
      c.put(key(i), value(i, 1, VALUE));
    }
    c.writeBackAndDropDram(); // close has nothing to write back: its writer stops at once, even on a busy machine
    Index index = c.flashTier().index();
    long onFlash = index.get(new ByteKey(key(2999)).hash64());
    assertNotEquals(IndexEntry.NONE, onFlash, "the last key was written back to flash");
    for (long h = 1; h <= 1_000_000; h++) {
      index.put(h * 0x9E3779B97F4A7C15L, onFlash); // entries of other keys: a read of one is a miss
    }
    device.get().slowSyncs(Duration.ofSeconds(3), t -> !t.getName().startsWith("hybridcache-writer"));
    long start = System.nanoTime();
    c.close();
    long tookMillis = (System.nanoTime() - start) / 1_000_000;
    System.out.println("close() with a 3 s sync after the writer stopped took " + tookMillis + " ms (closeTimeout "
        + TIMEOUT + ")");
    assertTrue(tookMillis < 1500, "close is bounded by its timeout in total: " + tookMillis + " ms");
    assertTrue(c.flashTier().awaitClosed(30, SECONDS), "the persisting ends");
    assertTrue(Files.exists(dir.resolve(FlashOpener.CLEAN_MARKER)), "a slow close is still a clean one");
  }

  /**
   * Item 9: close times out over a hung device write and returns, its writer left behind. A reopen in this
   * process is refused until that writer has ended (it could still write through the old journal mapping
   * and into slots the new cache reuses); then the directory opens and serves no wrong value.
   */
  @Test
  void aTimedOutCloseKeepsTheDirectoryLockUntilItsWriterEnds() throws Exception {
    CacheConfig cfg = TestCaches.small(dir, IndexType.HEAP).closeTimeout(TIMEOUT).build();
    Engine c = open(cfg);
    FaultInjectingDevice hung = device.get();
    hung.holdWrites();
    for (int i = 0; i < 4000; i++) {
      c.put(key(i), value(i, 1, VALUE));
    }
    assertTrue(hung.awaitHeldWrite(30, SECONDS), "the flusher is stuck in a device write");
    c.close();
    assertTrue(c.flashTier().writerAlive() || !c.flashTier().awaitClosed(0, SECONDS), "close left its writer behind");
    UncheckedIOException refused = assertThrows(UncheckedIOException.class, () -> open(cfg).close(),
        "a reopen while the old writer can still write is refused");
    assertTrue(refused.getMessage().contains("already open in this process"), refused.getMessage());
    hung.releaseWrites();
    assertTrue(c.flashTier().awaitClosed(30, SECONDS), "the old writer ends and releases the lock");
    assertFalse(c.flashTier().writerAlive());
    try (Engine again = open(cfg)) {
      for (int i = 0; i < 4000; i += 3) {
        byte[] v = again.get(key(i));
        if (v != null) {
          assertArrayEquals(value(i, 1, VALUE), v);
        }
      }
    }
  }
}
