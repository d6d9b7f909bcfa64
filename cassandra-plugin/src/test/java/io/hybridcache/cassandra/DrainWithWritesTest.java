package io.hybridcache.cassandra;

import static io.hybridcache.cassandra.WarmNode.fill;
import static io.hybridcache.cassandra.WarmNode.key;
import static io.hybridcache.cassandra.WarmNode.read;
import static io.hybridcache.cassandra.WarmNode.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.cassandra.service.StorageService;
import org.junit.jupiter.api.Test;

/**
 * Writes go on while the node drains and after it (local writes, as a replica's mutations that were
 * already past the mutation stage). The drain is the one Cassandra's JVM shutdown hook runs
 * ({@code drain(true)}, on SIGTERM): the row cache closes at the end of it, the invalidations
 * that come after are refused, counted and never thrown, and the next start is cold, so it cannot
 * serve a partition older than those writes.
 */
class DrainWithWritesTest {
  private static final int PARTITIONS = 400;

  @Test
  void writesDuringTheDrainMakeTheNextStartCold() throws Exception {
    WarmNode node = WarmNode.start("embedded-drain");
    fill("hot", PARTITIONS);
    AtomicLongArray acked = new AtomicLongArray(PARTITIONS);
    for (int k = 0; k < PARTITIONS; k++) {
      acked.set(k, k);
    }
    AtomicBoolean drained = new AtomicBoolean();
    AtomicLong writesAfterDrain = new AtomicLong();
    ConcurrentLinkedQueue<Throwable> thrown = new ConcurrentLinkedQueue<>();
    List<Thread> threads = new ArrayList<>();
    int writers = 2;
    for (int w = 0; w < writers; w++) {
      int self = w;
      threads.add(new Thread(() -> {
        Random rnd = new Random(self);
        try {
          while (writesAfterDrain.get() < 400) {
            int k = rnd.nextInt(PARTITIONS / writers) * writers + self; // one writer per partition
            long v = acked.get(k) + 1_000_000;
            write("hot", k, v);
            acked.set(k, v);
            if (drained.get()) {
              writesAfterDrain.incrementAndGet();
            }
          }
        } catch (Throwable e) {
          thrown.add(e);
        }
      }, "writer-" + w));
    }
    threads.add(new Thread(() -> { // a reader: get, putIfAbsent(sentinel), replace around the close
      Random rnd = new Random(7);
      try {
        while (writesAfterDrain.get() < 400 && thrown.isEmpty()) {
          read("hot", rnd.nextInt(PARTITIONS));
        }
      } catch (Throwable e) {
        thrown.add(e);
      }
    }, "reader"));
    threads.forEach(Thread::start);
    Thread.sleep(300);
    // the drain of Cassandra's JVM shutdown hook (SIGTERM); nodetool's drain() is drain(false), same hooks
    Method finalDrain = StorageService.class.getDeclaredMethod("drain", boolean.class);
    finalDrain.setAccessible(true);
    finalDrain.invoke(StorageService.instance, true);
    drained.set(true);
    for (Thread t : threads) {
      t.join();
    }
    HybridRowCache rowCache = node.rowCache;
    assertTrue(thrown.isEmpty(), "a write or read failed: " + thrown.peek());
    assertTrue(rowCache.isClosed(), "closed at the end of the drain");
    assertTrue(rowCache.refusedInvalidations() >= 400,
        "every write after the close had its invalidation refused and counted: " + rowCache.refusedInvalidations());
    Path marker = node.flashDirectory().resolve(WarmStartMarker.FILE_NAME);
    assertFalse(Files.exists(marker), "no warm start after refused invalidations");

    // the next start, in this JVM: the provider as Cassandra calls it
    HybridRowCache next = (HybridRowCache) new HybridRowCacheProvider().create();
    try {
      assertFalse(next.isStartedWarm());
      assertEquals(0, next.hybridCache().stats().flashEntries());
      for (int k = 0; k < PARTITIONS; k++) {
        assertFalse(next.containsKey(key("hot", k)), "partition " + k + " from before the writes");
      }
    } finally {
      next.close();
    }
    for (int k = 0; k < PARTITIONS; k += 37) {
      assertEquals(acked.get(k), read("hot", k), "the data itself has every acknowledged write");
    }
  }
}
