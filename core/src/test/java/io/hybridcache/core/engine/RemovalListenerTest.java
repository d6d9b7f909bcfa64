package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.AdmissionPolicy;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.api.RemovalCause;
import io.hybridcache.core.api.VictimPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The removal listener: each cause, with the key and value, delivered on the configured executor (here
 * one the test drains itself, so nothing runs behind its back).
 */
class RemovalListenerTest {
  @TempDir Path dir;

  record Event(byte[] key, byte[] value, RemovalCause cause) {}

  /** Collects submitted notifications; {@link #drain} runs them on the test thread. */
  static final class Deferred implements Executor {
    final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();

    @Override
    public void execute(Runnable r) {
      tasks.add(r);
    }

    void drain() {
      for (Runnable r; (r = tasks.poll()) != null; ) {
        r.run();
      }
    }
  }

  private final Deferred executor = new Deferred();
  private final List<Event> events = Collections.synchronizedList(new ArrayList<>());

  private List<Event> drained(RemovalCause cause) {
    executor.drain();
    return events.stream().filter(e -> e.cause() == cause).toList();
  }

  @Test
  void explicitRemoveTellsTheKeyAndTheDramValueOnlyWhenTheCacheHeldIt() {
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).removalExecutor(executor)
        .removalListener((k, v, cause) -> events.add(new Event(k, v, cause))).build())) {
      c.put(key(1), value(1, 1, 100));
      assertTrue(c.remove(key(1)));
      c.remove(key(2)); // not held: no notification
      assertTrue(events.isEmpty(), "nothing runs before the executor does");
      List<Event> explicit = drained(RemovalCause.EXPLICIT);
      assertEquals(1, explicit.size());
      assertArrayEquals(key(1), explicit.get(0).key());
      assertArrayEquals(value(1, 1, 100), explicit.get(0).value());
    }
  }

  @Test
  void dramEvictionsToFlashAndThoseFlashRefusesAreTold() {
    AdmissionPolicy oddOnly = new AdmissionPolicy() {
      @Override
      public boolean accept(long keyHash, int bytes) {
        return (keyHash & 1) == 1;
      }

      @Override
      public long rejected() {
        return 0;
      }

      @Override
      public String name() {
        return "odd-hashes";
      }
    };
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).removalExecutor(executor).admission(oddOnly)
        .flashBytes(64L * TestCaches.SEGMENT).removalListener((k, v, cause) -> events.add(new Event(k, v, cause)))
        .build())) {
      int n = 3000; // 3 MB through a 1 MiB DRAM tier
      for (int i = 0; i < n; i++) {
        c.put(key(i), value(i, 1, 1000));
      }
      c.awaitFlashWrites();
      List<Event> toFlash = drained(RemovalCause.EVICTED_FROM_DRAM);
      List<Event> gone = drained(RemovalCause.EVICTED);
      assertTrue(toFlash.size() > 500 && gone.size() > 500, toFlash.size() + " to flash, " + gone.size() + " gone");
      for (Event e : toFlash) {
        assertEquals(1, new ByteKey(e.key()).hash64() & 1, "admitted");
        assertArrayEquals(e.value(), c.get(e.key()), "an entry told as moved to flash is served");
      }
      for (Event e : gone) {
        assertEquals(0, new ByteKey(e.key()).hash64() & 1, "refused by admission");
        assertNull(c.get(e.key()), "an entry told as gone misses");
      }
    }
  }

  @Test
  void flashReclaimEvictionsAreToldWithTheirKeys() {
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).removalExecutor(executor)
        .victimPolicy(VictimPolicy.fifo()).reinsertAllBelowLiveRatio(0)
        .removalListener((k, v, cause) -> events.add(new Event(k, v, cause))).build())) {
      for (int i = 0; i < 4000; i++) { // 4 MB through 1 MiB of flash: reclaim evicts the oldest
        c.put(key(i), value(i, 1, 1000));
      }
      c.flush();
      CacheStats s = c.stats();
      assertTrue(s.reclaimEvicted() > 0, "reclaim evicted: " + s);
      Set<Integer> missing = new TreeSet<>();
      for (int i = 0; i < 4000; i++) {
        if (!c.containsKey(key(i))) { // containsKey promotes nothing: the state stays as it is
          missing.add(i);
        }
      }
      Set<Integer> told = new TreeSet<>();
      for (Event e : drained(RemovalCause.EVICTED)) { // drained now: a key DRAM still holds is not told
        int i = TestCaches.keyIndex(e.key());
        assertArrayEquals(value(i, 1, 1000), e.value());
        assertTrue(told.add(i), "told once: " + i);
      }
      assertTrue(missing.size() > 1000, missing.size() + " missing");
      assertEquals(missing, told, "told as gone exactly the keys the cache no longer holds");
    }
  }

  @Test
  void dramExpiryIsTold() {
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).removalExecutor(executor)
        .removalListener((k, v, cause) -> events.add(new Event(k, v, cause))).build())) {
      long putAt = System.nanoTime();
      c.put(key(5), value(5, 1, 100), Duration.ofMillis(1));
      // Expiry is time-driven: Caffeine's timer wheel removes the entry within about a second of its
      // TTL; poll for the notification (bounded), running DRAM maintenance each time.
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      List<Event> expired = drained(RemovalCause.EXPIRED);
      while (expired.isEmpty() && System.nanoTime() < deadline) {
        if (System.nanoTime() - putAt > Duration.ofMillis(2).toNanos()) {
          assertNull(c.get(key(5)), "an expired entry is a miss at once");
        }
        c.dramTier().cleanUp();
        java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
        expired = drained(RemovalCause.EXPIRED);
      }
      assertEquals(1, expired.size());
      assertArrayEquals(key(5), expired.get(0).key());
    }
  }
}
