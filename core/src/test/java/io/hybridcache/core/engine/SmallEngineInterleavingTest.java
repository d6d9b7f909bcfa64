package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Forced interleavings of a read with a put that moves its key between the two flash engines (in the
 * style of {@link WritePathInterleavingTest} and {@link SmallSetsInterleavingTest}): the reader is stopped
 * after a flash engine served it the older version and before it promotes that version to DRAM; the put
 * (and the eviction of its version to flash) completes meanwhile; the reader then must not install the
 * older version in DRAM, so every later read serves the new one.
 */
class SmallEngineInterleavingTest {
  private static final int SMALL = SmallEngineWiringTest.SMALL;
  private static final int LARGE = SmallEngineWiringTest.LARGE;

  @TempDir
  Path dir;

  /** v1 in the small engine, v2 put (small): regression for the stamp check in SmallTier.unchangedSince. */
  @Test
  void aSmallEngineReadOverlappingASmallPutNeverPromotesTheOlderVersion() throws Exception {
    raceRead("small", SMALL, SMALL);
  }

  /** v1 in the small engine, v2 put large (it moves to the log engine). */
  @Test
  void aSmallEngineReadOverlappingAPutThatMovesTheKeyToTheLogNeverPromotesTheOlderVersion() throws Exception {
    raceRead("small", SMALL, LARGE);
  }

  /** v1 in the log engine, v2 put small (it moves to the small engine). */
  @Test
  void aLogEngineReadOverlappingAPutThatMovesTheKeyToTheSmallEngineNeverPromotesTheOlderVersion() throws Exception {
    raceRead("log", LARGE, SMALL);
  }

  /** v1 in the small engine, removed while the read is stopped: the read must not bring it back. */
  @Test
  void aSmallEngineReadOverlappingARemoveNeverBringsTheValueBack() throws Exception {
    try (Engine cache = TestCaches.open(SmallEngineWiringTest.config(dir).build())) {
      byte[] k = key(3);
      cache.put(k, value(3, 1, SMALL));
      cache.writeBackAndDropDram();
      Stopped reader = stopReaderAfter(cache, "small", k);
      assertTrue(cache.remove(k));
      reader.resume();
      assertEquals(null, cache.get(k));
      assertEquals(null, cache.dramTier().get(new ByteKey(k)), "nothing promoted");
    }
  }

  /**
   * v1 in the small engine, v2 put over it (the flagged DRAM entry), then {@code clear()}: a read that runs
   * while the clear is under way (DRAM already emptied, the flash engines not yet: the log engine's drop
   * hook) serves v2 or nothing, never v1, and after {@code clear()} the key is absent, in DRAM too (a read
   * in the window must not promote the older version past the clear). Issue 34, item 3.
   */
  @Test
  void aReadDuringAClearNeverServesTheSupersededSmallVersionNorOutlivesTheClear() throws Exception {
    try (Engine cache = TestCaches.open(SmallEngineWiringTest.config(dir).build())) {
      byte[] k = key(7);
      cache.put(k, value(7, 1, SMALL));
      cache.writeBackAndDropDram();
      assertArrayEquals(value(7, 1, SMALL), cache.smallTier().get(k), "v1 in the small engine");
      cache.put(k, value(7, 2, SMALL)); // DRAM only, flagged: v1 stays in the small engine
      assertArrayEquals(value(7, 1, SMALL), cache.smallTier().get(k), "v1 still in the small engine");
      CompletableFuture<byte[]> during = new CompletableFuture<>();
      cache.flashTier().beforeDropAll(() -> readOnAnotherThread(() -> { // inside clear(), after DRAM emptied
        try {
          during.complete(cache.get(k));
        } catch (Throwable t) {
          during.completeExceptionally(t);
        }
      }));
      cache.clear();
      byte[] read = during.get(10, TimeUnit.SECONDS);
      assertTrue(read == null || java.util.Arrays.equals(value(7, 2, SMALL), read),
          "a read during clear() served " + (read == null ? "null" : TestCaches.versionOf(7, read) + ", not v2"));
      assertNull(cache.dramTier().get(new ByteKey(k)), "nothing promoted past the clear");
      assertNull(cache.get(k), "absent after clear() returned");
    }
  }

