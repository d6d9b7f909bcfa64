package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Concurrent writers and readers through both flash engines (1 MiB of DRAM, values of 100 B or 3000 B at
 * random, so keys move between the engines on every other put): a read never serves a version older than
 * the last put or remove of its key acknowledged before the read began, nor a value written for another
 * key. Writers own disjoint keys (a key's operations are sequential); readers read every key.
 */
class SmallEngineConcurrencyTest {
  private static final int KEYS = 2000; // about 3 MB of values through 1 MiB of DRAM
  private static final int WRITERS = 2;
  private static final int READERS = 2;
  private static final int OPS = 15_000;

  @TempDir
  Path dir;

  @Test
  void readsNeverServeAVersionOlderThanTheLastAcknowledged() throws Exception {
    try (Engine cache = TestCaches.open(SmallEngineWiringTest.config(dir).build())) {
      AtomicLongArray acked = new AtomicLongArray(KEYS); // newest acknowledged version; removes store -version
      ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
      AtomicBoolean writing = new AtomicBoolean(true);
      CountDownLatch writersDone = new CountDownLatch(WRITERS);
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        int writer = w;
        threads.add(new Thread(() -> {
          try {
            Random rnd = new Random(writer);
            for (int op = 1; op <= OPS; op++) {
              int k = writer + WRITERS * rnd.nextInt(KEYS / WRITERS);
              long version = (long) op * WRITERS + writer;
              if (rnd.nextInt(10) < 8) {
                cache.put(key(k), value(k, version, rnd.nextBoolean() ? 100 : 3000));
                acked.set(k, version);
              } else {
                cache.remove(key(k));
                acked.set(k, -version);
              }
              if (op % 2000 == 0) {
                cache.flush();
              }
            }
          } catch (Throwable t) {
            violations.add("writer " + writer + ": " + t);
          } finally {
            writersDone.countDown();
          }
        }, "small-writer-" + w));
      }
      for (int r = 0; r < READERS; r++) {
        int reader = r;
        threads.add(new Thread(() -> {
          Random rnd = new Random(100 + reader);
          try {
            while (writing.get()) {
              int k = rnd.nextInt(KEYS);
              long before = acked.get(k);
              byte[] v = cache.get(key(k));
              if (v == null) {
                continue;
              }
              long version = TestCaches.versionOf(k, v);
              if (version < 0) {
                violations.add("key " + k + ": a value not written for it");
              } else if (version < Math.abs(before) || before < 0 && version == -before) {
                violations.add("key " + k + ": version " + version + " after " + before + " was acknowledged");
              }
            }
          } catch (Throwable t) {
            violations.add("reader " + reader + ": " + t);
          }
        }, "small-reader-" + r));
      }
      threads.forEach(Thread::start);
      assertTrue(writersDone.await(120, TimeUnit.SECONDS), "the writers finished");
      writing.set(false);
      for (Thread t : threads) {
        t.join(TimeUnit.SECONDS.toMillis(30));
      }
      assertEquals(List.of(), List.copyOf(violations).subList(0, Math.min(10, violations.size())));
      var s = cache.stats();
      System.out.printf("SmallEngineConcurrency: %d gets, %d flash hits (%d small), %d puts, %d removes%n",
          s.gets(), s.flashHits(), s.smallObjects().hits(), s.puts(), s.removes());
      assertTrue(s.smallObjects().hits() > 0 && s.smallObjects().objectsAdmitted() > 0, "both engines used");
    }
  }
}
