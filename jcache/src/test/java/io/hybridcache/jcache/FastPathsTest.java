package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.device.DeviceCounters;
import java.io.Serializable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryRemovedListener;
import javax.cache.expiry.AccessedExpiryPolicy;
import javax.cache.integration.CacheLoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 37's fast paths, each by a forced interleaving (latches name the points, CacheLib SeqPoints style) or
 * by the engine's own counters: a hit takes no lock, nested invokes across caches cannot deadlock, access
 * expiry writes nothing, removeAll reads no other cache's bytes and blocks no get.
 */
class FastPathsTest {
  @TempDir Path dir;

  /** Daemon threads: a deadlock on the old code must not keep the test JVM alive. */
  private final ExecutorService pool = Executors.newCachedThreadPool(new ThreadFactory() {
    private final AtomicInteger n = new AtomicInteger();

    @Override
    public Thread newThread(Runnable r) {
      Thread t = new Thread(r, "fast-paths-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    }
  });

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  /** Blocks the load of {@link #SLOW} until {@link #release} opens; counts its loads. */
  public static final class GatedLoader implements CacheLoader<String, String>, Serializable {
    private static final long serialVersionUID = 1L;
    static final String SLOW = "slow";

    public GatedLoader() {}
    static volatile CountDownLatch loading = new CountDownLatch(1);
    static volatile CountDownLatch release = new CountDownLatch(1);
    static final AtomicInteger LOADS = new AtomicInteger();

    static void reset() {
      loading = new CountDownLatch(1);
      release = new CountDownLatch(1);
      LOADS.set(0);
    }

    @Override
    public String load(String key) {
      LOADS.incrementAndGet();
      if (key.equals(SLOW)) {
        loading.countDown();
        try {
          release.await(10, TimeUnit.SECONDS); // bounded: a blocked get on the old code ends the test, not the JVM
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return "loaded:" + key;
    }

    @Override
    public Map<String, String> loadAll(Iterable<? extends String> keys) {
      throw new UnsupportedOperationException();
    }
  }

  private Cache<String, String> readThrough(CacheManager m) {
    return m.createCache("rt", new MutableConfiguration<String, String>().setTypes(String.class, String.class)
        .setReadThrough(true).setCacheLoaderFactory(FactoryBuilder.factoryOf(GatedLoader.class)));
  }

  /** A key other than {@code key} on its lock stripe. */
  private static String sameStripe(Cache<String, String> c, String key) {
    HybridJCache<String, String> h = c.unwrap(HybridJCache.class);
    int stripe = h.stripeOf(key);
    for (int i = 0; ; i++) {
      String k = "present-" + i;
      if (h.stripeOf(k) == stripe) {
        return k;
      }
    }
  }

  /**
   * Points: the loader of SLOW holds (on the old code) SLOW's stripe and blocks; a get of a present key of that
   * stripe must return while the loader is still blocked (the 10 ms, asserted generously: before the
   * loader is released, within 5 s).
   */
  @Test
  void aHitIsNotBlockedByALoaderOnItsStripe() throws Exception {
    GatedLoader.reset();
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<String, String> c = readThrough(m);
      String present = sameStripe(c, GatedLoader.SLOW);
      c.put(present, "v");
      Future<String> load = pool.submit(() -> c.get(GatedLoader.SLOW));
      assertTrue(GatedLoader.loading.await(5, TimeUnit.SECONDS), "the loader started");
      long start = System.nanoTime();
      Future<String> hit = pool.submit(() -> c.get(present));
      try {
        assertEquals("v", hit.get(5, TimeUnit.SECONDS));
      } finally {
        GatedLoader.release.countDown();
      }
      assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5));
      assertEquals("loaded:" + GatedLoader.SLOW, load.get(10, TimeUnit.SECONDS));
    }
  }

  /**
   * Points: a load of SLOW is blocked in its loader; a put of SLOW completes meanwhile (the loader holds no lock);
   * then the load ends. The get returns the put's value, and the put's value stays: a load never overwrites a
   * newer write.
   */
  @Test
  void aLoadThatRacesAPutReturnsAndKeepsThePut() throws Exception {
    GatedLoader.reset();
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<String, String> c = readThrough(m);
      Future<String> load = pool.submit(() -> c.get(GatedLoader.SLOW));
      assertTrue(GatedLoader.loading.await(5, TimeUnit.SECONDS), "the loader started");
      try {
        pool.submit(() -> c.put(GatedLoader.SLOW, "put")).get(5, TimeUnit.SECONDS);
      } finally {
        GatedLoader.release.countDown();
      }
      assertEquals("put", load.get(10, TimeUnit.SECONDS));
      assertEquals("put", c.get(GatedLoader.SLOW));
    }
  }