  /**
   * Reads while {@code clear()} empties the log engine's index (stopped inside its first stripe, DRAM
   * already emptied): a read may serve a value of before the clear while the clear runs, but none may
   * install it in DRAM, where it would outlive the clear (the review's finding on item 3).
   */
  @Test
  void aReadDuringAClearNeverPromotesALogEngineValuePastTheClear() throws Exception {
    try (Engine cache = TestCaches.open(SmallEngineWiringTest.config(dir).build())) {
      int keys = 40;
      for (int i = 0; i < keys; i++) {
        cache.put(key(i), value(i, 1, LARGE));
      }
      cache.writeBackAndDropDram();
      java.util.concurrent.atomic.AtomicInteger served = new java.util.concurrent.atomic.AtomicInteger();
      java.util.concurrent.atomic.AtomicBoolean once = new java.util.concurrent.atomic.AtomicBoolean();
      ((HeapIndex) cache.flashTier().index()).probe(region -> {
        if (region.equals("clear") && once.compareAndSet(false, true)) { // one stripe locked, the rest readable
          readOnAnotherThread(() -> {
            for (int i = 0; i < keys; i++) {
              served.addAndGet(cache.get(key(i)) != null ? 1 : 0);
            }
          });
        }
      });
      cache.clear();
      assertTrue(once.get(), "the clear emptied the index");
      assertTrue(served.get() > 0, "some reads during the clear found the log engine's entries");
      for (int i = 0; i < keys; i++) {
        assertTrue(cache.get(key(i)) == null, "key " + i + " served after clear() returned");
      }
    }
  }

  /** Runs {@code reads} on a thread of its own and waits for it (at most 10 s): a read from inside a clear. */
  private static void readOnAnotherThread(Runnable reads) {
    Thread reader = new Thread(reads, "reader-during-clear");
    reader.start();
    try {
      reader.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void raceRead(String engine, int v1Length, int v2Length) throws Exception {
    try (Engine cache = TestCaches.open(SmallEngineWiringTest.config(dir).build())) {
      byte[] k = key(5);
      cache.put(k, value(5, 1, v1Length));
      cache.writeBackAndDropDram();
      Stopped reader = stopReaderAfter(cache, engine, k);
      cache.put(k, value(5, 2, v2Length));
      cache.writeBackAndDropDram(); // v2 on flash, DRAM empty: only a promotion could bring v1 back
      byte[] read = reader.resume();
      assertArrayEquals(value(5, 1, v1Length), read, "the overlapping read may serve v1 (it began first)");
      assertArrayEquals(value(5, 2, v2Length), cache.get(k), "a read after the put never serves v1");
      assertArrayEquals(value(5, 2, v2Length), cache.get(k), "nor from DRAM");
    }
  }

  /** A reader of {@code k} on another thread, stopped after {@code engine} served it. */
  private static Stopped stopReaderAfter(Engine cache, String engine, byte[] k) throws Exception {
    CountDownLatch arrived = new CountDownLatch(1);
    CountDownLatch go = new CountDownLatch(1);
    Thread[] readerThread = new Thread[1];
    cache.afterFlashRead((e, key) -> {
      if (Thread.currentThread() == readerThread[0] && e.equals(engine)) {
        arrived.countDown();
        await(go);
      }
    });
    CompletableFuture<byte[]> read = new CompletableFuture<>();
    readerThread[0] = new Thread(() -> {
      try {
        read.complete(cache.get(k));
      } catch (Throwable t) {
        read.completeExceptionally(t);
      }
    }, "stopped-reader");
    readerThread[0].start();
    assertTrue(arrived.await(10, TimeUnit.SECONDS), "the reader reached the " + engine + " engine's read");
    return () -> {
      go.countDown();
      return read.get(10, TimeUnit.SECONDS);
    };
  }

  @FunctionalInterface
  private interface Stopped {
    byte[] resume() throws Exception;
  }

  private static void await(CountDownLatch l) {
    try {
      if (!l.await(10, TimeUnit.SECONDS)) {
        throw new AssertionError("not released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
