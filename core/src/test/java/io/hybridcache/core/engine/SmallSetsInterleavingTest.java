package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.SmallTestKeys.key;
import static io.hybridcache.core.engine.SmallTestKeys.value;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.device.MemoryDevice;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Forced interleavings on one set (SeqPoints style, through {@link SmallSets.Probe}): a lookup stopped
 * after its page read while a writer completes, and a writer stopped before its page write while other
 * threads read and write the same set.
 */
@Timeout(60)
class SmallSetsInterleavingTest {
  private static final int VALUE = 100;

  private SmallSets sets;
  private final CountDownLatch reached = new CountDownLatch(1);
  private final CountDownLatch resume = new CountDownLatch(1);

  @BeforeEach
  void oneSet() {
    sets = new SmallSets(new MemoryDevice(1, 4096), 0, 1, SmallSets.Options.DEFAULT);
    for (int i = 0; i < 5; i++) {
      sets.put(key(i), value(i, 1, VALUE), i, 0);
    }
  }

  /** Stops the first thread named {@code name} that reaches {@code point}, until {@link #resume}. */
  private void stopAt(SmallSets.Point point, String name) {
    AtomicBoolean once = new AtomicBoolean();
    sets.probe((p, set) -> {
      if (p == point && Thread.currentThread().getName().equals(name) && once.compareAndSet(false, true)) {
        reached.countDown();
        try {
          resume.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });
  }

  private static CompletableFuture<byte[]> lookup(SmallSets sets, int k) {
    CompletableFuture<byte[]> f = new CompletableFuture<>();
    Thread t = new Thread(() -> f.complete(sets.get(key(k))), "lookup");
    t.start();
    return f;
  }

  /** Without the seqlock the lookup would serve version 1, read before the remove, after it returned. */
  @Test
  void aLookupOverlappingARemoveDoesNotServeTheRemovedVersion() throws Exception {
    stopAt(SmallSets.Point.LOOKUP_READ, "lookup");
    CompletableFuture<byte[]> got = lookup(sets, 1);
    assertTrue(reached.await(30, SECONDS));
    assertTrue(sets.remove(key(1)));
    resume.countDown();
    assertNull(got.get(30, SECONDS));
    assertEquals(1, sets.stats().readRetries());
  }

  @Test
  void aLookupOverlappingAPutServesTheNewVersion() throws Exception {
    stopAt(SmallSets.Point.LOOKUP_READ, "lookup");
    CompletableFuture<byte[]> got = lookup(sets, 1);
    assertTrue(reached.await(30, SECONDS));
    assertTrue(sets.put(key(1), value(1, 2, VALUE), 100, 0));
    resume.countDown();
    assertArrayEquals(value(1, 2, VALUE), got.get(30, SECONDS));
  }

  /**
   * A writer stopped before its page write holds the set: a second writer of the set waits (without the
   * lock, one read-modify-write would drop the other's object); lookups do not wait and serve the old page.
   */
  @Test
  void writersOfOneSetSerializeAndLookupsDoNotWait() throws Exception {
    stopAt(SmallSets.Point.BEFORE_PAGE_WRITE, "writerA");
    Thread a = new Thread(() -> sets.put(key(10), value(10, 1, VALUE), 10, 0), "writerA");
    Thread b = new Thread(() -> sets.put(key(11), value(11, 1, VALUE), 11, 0), "writerB");
    a.start();
    assertTrue(reached.await(30, SECONDS));
    b.start();
    awaitParked(b);
    assertArrayEquals(value(2, 1, VALUE), sets.get(key(2)), "a lookup passes the stopped writer");
    assertNull(sets.get(key(10)), "not yet written");
    resume.countDown();
    a.join(30_000);
    b.join(30_000);
    assertFalse(a.isAlive() || b.isAlive());
    assertArrayEquals(value(10, 1, VALUE), sets.get(key(10)));
    assertArrayEquals(value(11, 1, VALUE), sets.get(key(11)));
    assertEquals(7, sets.stats().entries());
  }

  private static void awaitParked(Thread t) throws InterruptedException {
    for (int i = 0; i < 3000 && t.getState() != Thread.State.WAITING; i++) {
      Thread.sleep(10);
    }
    assertEquals(Thread.State.WAITING, t.getState(), "writerB waits for the set's lock");
  }
}
