package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.Codec;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.api.Tier;
import io.hybridcache.core.api.TypedCache;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * getAll and the single-flight {@code get(key, loader)}. Races are forced: a loader parks on a latch, the
 * test waits until the second caller is parked on the load ({@link #awaitParked}), then releases.
 */
class CacheApiTest {
  @TempDir Path dir;
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  private Engine open() {
    return TestCaches.open(TestCaches.small(dir, IndexType.HEAP).build());
  }

  @Test
  void getAllAnswersDramFlashAndMissesInTheCallersOrder() {
    try (Engine c = open()) {
      for (int i = 0; i < 300; i++) {
        c.put(key(i), value(i, 1, 900));
      }
      c.writeBackAndDropDram(); // 0..299 on flash only
      c.put(key(1000), value(1000, 1, 900)); // in DRAM
      List<byte[]> keys = List.of(key(250), key(1000), key(5000), key(3), key(120));
      CacheStats before = c.stats();
      List<byte[]> values = c.getAll(keys);
      CacheStats after = c.stats();
      assertArrayEquals(value(250, 1, 900), values.get(0));
      assertArrayEquals(value(1000, 1, 900), values.get(1));
      assertNull(values.get(2));
      assertArrayEquals(value(3, 1, 900), values.get(3));
      assertArrayEquals(value(120, 1, 900), values.get(4));
      assertEquals(5, after.gets() - before.gets());
      assertEquals(1, after.dramHits() - before.dramHits());
      assertEquals(3, after.flashHits() - before.flashHits());
      assertEquals(1, after.misses() - before.misses());
    }
  }

  /**
   * readTiered and readAll tell their decoder the tier that served each hit (a flash hit promotes: the next read
   * of it is DRAM's), count as get and getAll do, and hand over DRAM's own array: two readAll of a DRAM hit see the
   * same array (no copy), where getAll copies.
   */
  @Test
  void tieredReadsTellTheTierAndCopyNothing() {
    try (Engine c = open()) {
      for (int i = 0; i < 300; i++) {
        c.put(key(i), value(i, 1, 900));
      }
      c.writeBackAndDropDram(); // 0..299 on flash only
      c.put(key(1000), value(1000, 1, 900)); // in DRAM
      assertEquals(Tier.FLASH, c.readTiered(key(3), (v, tier) -> tier));
      assertEquals(Tier.DRAM, c.readTiered(key(3), (v, tier) -> tier), "promoted by the flash hit");
      assertNull(c.readTiered(key(5000), (v, tier) -> tier));
      CacheStats before = c.stats();
      List<Tier> tiers = c.readAll(List.of(key(250), key(1000), key(5000)), (v, tier) -> tier);
      CacheStats after = c.stats();
      assertEquals(Arrays.asList(Tier.FLASH, Tier.DRAM, null), tiers);
      assertEquals(3, after.gets() - before.gets());
      assertEquals(1, after.dramHits() - before.dramHits());
      assertEquals(1, after.flashHits() - before.flashHits());
      assertEquals(1, after.misses() - before.misses());
      List<byte[]> one = List.of(key(1000));
      byte[] first = c.readAll(one, (v, tier) -> v).get(0);
      assertSame(first, c.readAll(one, (v, tier) -> v).get(0), "readAll copied a DRAM hit");
      assertArrayEquals(value(1000, 1, 900), first);
      assertTrue(first != c.getAll(one).get(0), "getAll returns a copy");
    }
  }

  @Test
  void getAllReadsFlashInAddressOrder() {
    try (Engine c = open()) {
      for (int i = 0; i < 200; i++) {
        c.put(key(i), value(i, 1, 900));
      }
      c.writeBackAndDropDram();
      List<byte[]> keys = new ArrayList<>();
      for (int i = 199; i >= 0; i -= 3) {
        keys.add(key(i)); // written last first: the reverse of their flash order
      }
      long[] addresses = keys.stream().mapToLong(k -> c.flashTier().address(new ByteKey(k).hash64())).toArray();
      long[] sorted = addresses.clone();
      Arrays.sort(sorted);
      assertTrue(!Arrays.equals(addresses, sorted), "the request order is not the address order");
      List<byte[]> values = c.getAll(keys);
      for (int i = 0; i < keys.size(); i++) {
        assertArrayEquals(value(199 - 3 * i, 1, 900), values.get(i));
      }
    }
  }

  @Test
  void readDecodesFromAReadOnlyViewOfEitherTier() {
    try (Engine c = open()) {
      c.put(key(1), value(1, 1, 900));
      for (int i = 100; i < 300; i++) {
        c.put(key(i), value(i, 1, 900));
      }
      c.writeBackAndDropDram(); // all on flash
      c.put(key(1), value(1, 2, 900)); // and key 1 in DRAM
      CacheStats before = c.stats();
      for (int k : new int[] {1, 150}) {
        byte[] got = c.read(key(k), buf -> {
          assertTrue(buf.isReadOnly(), "a view the decoder cannot change");
          byte[] copy = new byte[buf.remaining()];
          buf.get(copy);
          return copy;
        });
        assertArrayEquals(value(k, k == 1 ? 2 : 1, 900), got);
      }
      assertNull(c.read(key(5000), buf -> {
        throw new AssertionError("no decode on a miss");
      }));
      CacheStats after = c.stats();
      assertEquals(3, after.gets() - before.gets());
      assertEquals(1, after.dramHits() - before.dramHits());
      assertEquals(1, after.flashHits() - before.flashHits());
      assertArrayEquals(value(150, 1, 900), c.get(key(150)), "the flash hit was promoted as a get would");
      assertEquals(after.dramHits() + 1, c.stats().dramHits());
    }
  }

  /**
   * readArray hands the decoder the one array the lookup has, never a copy: a flash hit's array is the
   * one promoted into DRAM (the next DRAM hit decodes the same array), and {@code get} still copies.
   */
  @Test
  void readArrayDecodesTheCachesOwnArrayWithoutACopy() {
    try (Engine c = open()) {
      for (int i = 100; i < 300; i++) {
        c.put(key(i), value(i, 1, 900));
      }
      c.writeBackAndDropDram(); // all on flash
      CacheStats before = c.stats();
      byte[] fromFlash = c.readArray(key(150), v -> v);
      byte[] fromDram = c.readArray(key(150), v -> v);
      CacheStats after = c.stats();
      assertEquals(1, after.flashHits() - before.flashHits());
      assertEquals(1, after.dramHits() - before.dramHits(), "the flash hit was promoted");
      assertArrayEquals(value(150, 1, 900), fromFlash);
      assertSame(fromFlash, fromDram, "the decoder of the flash hit read the array DRAM now holds");
      byte[] copy = c.get(key(150));
      assertArrayEquals(fromDram, copy);
      assertTrue(copy != fromDram, "get returns a copy the caller owns");
      assertNull(c.readArray(key(5000), v -> {
        throw new AssertionError("no decode on a miss");
      }));
      assertEquals(after.misses() + 1, c.stats().misses());
    }
  }

  @Test
  void aMissLoadsOnceAndStoresTheValue() {
    try (Engine c = open()) {
      AtomicInteger calls = new AtomicInteger();
      assertArrayEquals(value(1, 1, 100), c.get(key(1), k -> {
        calls.incrementAndGet();
        return value(1, 1, 100);
      }));
      assertArrayEquals(value(1, 1, 100), c.get(key(1), k -> {
        throw new AssertionError("a hit must not load");
      }));
      assertEquals(1, calls.get());
      assertNull(c.get(key(2), k -> null), "a null load is a miss, not stored");
      assertNull(c.get(key(2)));
    }
  }

  @Test
  void concurrentMissesOfOneKeyShareOneLoad() throws Exception {
    try (Engine c = open()) {
      CountDownLatch entered = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      AtomicInteger loads = new AtomicInteger();
      Future<byte[]> first = pool.submit(() -> c.get(key(7), k -> {
        loads.incrementAndGet();
        entered.countDown();
        await(release);
        return value(7, 1, 100);
      }));
      assertTrue(entered.await(10, TimeUnit.SECONDS));
      Thread[] second = new Thread[1];
      Future<byte[]> waiter = pool.submit(() -> {
        second[0] = Thread.currentThread();
        return c.get(key(7), k -> {
          loads.incrementAndGet();
          return value(7, 2, 100);
        });
      });
      awaitParked(second);
      release.countDown();
      assertArrayEquals(value(7, 1, 100), first.get(10, TimeUnit.SECONDS));
      assertArrayEquals(value(7, 1, 100), waiter.get(10, TimeUnit.SECONDS));
      assertEquals(1, loads.get(), "one load for both callers");
    }
  }

  @Test
  void aLoadersExceptionReachesEveryWaiterAndNothingIsStored() throws Exception {
    try (Engine c = open()) {
      CountDownLatch entered = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      IllegalStateException boom = new IllegalStateException("backing store down");
      Future<byte[]> first = pool.submit(() -> c.get(key(8), k -> {
        entered.countDown();
        await(release);
        throw boom;
      }));
      assertTrue(entered.await(10, TimeUnit.SECONDS));
      Thread[] second = new Thread[1];
      Future<byte[]> waiter = pool.submit(() -> {
        second[0] = Thread.currentThread();
        return c.get(key(8), k -> value(8, 9, 10));
      });
      awaitParked(second);
      release.countDown();
      assertSame(boom, assertThrows(java.util.concurrent.ExecutionException.class,
          () -> first.get(10, TimeUnit.SECONDS)).getCause());
      assertSame(boom, assertThrows(java.util.concurrent.ExecutionException.class,
          () -> waiter.get(10, TimeUnit.SECONDS)).getCause());
      assertNull(c.get(key(8)));
      assertArrayEquals(value(8, 3, 10), c.get(key(8), k -> value(8, 3, 10)), "the next miss loads again");
    }
  }

  @Test
  void aPutOrRemoveDuringALoadWins() throws Exception {
    try (Engine c = open()) {
      for (boolean remove : new boolean[] {false, true}) {
        int k = remove ? 21 : 20;
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Future<byte[]> load = pool.submit(() -> c.get(key(k), kk -> {
          entered.countDown();
          await(release);
          return value(k, 1, 100); // read from a backing store before the write below
        }));
        assertTrue(entered.await(10, TimeUnit.SECONDS));
        if (remove) {
          c.put(key(k), value(k, 2, 100));
          c.remove(key(k));
        } else {
          c.put(key(k), value(k, 2, 100));
        }
        release.countDown();
        assertArrayEquals(value(k, 1, 100), load.get(10, TimeUnit.SECONDS), "the caller gets what it loaded");
        if (remove) {
          assertNull(c.get(key(k)), "the remove during the load stands");
        } else {
          assertArrayEquals(value(k, 2, 100), c.get(key(k)), "the put during the load stands");
        }
      }
    }
  }

  @Test
  void aLoaderThatAsksForItsOwnKeyFails() {
    try (Engine c = open()) {
      assertThrows(IllegalStateException.class, () -> c.get(key(9), k -> c.get(key(9), kk -> value(9, 1, 10))));
      assertArrayEquals(value(9, 2, 10), c.get(key(9), k -> value(9, 2, 10)), "the failed load left nothing behind");
    }
  }

  @Test
  void theTypedViewLoadsAndGetsAll() {
    try (Engine c = open()) {
      TypedCache<String, String> t = c.typed(Codec.utf8(), Codec.utf8());
      t.put("a", "1");
      assertEquals("2", t.get("b", k -> "2"));
      assertEquals("2", t.get("b", k -> "not called"));
      assertEquals(Map.of("a", "1", "b", "2"), t.getAll(List.of("a", "b", "c")));
      assertNull(t.get("d", k -> null));
    }
  }

  @Test
  void sizesTakeLongsAndNameTheBadValue() {
    CacheConfig ok = CacheConfig.builder(dir).segmentBytes(4 * CacheConfig.MIB).writeBufferBytes(CacheConfig.MIB).build();
    assertEquals(4 * CacheConfig.MIB, ok.segmentBytes());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CacheConfig.builder(dir).segmentBytes(8L << 30).build());
    assertTrue(e.getMessage().startsWith("segmentBytes") && e.getMessage().contains("8589934592"), e.getMessage());
  }

  private static void await(CountDownLatch l) {
    try {
      if (!l.await(10, TimeUnit.SECONDS)) {
        throw new AssertionError("not released");
      }
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  /** Until the thread (set by the task itself) is parked: waiting on the load, not yet loading. */
  private static void awaitParked(Thread[] t) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (t[0] == null || t[0].getState() != Thread.State.WAITING) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the second caller never waited");
      }
      Thread.onSpinWait();
    }
  }
}