  /**
   * Lock-free reads against a writer of increasing values: a get that starts after a put returned never sees an
   * older value (the writer publishes each completed put; readers check every read against it).
   */
  @Test
  void aLockFreeReadIsNeverOlderThanTheLastCompletedPut() throws Exception {
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<String, Long> c = m.createCache("versions", new MutableConfiguration<String, Long>()
          .setTypes(String.class, Long.class));
      java.util.concurrent.atomic.AtomicLong completed = new java.util.concurrent.atomic.AtomicLong(-1);
      c.put("k", 0L);
      completed.set(0);
      int writes = 20_000;
      Future<?> writer = pool.submit(() -> {
        for (long v = 1; v <= writes; v++) {
          c.put("k", v);
          completed.set(v);
        }
      });
      java.util.List<Future<Long>> readers = new java.util.ArrayList<>();
      for (int r = 0; r < 2; r++) {
        readers.add(pool.submit(() -> {
          long stale = 0;
          while (completed.get() < writes) {
            long floor = completed.get();
            long got = c.get("k");
            if (got < floor) {
              stale++;
            }
          }
          return stale;
        }));
      }
      writer.get(60, TimeUnit.SECONDS);
      for (Future<Long> r : readers) {
        assertEquals(0L, r.get(60, TimeUnit.SECONDS), "reads older than a completed put");
      }
    }
  }

  /** Two gets of one missing key while its loader runs: one load (a per-key single flight), both get its value. */
  @Test
  void concurrentMissesOfOneKeyLoadItOnce() throws Exception {
    GatedLoader.reset();
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<String, String> c = readThrough(m);
      Future<String> first = pool.submit(() -> c.get(GatedLoader.SLOW));
      assertTrue(GatedLoader.loading.await(5, TimeUnit.SECONDS), "the loader started");
      CountDownLatch secondCalling = new CountDownLatch(1);
      Future<String> second = pool.submit(() -> {
        secondCalling.countDown();
        return c.get(GatedLoader.SLOW);
      });
      assertTrue(secondCalling.await(5, TimeUnit.SECONDS));
      GatedLoader.release.countDown();
      assertEquals("loaded:slow", first.get(10, TimeUnit.SECONDS));
      assertEquals("loaded:slow", second.get(10, TimeUnit.SECONDS));
      assertEquals("loaded:slow", c.get(GatedLoader.SLOW));
      assertTrue(GatedLoader.LOADS.get() <= 2, "at most the one flight and a second that came after it: "
          + GatedLoader.LOADS.get());
    }
  }

  /**
   * Points: thread 1 is inside cache A's processor for "a", thread 2 inside cache B's processor for "b"; then
   * each calls the other cache's invoke on the other's key. With processors run under their key's lock this is
   * a lock-order deadlock; it must finish.
   */
  @Test
  void nestedInvokesAcrossTwoCachesCannotDeadlock() {
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<String, Long> a = m.createCache("A", new MutableConfiguration<String, Long>().setTypes(String.class,
          Long.class));
      Cache<String, Long> b = m.createCache("B", new MutableConfiguration<String, Long>().setTypes(String.class,
          Long.class));
      CountDownLatch aInside = new CountDownLatch(1);
      CountDownLatch bInside = new CountDownLatch(1);
      assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
        Future<?> t1 = pool.submit(() -> a.invoke("a", (entry, args) -> {
          aInside.countDown();
          await(bInside);
          b.invoke("b", (inner, x) -> {
            inner.setValue(inner.exists() ? inner.getValue() + 1 : 1L);
            return null;
          });
          entry.setValue(100L);
          return null;
        }));
        Future<?> t2 = pool.submit(() -> b.invoke("b", (entry, args) -> {
          bInside.countDown();
          await(aInside);
          a.invoke("a", (inner, x) -> {
            inner.setValue(inner.exists() ? inner.getValue() + 1 : 1L);
            return null;
          });
          entry.setValue(entry.exists() ? entry.getValue() + 1000 : 1000L);
          return null;
        }));
        t1.get();
        t2.get();
      }, "nested invokes across two caches deadlocked");
      assertTrue(a.get("a") >= 100L, "A's outer processor's update is there: " + a.get("a"));
      assertTrue(b.get("b") >= 1000L, "B's outer processor's update is there: " + b.get("b"));
    }
  }

  /**
   * Points (6d of the issue 37 review): A's processor of "k" (of a cache whose entries live 200 ms from their
   * creation) calls a put of "l" in another cache, whose lock B's processor holds, so it lets "k"'s lock go and
   * waits; C puts "k" then; B returns once C's entry has expired by the wall clock. The processor's entry is then
   * applied (or, if the store still shows C's entry, the processor runs again): either way at the time after the
   * wait, not at the time the invoke started. Here the engine drops C's expired entry (its own expiry), so the
   * processor's creation of "k" is applied, normally without a run again; its expiry counts from after the wait.
   */
  @Test
  void aProcessorsChangeAfterANestedWaitCountsItsExpiryFromAfterTheWait() throws Exception {
    java.util.List<Long> endOfRuns = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.List<Boolean> runs = runAfterANestedWait(false, endOfRuns);
    assertEquals(false, runs.get(runs.size() - 1), "the last run found no entry (C's had expired)");
    assertTrue(createdExpiry >= endOfRuns.get(0) + 200, "the processor's entry expires at " + createdExpiry
        + " (0: gone, created expired), 200 ms after the invoke started, not after the run that waited ended at "
        + endOfRuns.get(0));
  }

  /**
   * As {@link #aProcessorsChangeAfterANestedWaitCountsItsExpiryFromAfterTheWait}, with an EXPIRED listener (the
   * store keeps C's expired entry findable, so the invoke sees "k" changed and runs the processor again): that run
   * must read the clock again and find C's entry expired, not live as at the time the invoke started.
   */
  @Test
  void aProcessorRunAgainAfterANestedWaitReadsTheClockAgain() throws Exception {
    java.util.List<Long> endOfRuns = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.List<Boolean> runs = runAfterANestedWait(true, endOfRuns);
    assertEquals(java.util.List.of(false, false), runs,
        "the run after the nested wait saw C's entry, expired by then, as live");
    assertTrue(createdExpiry >= endOfRuns.get(0) + 200, "the processor's entry expires at " + createdExpiry
        + ", 200 ms after the invoke started, not after the run that waited ended at " + endOfRuns.get(0));
  }

  /** The stored expiry of "k" right after the invoke of {@link #runAfterANestedWait}. */
  private long createdExpiry;

  /**
   * Whether each run of A's processor found "k"; {@code endOfRuns}: the wall clock at the end of each run (the first
   * one's is after the wait).
   */
  private java.util.List<Boolean> runAfterANestedWait(boolean expiredListener, java.util.List<Long> endOfRuns)
      throws Exception {
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      MutableConfiguration<String, String> cfg = new MutableConfiguration<String, String>()
          .setTypes(String.class, String.class).setExpiryPolicyFactory(javax.cache.expiry.CreatedExpiryPolicy
              .factoryOf(new javax.cache.expiry.Duration(TimeUnit.MILLISECONDS, 200)));
      if (expiredListener) {
        cfg.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
            FactoryBuilder.factoryOf(ExpiredListener.class), null, false, true));
      }
      Cache<String, String> c = m.createCache("short", cfg);
      Cache<String, String> other = m.createCache("other", new MutableConfiguration<String, String>()
          .setTypes(String.class, String.class));
      @SuppressWarnings("unchecked")
      HybridJCache<String, String> inner = c.unwrap(HybridJCache.class);
      CountDownLatch aInside = new CountDownLatch(1);
      CountDownLatch bInside = new CountDownLatch(1);
      CountDownLatch cPut = new CountDownLatch(1);
      java.util.List<Boolean> runs = new java.util.concurrent.CopyOnWriteArrayList<>();
      assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
        Future<?> b = pool.submit(() -> other.invoke("l", (entry, args) -> {
          bInside.countDown();
          await(cPut);
          long expiresAt = inner.storedExpiry("k");
          while (System.currentTimeMillis() <= expiresAt) {
            Thread.onSpinWait(); // time passing, not synchronization: C's entry expires by the wall clock
          }
          return null;
        }));
        Future<?> a = pool.submit(() -> c.invoke("k", (entry, args) -> {
          runs.add(entry.exists());
          if (runs.size() == 1) {
            aInside.countDown();
            await(bInside);
          }
          other.put("l", "x"); // the first run: B holds "l", so "k"'s lock is let go while it waits
          entry.setValue("a");
          endOfRuns.add(System.currentTimeMillis());
          return null;
        }));
        await(aInside);
        c.put("k", "fresh"); // waits for "k"'s lock: A lets it go once it waits for "l"
        cPut.countDown();
        b.get();
        a.get();
      }, "the interleaving did not finish");
      createdExpiry = inner.storedExpiry("k");
      return runs;
    }
  }

  /** An EXPIRED listener that does nothing: with it the store keeps expired entries findable. */
  public static final class ExpiredListener implements javax.cache.event.CacheEntryExpiredListener<String, String>,
      Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public void onExpired(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
    }
  }

  private static void await(CountDownLatch l) {
    try {
      if (!l.await(5, TimeUnit.SECONDS)) {
        throw new AssertionError("the other thread never reached its point");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** 10,000 hits of one key of an expire-after-access cache: no engine put, no bytes written. */
  @Test
  void accessExpiryHitsWriteNothing() {
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<String, String> c = m.createCache("access", new MutableConfiguration<String, String>()
          .setTypes(String.class, String.class)
          .setExpiryPolicyFactory(AccessedExpiryPolicy.factoryOf(javax.cache.expiry.Duration.TEN_MINUTES)));
      c.put("k", "v");
      HybridCache engine = c.unwrap(HybridCache.class);
      long puts = engine.stats().puts();
      long written = engine.deviceCounters().bytesWritten();
      for (int i = 0; i < 10_000; i++) {
        assertEquals("v", c.get("k"));
      }
      assertEquals(0, engine.stats().puts() - puts, "engine puts during the hits");
      assertEquals(0, engine.deviceCounters().bytesWritten() - written, "device bytes written during the hits");
      assertEquals("v", c.get("k"));
    }
  }

  /**
   * removeAll() of a cache with statistics on (no listener, no writer) while another cache holds megabytes on
   * flash: no device read at all (no scan of the engine's keys), and the removals are counted.
   */
  @Test
  void removeAllWithStatisticsReadsNoOtherCachesBytes() {
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<Integer, byte[]> other = m.createCache("other", new MutableConfiguration<Integer, byte[]>()
          .setTypes(Integer.class, byte[].class));
      Cache<String, String> mine = m.createCache("mine", new MutableConfiguration<String, String>()
          .setTypes(String.class, String.class).setStatisticsEnabled(true));
      for (int i = 0; i < 3000; i++) { // 3 MB through 1 MiB of DRAM: most of it on flash
        other.put(i, new byte[1000]);
      }
      HybridCache engine = other.unwrap(HybridCache.class);
      engine.flush();
      for (int i = 0; i < 3; i++) {
        mine.put("k" + i, "v" + i);
      }
      DeviceCounters.Snapshot before = engine.deviceCounters();
      mine.removeAll();
      DeviceCounters.Snapshot during = engine.deviceCounters().minus(before);
      assertEquals(0, during.reads(), "device reads during removeAll of another cache: " + during);
      assertEquals(3, mine.unwrap(HybridCacheStatisticsMXBean.class).getCacheRemovals());
      for (int i = 0; i < 3; i++) {
        assertNull(mine.get("k" + i));
      }
      assertNotEquals(null, other.get(2999), "the other cache keeps its entries");
    }
  }

  /**
   * A synchronous listener of updates and removals that records the values it is told of and blocks on its first
   * call until released.
   */
  public static final class GatedListener implements javax.cache.event.CacheEntryUpdatedListener<String, String>,
      CacheEntryRemovedListener<String, String>, Serializable {
    private static final long serialVersionUID = 1L;
    static final java.util.List<String> SEEN = new java.util.concurrent.CopyOnWriteArrayList<>();
    static volatile CountDownLatch inside = new CountDownLatch(1);
    static volatile CountDownLatch release = new CountDownLatch(1);

    static void reset() {
      SEEN.clear();
      inside = new CountDownLatch(1);
      release = new CountDownLatch(1);
    }

    @Override
    public void onUpdated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
      seen(events);
    }

    @Override
    public void onRemoved(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
      seen(events);
    }

    private static void seen(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
      for (CacheEntryEvent<? extends String, ? extends String> e : events) {
        SEEN.add(e.getValue());
      }
      inside.countDown();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static Cache<String, String> gated(CacheManager m, String name) {
    return m.createCache(name, new MutableConfiguration<String, String>().setTypes(String.class, String.class)
        .addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
            FactoryBuilder.factoryOf(GatedListener.class), null, false, true)));
  }

  /**
   * Points: put 1's synchronous listener is blocked (after put 1's unlock); put 2 of the same key then writes (the
   * lock is free: a get sees its value) but its listener call waits for put 1's; released, the listener has seen
   * the updates in the order of the writes.
   */
  @Test
  void synchronousListenersRunAfterTheUnlockInTheKeysWriteOrder() throws Exception {
    GatedListener.reset();
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<String, String> c = gated(m, "ordered");
      c.put("k", "v0");
      Future<?> first = pool.submit(() -> c.put("k", "v1"));
      assertTrue(GatedListener.inside.await(5, TimeUnit.SECONDS), "put 1's listener was called");
      Future<?> second = pool.submit(() -> c.put("k", "v2"));
      try {
        String seen = null;
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!"v2".equals(seen) && System.nanoTime() < until) { // put 2 writes while put 1's listener runs
          seen = pool.submit(() -> c.get("k")).get(5, TimeUnit.SECONDS);
        }
        assertEquals("v2", seen, "put 2 wrote while put 1's listener was running (no lock held by it)");
        assertEquals(java.util.List.of("v1"), GatedListener.SEEN, "put 2's event waits for put 1's listener");
      } finally {
        GatedListener.release.countDown();
      }
      first.get(10, TimeUnit.SECONDS);
      second.get(10, TimeUnit.SECONDS);
      assertEquals(java.util.List.of("v1", "v2"), GatedListener.SEEN);
    }
  }

  /** Points: removeAll() is inside a synchronous listener of its first removal; a get of the cache must return. */
  @Test
  void removeAllWithAListenerDoesNotBlockAGet() throws Exception {
    GatedListener.reset();
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<String, String> c = gated(m, "listened");
      for (int i = 0; i < 50; i++) {
        c.put("k" + i, "v" + i);
      }
      Future<?> removeAll = pool.submit((Runnable) c::removeAll);
      assertTrue(GatedListener.inside.await(5, TimeUnit.SECONDS), "the listener was called");
      Future<Integer> gets = pool.submit(() -> {
        int found = 0;
        for (int i = 0; i < 50; i++) {
          found += c.get("k" + i) == null ? 0 : 1;
        }
        return found;
      });
      try {
        gets.get(5, TimeUnit.SECONDS);
      } finally {
        GatedListener.release.countDown();
      }
      removeAll.get(10, TimeUnit.SECONDS);
      for (int i = 0; i < 50; i++) {
        assertNull(c.get("k" + i));
      }
    }
  }
  private static MutableConfiguration<String, String> counted() {
    return new MutableConfiguration<String, String>().setTypes(String.class, String.class).setStatisticsEnabled(true);
  }

  /**
   * getAll of 20 keys on flash (a restart emptied DRAM) and a missing one: one engine batch read of all 21 keys
   * (the engine orders the flash reads by address), no single-key read; a hit or a miss counted per key.
   */
  @Test
  void getAllIsOneEngineBatchRead() throws Exception {
    CountingEngine[] engine = new CountingEngine[1];
    try (AutoCloseable hook = CountingEngine.install(engine)) {
      try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir, "batch")) {
        Cache<String, String> c = m.createCache("batch", counted());
        for (int i = 0; i < 20; i++) {
          c.put("k" + i, "v" + i);
        }
      }
      try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir, "batch")) {
        Cache<String, String> c = m.createCache("batch", counted());
        java.util.Set<String> keys = new java.util.HashSet<>();
        Map<String, String> expected = new java.util.HashMap<>();
        for (int i = 0; i < 20; i++) {
          keys.add("k" + i);
          expected.put("k" + i, "v" + i);
        }
        keys.add("absent");
        int single = engine[0].singleReads.get();
        long flashHits = engine[0].stats().flashHits();
        assertEquals(expected, c.getAll(keys));
        assertEquals(1, engine[0].batchReads.get(), "engine batch reads");
        assertEquals(21, engine[0].batchKeys.get(), "keys in the batch");
        assertEquals(single, engine[0].singleReads.get(), "single-key engine reads during getAll");
        assertEquals(20, engine[0].stats().flashHits() - flashHits, "flash hits (a restart emptied DRAM)");
        HybridCacheStatisticsMXBean stats = c.unwrap(HybridCacheStatisticsMXBean.class);
        assertEquals(20, stats.getCacheHits());
        assertEquals(1, stats.getCacheMisses());
      }
    }
  }
  /** byte[] values as they are, counting the decodes. */
  public static final class CountingBytes implements io.hybridcache.core.api.Codec<byte[]> {
    static final AtomicInteger DECODES = new AtomicInteger();

    @Override
    public byte[] encode(byte[] value) {
      return value.clone();
    }

    @Override
    public byte[] decode(byte[] bytes) {
      DECODES.incrementAndGet();
      return bytes.clone();
    }
  }

  private static HybridCacheConfiguration<String, byte[]> large() {
    HybridCacheConfiguration<String, byte[]> c = new HybridCacheConfiguration<>();
    c.setTypes(String.class, byte[].class);
    c.setValueCodec(new CountingBytes());
    c.setStatisticsEnabled(true);
    return c;
  }

  /**
   * A 60,000-byte value on flash (a restart emptied DRAM): containsKey reads its header's page(s) only (at most
   * 8 KiB, where the whole entry is 15 pages) and decodes nothing; putIfAbsent decodes it (an undecodable one is
   * stored over); a get then reads it whole.
   */
  @Test
  void containsKeyReadsOnlyTheHeaderOfAFlashValue() {
    byte[] big = new byte[60_000];
    java.util.Arrays.fill(big, (byte) 7);
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir, "large")) {
      m.createCache("large", large()).put("k", big);
    }
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir, "large")) {
      Cache<String, byte[]> c = m.createCache("large", large());
      HybridCache engine = c.unwrap(HybridCache.class);
      int decodes = CountingBytes.DECODES.get();
      DeviceCounters.Snapshot before = engine.deviceCounters();
      assertTrue(c.containsKey("k"));
      DeviceCounters.Snapshot contains = engine.deviceCounters().minus(before);
      assertTrue(contains.reads() == 1 && contains.bytesRead() <= 8192, "containsKey read " + contains);
      assertEquals(decodes, CountingBytes.DECODES.get(), "values decoded by containsKey");
      assertFalse(c.containsKey("absent"));
      before = engine.deviceCounters();
      assertArrayEquals(big, c.get("k"));
      assertTrue(engine.deviceCounters().minus(before).bytesRead() >= big.length, "a get reads the whole value");
      assertFalse(c.putIfAbsent("k", new byte[] {1}));
      assertEquals(2, c.unwrap(HybridCacheStatisticsMXBean.class).getCacheHits(), "get and putIfAbsent found it");
      assertTrue(c.putIfAbsent("absent", new byte[] {1}));
      assertTrue(c.containsKey("absent"));
    }
  }

  /**
   * Points: 8 threads each clear a cache (a namespace bump) at once; the first to write the table waits until all 8
   * have asked (bounded: on code that writes under the bump's lock the others cannot ask, and it goes on alone).
   * Fewer table writes (each a synced replace) than clears, and each clear is in the file when it returns; a table
   * opened again has them all.
   */
  @Test
  void concurrentClearsShareTheTablesSync() throws Exception {
    int n = 8;
    Path engineDir = java.nio.file.Files.createDirectories(dir.resolve("engine"));
    Namespaces table = Namespaces.open(dir, engineDir, null, false, true, () -> { });
    java.util.List<Namespace> caches = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      caches.add(table.of("cache-" + i));
    }
    int writesBefore = table.writes.get();
    CountDownLatch asked = new CountDownLatch(n);
    AtomicInteger firstWrite = new AtomicInteger();
    table.bumpRequested = asked::countDown;
    table.beforeBumpWrite = () -> {
      if (firstWrite.getAndIncrement() == 0) {
        try {
          asked.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    };
    java.util.List<Future<String>> clears = new java.util.ArrayList<>();
    for (Namespace ns : caches) {
      clears.add(pool.submit(() -> {
        table.bump(ns);
        java.util.Properties p = PropertiesFile.read(dir.resolve(Namespaces.FILE)); // durable when it returns
        return p.getProperty(ns.name());
      }));
    }
    for (int i = 0; i < n; i++) {
      assertEquals(caches.get(i).id() + ".1", clears.get(i).get(10, TimeUnit.SECONDS),
          "cache-" + i + " in the table when its clear returned");
      assertEquals(1, caches.get(i).epoch());
    }
    int writes = table.writes.get() - writesBefore;
    assertTrue(writes < n, n + " concurrent clears wrote the table " + writes + " times");
    Namespaces reopened = Namespaces.open(dir, engineDir, null, true, true, () -> { });
    for (int i = 0; i < n; i++) {
      assertEquals(1, reopened.find("cache-" + i).epoch(), "cache-" + i + " after reopening");
    }
  }
}
