package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static io.hybridcache.core.engine.TestCaches.versionOf;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.device.FaultInjectingDevice;
import io.hybridcache.core.device.FileDevice;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Back-pressure on the cascade ({@link CacheConfig#cascadeWait()}) against a device whose writes are
 * held ({@link FaultInjectingDevice#holdWrites()}): the flusher parks on its first device write (the
 * header of the first segment), so the evicting thread fills its class's write buffers and then finds
 * none free, deterministically. A test learns that a put waits by polling the producer thread's state and
 * stack, bounded by a deadline, never by sleeping.
 */
@Timeout(180)
class CascadeWaitTest {
  private static final int BUFFERS = 2;
  private static final int VALUE = 400;
  /** About twice what the 1 MiB DRAM tier holds, so about half of the puts evict. */
  private static final int KEYS = 4000;
  /** Evictions the write buffers take before the first is free again (entries of about 450 B). */
  private static final int ABSORBED = BUFFERS * (16 * 1024 / 448 + 1);
  private static final Duration LONG_WAIT = CacheConfig.MAX_CASCADE_WAIT;

  @TempDir Path dir;
  private final AtomicReference<FaultInjectingDevice> device = new AtomicReference<>();
  private final List<Engine> engines = new ArrayList<>();
  private Thread producer;

  /** Opens the device's gate first (a failed test must not leave the writer parked), then closes. */
  @AfterEach
  void releaseAndClose() throws InterruptedException {
    if (device.get() != null) {
      device.get().releaseWrites();
    }
    if (producer != null) {
      producer.interrupt();
      producer.join(SECONDS.toMillis(30));
    }
    engines.forEach(Engine::close); // idempotent
  }

  private CacheConfig config(Duration wait) {
    return TestCaches.small(dir, IndexType.HEAP)
        .flashBytes(128L * TestCaches.SEGMENT) // room for every write of these tests: reclaim drops nothing
        .writeBuffers(BUFFERS)
        .cascadeWait(wait)
        .build();
  }

  /** Opens an engine over a {@link FaultInjectingDevice}; {@link #releaseAndClose} closes it. */
  private Engine open(CacheConfig c) {
    Engine e = Engine.open(c, (d, n, b, direct) -> {
      device.set(new FaultInjectingDevice(FileDevice.open(d, n, b, direct)));
      return device.get();
    });
    engines.add(e);
    return e;
  }

  /** {@link #open}, then holds every device write: the flusher parks on its first one. */
  private Engine openHeld(CacheConfig c) {
    Engine e = open(c);
    device.get().holdWrites();
    return e;
  }

  @Test
  void withoutWaitABurstOverflowingTheBuffersIsRejectedAtOnce() throws Exception {
    Engine c = openHeld(config(Duration.ZERO));
    for (int i = 0; i < KEYS; i++) {
      c.put(key(i), value(i, 1, VALUE)); // returns although the device does not move
    }
    assertTrue(device.get().awaitHeldWrite(30, SECONDS), "the flusher parked on the held device");
    CacheStats s = c.stats();
    long evictions = s.puts() - s.dramEntries();
    assertTrue(evictions > 2L * ABSORBED, "the burst must overflow the buffers: " + s);
    assertTrue(s.queueRejected() >= evictions - ABSORBED,
        "every eviction beyond what the buffers absorbed is rejected: " + evictions + " " + s);
    assertEquals(0, s.cascadeWaits(), "no eviction waits by default");
    device.get().releaseWrites();
  }

  @Test
  void aPutThatMustEvictWaitsUntilTheWriterMovesAndNothingIsLost() throws Exception {
    Engine c = openHeld(config(LONG_WAIT));
    AtomicInteger returned = new AtomicInteger();
    Run run = start(i -> {
      int k = i < KEYS ? i : i - KEYS; // every key once, then the first half again (version 2)
      c.put(key(k), value(k, i < KEYS ? 1 : 2, VALUE));
      returned.incrementAndGet();
      return i + 1 < KEYS + KEYS / 2;
    });
    awaitWaitingEviction(producer);
    assertTrue(returned.get() < KEYS + KEYS / 2 && run.done.getCount() == 1, "the put that evicts has not returned");
    assertEquals(0, c.counters().queueRejected.sum(), "nor has it given up");

    device.get().releaseWrites();
    assertTrue(run.done.await(120, SECONDS), "the producer finishes once the device moves");
    assertNull(run.failure.get());
    c.writeBack(); // DRAM keeps only clean copies, so the reads below evict nothing to flash
    CacheStats s = c.stats();
    assertEquals(0, s.queueRejected(), "no eviction was refused: " + s);
    assertEquals(0, s.degradedRejected(), s.toString());
    assertTrue(s.cascadeWaits() >= 1, s.toString());
    for (int k = 0; k < KEYS; k++) {
      byte[] v = c.get(key(k));
      assertNotNull(v, "key " + k + " lost: " + s);
      assertEquals(k < KEYS / 2 ? 2 : 1, versionOf(k, v), "key " + k + " reads its last value");
    }
  }

  @Test
  void anInterruptedWaitIsARejectionThatKeepsTheFlag() throws Exception {
    Engine c = openHeld(config(LONG_WAIT));
    AtomicInteger returned = new AtomicInteger();
    AtomicBoolean flagAfterPut = new AtomicBoolean();
    Run run = start(i -> {
      c.put(key(i), value(i, 1, VALUE));
      returned.incrementAndGet();
      flagAfterPut.set(Thread.currentThread().isInterrupted());
      return !flagAfterPut.get() && i + 1 < KEYS;
    });
    // the flusher parked on the held device first: no buffer can come free, so the wait found below
    // cannot end in room and the interrupt cannot land after the put's eviction found room
    assertTrue(device.get().awaitHeldWrite(30, SECONDS), "the flusher parked on the held device");
    awaitWaitingEviction(producer);
    producer.interrupt();
    assertTrue(run.done.await(30, SECONDS), "the interrupted put returns while the device is still held");
    assertNull(run.failure.get(), "nothing is thrown out of the eviction");
    assertTrue(flagAfterPut.get(), "the put returned with the interrupt flag set");
    long rejected = c.counters().queueRejected.sum();
    assertTrue(rejected >= 1, "the interrupted wait counts as a rejection");

    device.get().releaseWrites();
    c.writeBack();
    int lost = 0;
    for (int k = 0; k < returned.get(); k++) {
      byte[] v = c.get(key(k));
      if (v == null) {
        lost++;
      } else {
        assertArrayEquals(value(k, 1, VALUE), v, "key " + k);
      }
    }
    assertEquals(rejected, lost, "exactly the rejected evictions are lost, every buffered one installed");
  }

  @Test
  void closeWithAWaitingEvictionCompletesWhenTheDeviceMoves() throws Exception {
    CacheConfig cfg = config(LONG_WAIT);
    Engine c = openHeld(cfg);
    AtomicInteger returned = new AtomicInteger();
    Run run = start(i -> {
      try {
        c.put(key(i), value(i, 1, VALUE));
      } catch (IllegalStateException closed) {
        return false;
      }
      returned.incrementAndGet();
      return i + 1 < KEYS;
    });
    awaitWaitingEviction(producer);
    Thread closer = new Thread(c::close, "closer");
    closer.start();
    // close marks the cache closed first, then waits (bounded) for the put in flight and the held device:
    // release only after that,
    // so that every put that returned was in DRAM before close wrote DRAM back
    awaitState(closer, Thread.State.WAITING, Thread.State.BLOCKED, Thread.State.TIMED_WAITING);
    device.get().releaseWrites();
    closer.join(SECONDS.toMillis(120));
    assertTrue(!closer.isAlive(), "close completed");
    assertTrue(run.done.await(30, SECONDS));
    assertNull(run.failure.get());
    assertEquals(0, c.stats().queueRejected(), c.stats().toString());
    Engine reopened = open(cfg);
    for (int k = 0; k < returned.get(); k++) {
      assertArrayEquals(value(k, 1, VALUE), reopened.get(key(k)), "key " + k + " survives the close");
    }
  }

  /**
   * Several writers, each owning its keys, put (and sometimes remove) them in passes while evictions
   * wait: the device is held until some writer waits, then released. Every read returns the owner's
   * last write or a miss, never an older version; at the end every key reads its last write unless its
   * eviction was refused (counted).
   */
  @Test
  void concurrentWritersThatWaitKeepVersionsOrdered() throws Exception {
    int threads = 4;
    int owned = 1000;
    int passes = 3;
    Engine c = openHeld(TestCaches.small(dir, IndexType.HEAP).flashBytes(256L * TestCaches.SEGMENT)
        .writeBuffers(BUFFERS).cascadeWait(LONG_WAIT).build());
    long[][] last = new long[threads][owned]; // version of each owned key's last put, 0 = removed
    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    List<Thread> writers = new ArrayList<>();
    CountDownLatch done = new CountDownLatch(threads);
    for (int t = 0; t < threads; t++) {
      int me = t;
      writers.add(new Thread(() -> {
        try {
          for (int pass = 1; pass <= passes; pass++) {
            for (int slot = 0; slot < owned; slot++) {
              int k = me * owned + slot;
              if ((slot + pass) % 11 == 0) {
                c.remove(key(k));
                last[me][slot] = 0;
              } else {
                c.put(key(k), value(k, pass, VALUE));
                last[me][slot] = pass;
              }
              int probe = (slot * 7 + pass) % owned; // an earlier key of this writer
              byte[] got = c.get(key(me * owned + probe));
              if (got != null && versionOf(me * owned + probe, got) != last[me][probe]) {
                failures.add("key " + (me * owned + probe) + " read version " + versionOf(me * owned + probe, got)
                    + ", last write " + last[me][probe]);
              }
            }
          }
        } catch (RuntimeException e) {
          failures.add(e.toString());
        } finally {
          done.countDown();
        }
      }, "writer-" + t));
    }
    writers.forEach(w -> {
      w.setDaemon(true);
      w.start();
    });
    long deadline = System.nanoTime() + SECONDS.toNanos(30);
    while (writers.stream().noneMatch(CascadeWaitTest::inCascadeWait)) {
      if (System.nanoTime() - deadline > 0 || done.getCount() == 0) {
        fail("no writer waited for room");
      }
      LockSupport.parkNanos(1_000_000);
    }
    device.get().releaseWrites();
    assertTrue(done.await(120, SECONDS), "the writers finish once the device moves");
    assertTrue(failures.isEmpty(), () -> failures.size() + " failures, first: " + failures.peek());

    c.writeBack();
    CacheStats s = c.stats();
    assertEquals(0, s.reclaimEvicted(), "flash kept everything: " + s);
    assertTrue(s.cascadeWaits() >= 1, s.toString());
    int lost = 0;
    for (int t = 0; t < threads; t++) {
      for (int slot = 0; slot < owned; slot++) {
        int k = t * owned + slot;
        byte[] got = c.get(key(k));
        if (last[t][slot] == 0) {
          assertNull(got, "removed key " + k);
        } else if (got == null) {
          lost++;
        } else {
          assertEquals(last[t][slot], versionOf(k, got), "key " + k);
        }
      }
    }
    // the probes' reads run evictions too (Caffeine evicts on any calling thread), and an eviction on a
    // reading thread never waits: those are refused, counted, and the only keys that may be lost
    assertTrue(lost <= s.queueRejected(), lost + " keys lost, " + s);
  }

  @Test
  void cascadeWaitIsValidatedAndKept() {
    CacheConfig.Builder b = TestCaches.small(dir, IndexType.HEAP);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> b.cascadeWait(Duration.ofSeconds(20)).build());
    assertEquals("cascadeWait must be between 0 and 10 s, was PT20S", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> b.cascadeWait(Duration.ofMillis(-1)).build());
    assertTrue(e.getMessage().startsWith("cascadeWait ") && e.getMessage().endsWith("was PT-0.001S"),
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> b.cascadeWait(null).build());
    assertTrue(e.getMessage().startsWith("cascadeWait ") && e.getMessage().endsWith("was null"), e.getMessage());

    assertEquals(CacheConfig.DEFAULT_CASCADE_WAIT, TestCaches.small(dir, IndexType.HEAP).build().cascadeWait(),
        "bounded back-pressure by default");
    CacheConfig c = b.cascadeWait(Duration.ofSeconds(10)).build();
    assertEquals(Duration.ofSeconds(10), c.cascadeWait());
    assertEquals(Duration.ofSeconds(10), c.toBuilder().build().cascadeWait());
    assertTrue(c.toString().contains("cascadeWait=PT10S"), c.toString());
  }

  /** A producer thread's outcome. */
  private record Run(CountDownLatch done, AtomicReference<Throwable> failure) {}

  /** Starts {@link #producer}: calls {@code step} with 0, 1, 2, ... while it returns true. */
  private Run start(IntPredicate step) {
    Run run = new Run(new CountDownLatch(1), new AtomicReference<>());
    producer = new Thread(() -> {
      try {
        for (int i = 0; step.test(i); i++) {
          // next
        }
      } catch (Throwable t) {
        run.failure().set(t);
      } finally {
        run.done().countDown();
      }
    }, "producer");
    producer.setDaemon(true);
    producer.start();
    return run;
  }

  /** True if {@code t} is parked in the writer's timed wait for a free write buffer. */
  private static boolean inCascadeWait(Thread t) {
    return t.getState() == Thread.State.TIMED_WAITING
        && Arrays.stream(t.getStackTrace()).anyMatch(f -> f.getMethodName().equals("takeFree"));
  }

  /** Polls until {@code t} is parked in the writer's timed wait for a free write buffer (at most 30 s). */
  private static void awaitWaitingEviction(Thread t) {
    long deadline = System.nanoTime() + SECONDS.toNanos(30);
    while (!inCascadeWait(t)) {
      if (!t.isAlive()) {
        fail("the producer ended without waiting for room");
      }
      if (System.nanoTime() - deadline > 0) {
        fail("no eviction waited for room within 30 s; producer " + t.getState());
      }
      LockSupport.parkNanos(1_000_000);
    }
  }

  /** Polls until {@code t} is in one of {@code states} (at most 30 s). */
  private static void awaitState(Thread t, Thread.State... states) {
    long deadline = System.nanoTime() + SECONDS.toNanos(30);
    while (!Arrays.asList(states).contains(t.getState())) {
      if (System.nanoTime() - deadline > 0) {
        fail(t.getName() + " not in " + Arrays.toString(states) + " within 30 s: " + t.getState());
      }
      LockSupport.parkNanos(1_000_000);
    }
  }
}
