package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.hybridcache.core.api.IndexType;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Forced interleavings of the write path (CacheLib's SeqPoints style): the evicting thread is stopped at
 * the point between its append and its index install ({@link FlashTier#afterAppend}), and the test
 * drives the other party into the window before it lets the eviction go on.
 */
@Timeout(120)
class WritePathInterleavingTest {
  private static final int VALUE = 400;
  private static final int TARGET = 0;

  @TempDir Path dir;

  /**
   * A put of the key whose older version is between append and install cannot run in that window (both
   * hold the key's map-bin lock): it waits, then its invalidation unlinks the older version just
   * installed, and the new version wins in every tier.
   */
  @Test
  void aPutOfTheKeyWaitsForTheInstallAndWins() throws Exception {
    aPutOfTheKeyWaitsForTheInstallAndWins(IndexType.HEAP);
  }

  @Test
  @NeedsChronicle
  void aPutOfTheKeyWaitsForTheInstallAndWinsOnChronicle() throws Exception {
    aPutOfTheKeyWaitsForTheInstallAndWins(IndexType.CHRONICLE);
  }

  private void aPutOfTheKeyWaitsForTheInstallAndWins(IndexType index) throws Exception {
    try (Engine c = Engine.open(TestCaches.small(dir, index).flashBytes(128L * TestCaches.SEGMENT).build())) {
      long target = new ByteKey(key(TARGET)).hash64();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      CountDownLatch resume = new CountDownLatch(1);
      Thread evictor = pauseEvictionOfTarget(c, resume, failure);
      assertEquals(IndexEntry.NONE, c.flashTier().address(target), "appended, not yet installed");

      Thread writer = start("writer", failure, () -> c.put(key(TARGET), value(TARGET, 2, VALUE)));
      awaitBlocked(writer); // on the key's map-bin lock, held by the paused eviction
      assertTrue(writer.isAlive(), "the put cannot complete inside the window");

      resume.countDown();
      writer.join(SECONDS.toMillis(60));
      evictor.join(SECONDS.toMillis(60));
      assertFalse(writer.isAlive() || evictor.isAlive());
      assertNull(failure.get());
      assertArrayEquals(value(TARGET, 2, VALUE), c.get(key(TARGET)), "DRAM serves the put");
      c.writeBackAndDropDram();
      assertArrayEquals(value(TARGET, 2, VALUE), c.get(key(TARGET)), "flash serves the put, never version 1");
      assertTrue(c.stats().flashHits() >= 1, c.stats().toString());
    }
  }

  /** A remove in the same window also waits, and then no tier serves the key. */
  @Test
  void aRemoveOfTheKeyWaitsForTheInstallAndUnlinksIt() throws Exception {
    try (Engine c = Engine.open(TestCaches.small(dir, IndexType.HEAP).flashBytes(128L * TestCaches.SEGMENT).build())) {
      long target = new ByteKey(key(TARGET)).hash64();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      CountDownLatch resume = new CountDownLatch(1);
      Thread evictor = pauseEvictionOfTarget(c, resume, failure);
      boolean[] removed = {false};
      Thread remover = start("remover", failure, () -> removed[0] = c.remove(key(TARGET)));
      awaitBlocked(remover);
      resume.countDown();
      remover.join(SECONDS.toMillis(60));
      evictor.join(SECONDS.toMillis(60));
      assertNull(failure.get());
      assertTrue(removed[0], "the remove found the installed flash entry");
      assertEquals(IndexEntry.NONE, c.flashTier().address(target));
      c.writeBackAndDropDram();
      assertNull(c.get(key(TARGET)), "removed in every tier");
    }
  }

  /**
   * Issue 25 item 1: a put that waits for its key's map-bin lock (held by an eviction of another key in
   * the same bin) before it takes effect, and a {@code get(key, loader)} that registers and misses
   * meanwhile: once the put (or remove) has returned, the load must not install its (older) value over it.
   */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aLoadThatMissedWhileAPutWaitedDoesNotInstallOverThePut(boolean remove) throws Exception {
    try (Engine c = Engine.open(TestCaches.small(dir, IndexType.HEAP).flashBytes(128L * TestCaches.SEGMENT).build())) {
      int mate = binMateOfTarget();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      CountDownLatch resume = new CountDownLatch(1);
      Thread evictor = pauseEvictionOfTarget(c, resume, failure);
      Thread writer = start("writer", failure, () -> {
        if (remove) {
          c.remove(key(mate));
        } else {
          c.put(key(mate), value(mate, 3, VALUE));
        }
      });
      awaitBlocked(writer); // the put has begun and waits for the bin's lock
      CountDownLatch loading = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Thread loader = start("loader", failure, () -> c.get(key(mate), k -> {
        loading.countDown();
        await(release);
        return value(mate, 2, VALUE); // read from the source before the put's new value
      }));
      // before the fix the load misses both tiers and runs its loader here; with it, the load's check of
      // the cache waits for the put's lock too, then either sees the put or is superseded by it
      awaitLoadingOrBlocked(loader, loading);
      resume.countDown();
      writer.join(SECONDS.toMillis(60));
      assertFalse(writer.isAlive(), "the put returned while the loader runs");
      release.countDown();
      loader.join(SECONDS.toMillis(60));
      evictor.join(SECONDS.toMillis(60));
      assertFalse(loader.isAlive() || evictor.isAlive());
      assertNull(failure.get());
      assertArrayEquals(remove ? null : value(mate, 3, VALUE), c.get(key(mate)),
          "the " + (remove ? "remove" : "put") + " that returned during the load wins");
    }
  }

  /** Reclaim waits for an entry appended to a segment but not yet installed before judging the segment. */
  @Test
  void reclaimWaitsForPendingInstalls() throws Exception {
    Segment s = new Segment(1, 0, io.hybridcache.core.api.LifetimeClass.FRESH, Segment.State.SEALED);
    s.appended();
    CountDownLatch returned = new CountDownLatch(1);
    Thread reclaim = new Thread(() -> {
      if (s.awaitInstalls(System.nanoTime() + SECONDS.toNanos(60))) {
        returned.countDown();
      }
    }, "reclaim");
    reclaim.setDaemon(true);
    reclaim.start();
    assertFalse(returned.await(200, java.util.concurrent.TimeUnit.MILLISECONDS), "waits while one is pending");
    s.installed();
    assertTrue(returned.await(30, SECONDS), "returns once it is installed");
  }

  /**
   * Puts version 1 of the target, then new keys on an "evictor" thread until the target's eviction is
   * appended to flash; returns once that eviction is stopped before its install, until {@code resume}.
   */
  private static Thread pauseEvictionOfTarget(Engine c, CountDownLatch resume, AtomicReference<Throwable> failure)
      throws InterruptedException {
    long target = new ByteKey(key(TARGET)).hash64();
    CountDownLatch paused = new CountDownLatch(1);
    c.flashTier().afterAppend(h -> {
      if (h == target && paused.getCount() > 0) {
        paused.countDown();
        await(resume);
      }
    });
    c.put(key(TARGET), value(TARGET, 1, VALUE));
    Thread evictor = start("evictor", failure, () -> {
      for (int k = 1; k < 10_000 && paused.getCount() > 0; k++) {
        c.put(key(k), value(k, 1, VALUE)); // until one of these evicts the target
      }
    });
    assertTrue(paused.await(60, SECONDS), "the target's eviction reached the point after its append");
    return evictor;
  }

  /**
   * A key (never put by {@link #pauseEvictionOfTarget}) whose {@link ByteKey} falls in the target's bin
   * of the DRAM tier's {@link java.util.concurrent.ConcurrentHashMap} for any table of up to 2^20 bins
   * (its spread hash has the same low 20 bits): a compute of it waits for the target's eviction.
   */
  private static int binMateOfTarget() {
    int want = spread(new ByteKey(key(TARGET)).hashCode()) & 0xF_FFFF;
    for (int k = 1_000_000; ; k++) {
      if ((spread(new ByteKey(key(k)).hashCode()) & 0xF_FFFF) == want) {
        return k;
      }
    }
  }

  /** ConcurrentHashMap's spread of a hash code. */
  private static int spread(int h) {
    return (h ^ (h >>> 16)) & 0x7fffffff;
  }

  private static Thread start(String name, AtomicReference<Throwable> failure, Runnable r) {
    Thread t = new Thread(() -> {
      try {
        r.run();
      } catch (Throwable e) {
        failure.compareAndSet(null, e);
      }
    }, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static void await(CountDownLatch l) {
    try {
      if (!l.await(60, SECONDS)) {
        throw new IllegalStateException("not resumed");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Polls until {@code loading} fired or {@code t} is blocked on a monitor, at most 30 s. */
  private static void awaitLoadingOrBlocked(Thread t, CountDownLatch loading) {
    long deadline = System.nanoTime() + SECONDS.toNanos(30);
    while (loading.getCount() > 0 && t.getState() != Thread.State.BLOCKED) {
      if (!t.isAlive() || System.nanoTime() - deadline > 0) {
        fail(t.getName() + " neither loads nor waits for the key's lock: " + t.getState());
      }
      LockSupport.parkNanos(1_000_000);
    }
  }

  /** Polls until {@code t} is blocked on a monitor (the map-bin lock), at most 30 s. */
  private static void awaitBlocked(Thread t) {
    long deadline = System.nanoTime() + SECONDS.toNanos(30);
    while (t.getState() != Thread.State.BLOCKED) {
      if (!t.isAlive() || System.nanoTime() - deadline > 0) {
        fail(t.getName() + " did not block on the key's lock: " + t.getState());
      }
      LockSupport.parkNanos(1_000_000);
    }
  }
}
