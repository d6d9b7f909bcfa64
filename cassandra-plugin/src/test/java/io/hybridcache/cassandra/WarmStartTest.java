package io.hybridcache.cassandra;

import static io.hybridcache.cassandra.WarmNode.KEYS;
import static io.hybridcache.cassandra.WarmNode.KS;
import static io.hybridcache.cassandra.WarmNode.fill;
import static io.hybridcache.cassandra.WarmNode.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.cassandra.cache.RowCacheKey;
import org.apache.cassandra.cache.RowCacheSentinel;
import org.apache.cassandra.db.partitions.CachedPartition;
import org.apache.cassandra.service.StorageService;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@code start=warm}: a clean close lets the next start keep the flash tier; an invalidation refused
 * after the close (or racing it) makes it cold; and on a real node the close happens at the end of
 * Cassandra's drain. The first two tests use row caches of their own beside the node (real partitions
 * of the node's tables); the last one drains the node, so it runs last.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WarmStartTest {
  private static WarmNode node;

  @BeforeAll
  static void start() throws Exception {
    node = WarmNode.start("embedded-warm");
  }

  private static HybridRowCache open(String name) {
    return node.openBeside(name);
  }

  private static Path marker(HybridRowCache c) {
    return c.hybridCache().config().directory().resolve(WarmStartMarker.FILE_NAME);
  }

  @Test
  @Order(1)
  void aCleanCloseAllowsAWarmStartAndARefusedInvalidationRevokesIt() {
    fill("solo", 40);
    // as a drain would: no memtable left for a background flush between the close and the next open
    org.apache.cassandra.db.Keyspace.open(KS).getColumnFamilyStore("solo")
        .forceBlockingFlush(org.apache.cassandra.db.ColumnFamilyStore.FlushReason.UNIT_TESTS);
    List<RowCacheKey> keys = new ArrayList<>();
    List<byte[]> stored = new ArrayList<>();
    HybridRowCache first = open("solo-a");
    assertFalse(first.isStartedWarm(), "no marker: the first start is cold");
    for (int k = 0; k < 40; k++) {
      RowCacheKey key = key("solo", k);
      first.put(key, (CachedPartition) node.rowCache.get(key));
      keys.add(key);
      stored.add(first.hybridCache().get(KEYS.key(key)));
    }
    first.close();
    assertTrue(first.isClosed());
    assertTrue(Files.exists(marker(first)), "a clean close with nothing refused writes the marker");

    HybridRowCache second = open("solo-a");
    assertTrue(second.isStartedWarm());
    assertFalse(Files.exists(marker(second)), "the start consumed the marker: a crash now would mean cold");
    for (int i = 0; i < keys.size(); i++) {
      assertTrue(second.get(keys.get(i)) instanceof CachedPartition, "kept across the restart: " + i);
      assertArrayEquals(stored.get(i), second.hybridCache().get(KEYS.key(keys.get(i))));
    }
    second.remove(keys.get(0)); // applied: it does not stop a warm start
    second.close();
    second.close(); // idempotent
    assertTrue(Files.exists(marker(second)));
    assertEquals(0, second.refusedInvalidations());

    // Cassandra writes on after the close: the write's invalidation cannot be applied, so it revokes the marker
    second.remove(keys.get(1));
    assertEquals(1, second.refusedInvalidations());
    assertFalse(Files.exists(marker(second)));
    second.clear();
    second.setCapacity(0);
    for (var it = second.keyIterator(); it.hasNext(); ) {
      it.next();
    }
    assertEquals(4, second.refusedInvalidations(), "clear, capacity 0 and a TRUNCATE's key scan count too");
    // reads and read-caching after close: misses and no-ops, never an exception
    assertNull(second.get(keys.get(2)));
    assertFalse(second.containsKey(keys.get(2)));
    RowCacheSentinel s = new RowCacheSentinel();
    assertFalse(second.putIfAbsent(keys.get(3), s));
    assertFalse(second.replace(keys.get(3), s, (CachedPartition) node.rowCache.get(keys.get(3))));
    assertFalse(second.hotKeyIterator(10).hasNext());
    assertTrue(second.size() >= 0);

    HybridRowCache third = open("solo-a");
    assertFalse(third.isStartedWarm());
    assertEquals(0, third.hybridCache().stats().flashEntries());
    for (RowCacheKey key : keys) {
      assertFalse(third.containsKey(key), "the start after a refused invalidation is cold");
    }
    third.close();
  }

  @Test
  @Order(2)
  void invalidationsRacingTheCloseAreCountedNeverThrownAndMakeTheNextStartCold() throws Exception {
    fill("race", 200);
    HybridRowCache cache = open("solo-b");
    List<RowCacheKey> keys = new ArrayList<>();
    for (int k = 0; k < 200; k++) {
      RowCacheKey key = key("race", k);
      cache.put(key, (CachedPartition) node.rowCache.get(key));
      keys.add(key);
    }
    AtomicBoolean closed = new AtomicBoolean();
    ConcurrentLinkedQueue<Throwable> thrown = new ConcurrentLinkedQueue<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int self = t;
      threads.add(new Thread(() -> {
        Random rnd = new Random(self);
        int afterClose = 0;
        try {
          while (afterClose < 200) { // keep going for a while after close returned
            RowCacheKey key = keys.get(rnd.nextInt(keys.size()));
            if (self % 2 == 0) {
              cache.remove(key); // a write
            } else {
              RowCacheSentinel s = new RowCacheSentinel(); // a read that caches what it read
              if (cache.get(key) == null && cache.putIfAbsent(key, s)) {
                cache.replace(key, s, (CachedPartition) node.rowCache.get(key));
              }
            }
            if (closed.get()) {
              afterClose++;
            }
          }
        } catch (Throwable e) {
          thrown.add(e);
        }
      }, "caller-" + t));
    }
    threads.forEach(Thread::start);
    Thread.sleep(100);
    cache.close();
    closed.set(true);
    for (Thread t : threads) {
      t.join();
    }
    assertTrue(thrown.isEmpty(), "thrown into Cassandra: " + thrown.peek());
    assertTrue(cache.refusedInvalidations() >= 400, "each write after close counted: " + cache.refusedInvalidations());
    assertTrue(cache.ignoredAfterClose() > 0);
    assertFalse(Files.exists(marker(cache)));

    HybridRowCache next = open("solo-b");
    assertFalse(next.isStartedWarm());
    for (RowCacheKey key : keys) {
      assertFalse(next.containsKey(key));
    }
    next.close();
  }

  /** The provider closes the node's row cache at the end of StorageService.drain; the next start is warm. */
  @Test
  @Order(3)
  void aCleanDrainClosesTheRowCacheAndTheNextStartKeepsIt() throws Exception {
    fill("kept", 300);
    List<byte[]> stored = new ArrayList<>();
    for (int k = 0; k < 300; k++) {
      byte[] v = node.rowCache.hybridCache().get(KEYS.key(key("kept", k)));
      assertNotNull(v);
      stored.add(v);
    }
    Path marker = node.flashDirectory().resolve(WarmStartMarker.FILE_NAME);
    assertFalse(Files.exists(marker));
    StorageService.instance.drain(); // as nodetool drain; the JVM shutdown hook's drain runs the same hooks
    assertTrue(node.rowCache.isClosed(), "closed by the post-shutdown hook");
    assertEquals(0, node.rowCache.refusedInvalidations());
    assertTrue(Files.exists(marker));

    // the next start, in this JVM: the provider as Cassandra calls it
    HybridRowCache next = (HybridRowCache) new HybridRowCacheProvider().create();
    try {
      assertTrue(next.isStartedWarm());
      assertTrue(next.hybridCache().stats().flashEntries() >= 300, "DRAM was written back to flash at close");
      for (int k = 0; k < 300; k++) {
        assertArrayEquals(stored.get(k), next.hybridCache().get(KEYS.key(key("kept", k))), "partition " + k);
        CachedPartition p = (CachedPartition) next.get(key("kept", k));
        assertEquals(1, p.rowCount());
      }
    } finally {
      next.close();
    }
  }
}
