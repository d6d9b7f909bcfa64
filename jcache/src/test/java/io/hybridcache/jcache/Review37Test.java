package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Serializable;
import java.lang.reflect.Field;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheLoaderException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Independent review of issue 37: each test shows one finding; all fail on main's code as of a510297. */
class Review37Test {
  @TempDir Path dir;
  private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "review37");
    t.setDaemon(true);
    return t;
  });

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  // ---- 1. getAll with read-through returns the loader's value over a put that completed during the load

  /** A loadAll that blocks on a latch: the test puts while it is inside. */
  public static final class GatedBulkLoader implements CacheLoader<String, String>, Serializable {
    private static final long serialVersionUID = 1L;
    static volatile CountDownLatch loading = new CountDownLatch(1);
    static volatile CountDownLatch release = new CountDownLatch(1);

    public GatedBulkLoader() {}

    @Override
    public String load(String key) {
      return "loaded:" + key;
    }

    @Override
    public Map<String, String> loadAll(Iterable<? extends String> keys) {
      loading.countDown();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      Map<String, String> m = new HashMap<>();
      for (String k : keys) {
        m.put(k, "loaded:" + k);
      }
      return m;
    }
  }

  /**
   * Points: getAll({k}) misses and is blocked inside loadAll (no lock held); put(k, "put") completes; loadAll
   * returns the value it read before the put. get() in the same interleaving returns "put"
   * (FastPathsTest.aLoadThatRacesAPutReturnsAndKeepsThePut); getAll returns the loader's stale value although the
   * cache keeps "put" (HybridJCache.getAll: result.put(loaded) after putLoaded declined to store it).
   */
  @Test
  void getAllNeverReturnsALoadedValueOlderThanAPutThatCompletedDuringTheLoad() throws Exception {
    GatedBulkLoader.loading = new CountDownLatch(1);
    GatedBulkLoader.release = new CountDownLatch(1);
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      MutableConfiguration<String, String> cfg = new MutableConfiguration<String, String>()
          .setTypes(String.class, String.class).setReadThrough(true)
          .setCacheLoaderFactory(FactoryBuilder.factoryOf(GatedBulkLoader.class));
      Cache<String, String> c = m.createCache("bulk", cfg);
      Future<Map<String, String>> all = pool.submit(() -> c.getAll(Set.of("k")));
      assertTrue(GatedBulkLoader.loading.await(5, TimeUnit.SECONDS), "loadAll started");
      try {
        pool.submit(() -> c.put("k", "put")).get(5, TimeUnit.SECONDS); // acknowledged before getAll returns
      } finally {
        GatedBulkLoader.release.countDown();
      }
      Map<String, String> got = all.get(10, TimeUnit.SECONDS);
      assertEquals("put", c.get("k"), "the cache keeps the put");
      assertEquals("put", got.get("k"), "getAll returned the loader's value, older than the completed put");
    }
  }

  // ---- 2. Population's per-second counters are never removed: memory grows with time/distinct expiry seconds

  /** Creation expiry one more second each call: the distinct expiry seconds a long-running cache sees over time. */
  public static final class GrowingExpiry extends CreationOnlyExpiry {
    private static final long serialVersionUID = 1L;
    static final AtomicInteger SECONDS = new AtomicInteger();

    public GrowingExpiry() {}

    @Override
    public javax.cache.expiry.Duration getExpiryForCreation() {
      return new javax.cache.expiry.Duration(TimeUnit.SECONDS, 60 + SECONDS.incrementAndGet());
    }
  }

  /**
   * 2,000 put+remove of one key, each entry with its own expiry second (as a cache with a fixed TTL gets one new
   * second per second of writes): the cache is empty, yet Population keeps one skip-list node and LongAdder per
   * second, forever (only a removeAll() purges them: Population.live is its one caller). A year of a 10-minute TTL
   * cache: ~31.5 M nodes per cache, statistics on or off.
   */
  @Test
  void theRemovalEstimateDoesNotGrowWithEverySecondTheCacheWasWrittenIn() throws Exception {
    GrowingExpiry.SECONDS.set(0);
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      MutableConfiguration<String, String> cfg = new MutableConfiguration<String, String>()
          .setTypes(String.class, String.class)
          .setExpiryPolicyFactory(FactoryBuilder.factoryOf(GrowingExpiry.class));
      Cache<String, String> c = m.createCache("ttl", cfg);
      for (int i = 0; i < 2_000; i++) {
        c.put("k", "v");
        c.remove("k");
      }
      assertEquals(false, c.iterator().hasNext(), "the cache is empty");
      int counters = populationSeconds(c);
      assertTrue(counters <= 64, "Population keeps " + counters + " per-second counters for an empty cache");
    }
  }

  private static int populationSeconds(Cache<?, ?> c) throws ReflectiveOperationException {
    Object jcache = c.unwrap(HybridJCache.class);
    Object ops = field(jcache, "ops");
    Object population = field(ops, "population");
    return ((Map<?, ?>) field(population, "bySecond")).size();
  }

  private static Object field(Object o, String name) throws ReflectiveOperationException {
    Field f = o.getClass().getDeclaredField(name);
    f.setAccessible(true);
    return f.get(o);
  }

  // ---- 3. CacheRemovals of a scan-free removeAll(): evictions of expiring entries are subtracted twice

  /**
   * A store-by-reference cache of at most 10 entries, 1 s expiry, statistics on. 20 puts: about 10 evicted. Once
   * they have expired (the iterator drops them), 5 new puts; removeAll() removes 5 live entries, but CacheRemovals
   * grows by max(0, 5 - evictions) = 0: Population subtracts every eviction from the total for ever, while the
   * evicted entries' own seconds are purged too once past (Population.live), so each eviction is taken off twice.
   */
  @Test
  void removeAllCountsTheLiveEntriesAfterEvictionsOfEntriesThatHaveSinceExpired() throws Exception {
    Properties p = TestManagers.small(dir);
    p.setProperty("cache.r.store-by-reference", "true");
    p.setProperty("cache.r.max-entries", "10");
    p.setProperty("cache.r.statistics", "true");
    p.setProperty("cache.r.expire-after-write", "1s");
    p.setProperty("cache.r.key-type", "java.lang.String");
    p.setProperty("cache.r.value-type", "java.lang.String");
    try (CacheManager m = new HybridCachingProvider().getCacheManager(URI.create("test:r"),
        Review37Test.class.getClassLoader(), p)) {
      Cache<String, String> c = m.getCache("r", String.class, String.class);
      for (int i = 0; i < 20; i++) {
        c.put("old" + i, "v");
      }
      HybridCacheStatisticsMXBean stats = c.unwrap(HybridCacheStatisticsMXBean.class);
      assertTrue(stats.getCacheEvictions() > 0, "the bound evicted");
      long until = System.currentTimeMillis() + 2_100; // past the 1 s expiry, and past its whole second
      while (System.currentTimeMillis() < until) {
        Thread.onSpinWait(); // time passing, not synchronization: expiry is by the wall clock
      }
      for (Iterator<Cache.Entry<String, String>> it = c.iterator(); it.hasNext(); ) {
        it.next(); // none: every old entry has expired (the iterator removes what it finds expired)
      }
      for (int i = 0; i < 5; i++) {
        c.put("new" + i, "v");
      }
      int live = 0;
      for (Cache.Entry<String, String> e : c) {
        live++;
      }
      long before = stats.getCacheRemovals();
      c.removeAll();
      assertEquals(live, stats.getCacheRemovals() - before, "CacheRemovals of removeAll() over " + live
          + " live entries");
    }
  }

  // ---- 4. A loader that reads its own key hangs for ever (single flight waits for itself)

  /** A loader that, for key "self", reads "self" from the cache it loads for (a recursive @Cacheable, say). */
  public static final class SelfReadingLoader implements CacheLoader<String, String>, Serializable {
    private static final long serialVersionUID = 1L;
    static volatile Cache<String, String> cache;

    public SelfReadingLoader() {}

    @Override
    public String load(String key) {
      if (key.equals("self")) {
        return "outer:" + cache.get("inner-" + key).length() + cache.get(key); // re-enters its own key
      }
      return "v";
    }

    @Override
    public Map<String, String> loadAll(Iterable<? extends String> keys) {
      Map<String, String> m = new HashMap<>();
      for (String k : keys) {
        m.put(k, load(k));
      }
      return m;
    }
  }

  /**
   * A get whose loader gets its own key: the nested miss joins the flight the same thread leads (Loads.join) and
   * waits for it for ever (Loads.Flight.await: an unbounded CompletableFuture.get). Before issue 37 the stripe lock
   * was re-entrant; Caffeine throws IllegalStateException("Recursive update"). It must fail, not hang.
   */
  @Test
  void aLoaderThatReadsItsOwnKeyFailsInsteadOfHangingForEver() throws Exception {
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      MutableConfiguration<String, String> cfg = new MutableConfiguration<String, String>()
          .setTypes(String.class, String.class).setReadThrough(true)
          .setCacheLoaderFactory(FactoryBuilder.factoryOf(SelfReadingLoader.class));
      Cache<String, String> c = m.createCache("self", cfg);
      SelfReadingLoader.cache = c;
      Future<Object> f = pool.submit(() -> {
        try {
          return c.get("self");
        } catch (RuntimeException | StackOverflowError e) {
          return e;
        }
      });
      Object got = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> f.get(),
          "a get whose loader reads its own key must return or throw");
      assertRecursiveLoadFailure(got);
      assertRecursiveLoadFailure(pool.submit(() -> { // the failed load left its flight: the next get fails alike
        try {
          return c.get("self");
        } catch (RuntimeException e) {
          return e;
        }
      }).get(5, TimeUnit.SECONDS));
      assertEquals("v", c.get("inner-self"), "the loader's read of another key was served and stored");
    }
  }

  /**
   * The outer get fails as JSR-107 has a loader's failure fail: a CacheLoaderException, here of the nested get's
   * IllegalStateException naming the recursive load (as core's SingleFlight and Caffeine fail).
   */
  private static void assertRecursiveLoadFailure(Object got) {
    assertTrue(got instanceof CacheLoaderException, "the outer get failed with a CacheLoaderException: " + got);
    Throwable cause = ((Throwable) got).getCause();
    assertTrue(cause instanceof IllegalStateException && cause.getMessage().contains("recursive load"),
        "its cause names the recursive load: " + cause);
  }
}
