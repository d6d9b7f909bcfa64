package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.HybridCache;
import java.io.Serializable;
import java.lang.management.ManagementFactory;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryExpiredListener;
import javax.cache.expiry.CreatedExpiryPolicy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 37, item 5, the put side: what a put through the provider costs beyond the engine's own put. The engine's
 * TTL is the entry's expiry time unless something needs the slack; a put copies its value once; putAll locks one
 * key at a time.
 */
class PutPathTest {
  @TempDir Path dir;

  private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "put-path");
    t.setDaemon(true);
    return t;
  });

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  // ---- the engine's TTL

  /** What the engine was last asked to store: the array and its absolute expiry time (0: none). */
  private static final class LastPut {
    volatile byte[] key;
    volatile byte[] value;
    volatile long expireAt;
  }

  /**
   * {@code real} with its puts recorded: for a put with a TTL, the expiry time the engine derives from it (the
   * clock at the call plus the TTL); for a put with an expiry time, that time.
   */
  private static HybridCache recording(HybridCache real, LastPut last) {
    return (HybridCache) Proxy.newProxyInstance(PutPathTest.class.getClassLoader(), new Class<?>[] {HybridCache.class},
        (proxy, method, args) -> {
          if (method.getName().startsWith("put") && args != null && args.length >= 2) {
            last.key = (byte[]) args[0];
            last.value = (byte[]) args[1];
            last.expireAt = 0;
            for (Object a : args) {
              if (a instanceof Duration d) {
                last.expireAt = System.currentTimeMillis() + d.toMillis();
              } else if (a instanceof Long at && at != Long.MAX_VALUE) {
                last.expireAt = at;
              }
            }
          }
          try {
            return method.invoke(real, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }

  private static HybridCache engine(Path dir) {
    return HybridCache.open(CacheConfig.builder(dir.resolve("engine")).dramBytes(CacheConfig.MIB)
        .flashBytes(8 * CacheConfig.MIB).segmentBytes(512 * 1024).writeBufferBytes(64 * 1024).jmx(false).build());
  }

  /** A cache of an hour's creation expiry over {@code engine} (a namespace of its own). */
  private static HybridJCache<String, String> hourCache(CacheManager m, HybridCache engine) {
    MutableConfiguration<String, String> config = new MutableConfiguration<String, String>()
        .setTypes(String.class, String.class)
        .setExpiryPolicyFactory(CreatedExpiryPolicy.factoryOf(javax.cache.expiry.Duration.ONE_HOUR));
    Statistics stats = new Statistics();
    ValueStore<String, String> store = new ValueStore<>(engine, null, new Namespace("hour", 7, 0), Codecs.string(),
        Codecs.string(), new Oversized("hour", stats, engine.config()), PutPathTest.class.getClassLoader());
    return new HybridJCache<>((HybridCacheManager) m, "hour", config, store, engine, Runnable::run, stats);
  }

  /** A test of an {@link #hourCache} over a real engine whose puts are recorded in {@code last}. */
  @FunctionalInterface
  private interface HourCacheTest {
    void run(HybridJCache<String, String> c, HybridCache real, LastPut last) throws Exception;
  }

  private void withHourCache(HourCacheTest test) throws Exception {
    LastPut last = new LastPut();
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir.resolve("m"));
        HybridCache real = engine(dir)) {
      test.run(hourCache(m, recording(real, last)), real, last);
    }
  }

  /** An EXPIRED listener (the only reason for the engine to keep an entry past its expiry time). */
  public static final class ExpiredListener implements CacheEntryExpiredListener<String, String>, Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public void onExpired(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
      // nothing: its presence is the point
    }
  }

  /**
   * With no EXPIRED listener the engine's entry expires exactly at the entry's expiry time (no slack: the space is
   * free as soon as the entry is dead); with one, a slack past it, so that a read still finds it and reports it.
   */
  @Test
  void theEngineTtlIsTheExpiryUnlessAnExpiredListenerNeedsASlack() throws Exception {
    withHourCache((c, real, last) -> {
      c.put("k", "v");
      long stored = c.storedExpiry("k");
      assertNotEquals(Stored.ETERNAL, stored);
      assertEquals(stored, last.expireAt, "the engine's expiry time, with no EXPIRED listener (a slack of "
          + (last.expireAt - stored) + " ms)");

      MutableCacheEntryListenerConfiguration<String, String> expired = new MutableCacheEntryListenerConfiguration<>(
          FactoryBuilder.factoryOf(ExpiredListener.class), null, false, true);
      c.registerCacheEntryListener(expired);
      c.put("k", "w");
      assertEquals(c.storedExpiry("k") + ValueStore.ENGINE_TTL_SLACK.toMillis(), last.expireAt,
          "with an EXPIRED listener the engine keeps the entry a slack past its expiry time");

      c.deregisterCacheEntryListener(expired);
      c.put("k", "x");
      assertEquals(c.storedExpiry("k"), last.expireAt, "the listener is gone: no slack");
    });
  }

  // ---- one copy of the value

  /**
   * The engine keeps the very array the provider built (header and value): the put hands it over instead of the
   * engine copying it.
   */
  @Test
  void theEngineKeepsTheArrayThePutBuilt() throws Exception {
    withHourCache((c, real, last) -> {
      c.put("k", "a value");
      byte[] given = last.value;
      assertNotNull(given);
      assertTrue(Boolean.TRUE.equals(real.<Boolean>readArray(last.key, raw -> raw == given)),
          "the engine copied the array the put gave it");
    });
  }

  /**
   * Bytes this thread allocates per put of a 64 KiB value through {@code Cache.put}, against the value's size:
   * fewer than two of its copies (the codec's bytes with the header reserved, kept by the engine); before, three
   * (the codec's bytes, the header's copy, the engine's copy).
   */
  @Test
  void aPutAllocatesOneCopyOfItsValue() {
    com.sun.management.ThreadMXBean threads = allocationCounter();
    int size = 64 * 1024;
    String text = "x".repeat(size);
    byte[] bytes = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<String, String> strings = m.createCache("strings", new MutableConfiguration<String, String>()
          .setTypes(String.class, String.class));
      Cache<String, byte[]> arrays = m.createCache("arrays", new MutableConfiguration<String, byte[]>()
          .setTypes(String.class, byte[].class));
      long perString = allocatedPerCall(threads, () -> strings.put("k", text));
      long perArray = allocatedPerCall(threads, () -> arrays.put("k", bytes));
      assertTrue(perString < 2L * size, "a String put of " + size + " bytes allocated " + perString + " bytes");
      assertTrue(perArray < 2L * size, "a byte[] put of " + size + " bytes allocated " + perArray + " bytes");
      assertEquals(text, strings.get("k"));
    }
  }

  /** The JVM's per-thread allocation counter (the test fails on a JVM without one). */
  private static com.sun.management.ThreadMXBean allocationCounter() {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    assertTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(),
        "this JVM does not count allocated bytes per thread");
    return threads;
  }

  /** Bytes this thread allocates per run of {@code call}, once warm (class loading, the first lambdas). */
  private static long allocatedPerCall(com.sun.management.ThreadMXBean threads, Runnable call) {
    long id = Thread.currentThread().getId();
    for (int i = 0; i < 50; i++) {
      call.run(); // class loading, the first lambdas, the map's nodes
    }
    int n = 100;
    long before = threads.getThreadAllocatedBytes(id);
    for (int i = 0; i < n; i++) {
      call.run();
    }
    return (threads.getThreadAllocatedBytes(id) - before) / n;
  }

  /**
   * A getAll of one DRAM-resident 64 KiB value allocates what a get of it does, not one copy more: the engine's
   * batch read hands its own array to the store, which copies the payload once (before, the engine's getAll
   * copied the value and the store copied it again). Both decode a byte[] (one more copy, the caller's).
   */
  @Test
  void getAllCopiesADramHitOnce() {
    com.sun.management.ThreadMXBean threads = allocationCounter();
    int size = 64 * 1024;
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<String, byte[]> arrays = m.createCache("arrays", new MutableConfiguration<String, byte[]>()
          .setTypes(String.class, byte[].class));
      arrays.put("k", new byte[size]);
      java.util.Set<String> keys = java.util.Set.of("k");
      long perGet = allocatedPerCall(threads, () -> assertEquals(size, arrays.get("k").length));
      long perGetAll = allocatedPerCall(threads, () -> assertEquals(size, arrays.getAll(keys).get("k").length));
      assertTrue(perGetAll - perGet < size / 2, "a getAll of a " + size + "-byte DRAM hit allocated " + perGetAll
          + " bytes, a get of it " + perGet);
    }
  }

  @Test
  void aStringHitIsDecodedStraightFromTheEnginesBytes() {
    com.sun.management.ThreadMXBean threads = allocationCounter();
    int size = 64 * 1024;
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<String, String> strings = m.createCache("strings", new MutableConfiguration<String, String>()
          .setTypes(String.class, String.class));
      String value = "x".repeat(size);
      strings.put("k", value);
      long perGet = allocatedPerCall(threads, () -> assertEquals(size, strings.get("k").length()));
      assertTrue(perGet < size + size / 2, "a get of a " + size + "-char String hit allocated " + perGet
          + " bytes: the payload copied before its decode");
    }
  }

  // ---- putAll locks one key at a time

  /** An hour's creation expiry whose first creation (under a key's lock) waits for the test, once armed. */
  public static final class GatedExpiry extends CreationOnlyExpiry {
    private static final long serialVersionUID = 1L;
    static final AtomicBoolean ARMED = new AtomicBoolean();
    static volatile CountDownLatch inside = new CountDownLatch(1);
    static volatile CountDownLatch release = new CountDownLatch(1);

    static void arm() {
      inside = new CountDownLatch(1);
      release = new CountDownLatch(1);
      ARMED.set(true);
    }

    @Override
    public javax.cache.expiry.Duration getExpiryForCreation() {
      if (ARMED.compareAndSet(true, false)) {
        inside.countDown();
        try {
          release.await(10, TimeUnit.SECONDS); // bounded: a blocked put on the old code ends the test, not the JVM
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return javax.cache.expiry.Duration.ONE_HOUR;
    }
  }

  /**
   * Points: putAll of two keys on two stripes stops inside the first key's creation (its lock held); a put of a
   * third key on the second key's stripe must complete meanwhile: putAll does not hold the second stripe while it
   * works on the first key.
   */
  @Test
  void putAllHoldsOneKeysLockAtATime() throws Exception {
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<String, String> c = m.createCache("gated", new MutableConfiguration<String, String>()
          .setTypes(String.class, String.class).setExpiryPolicyFactory(FactoryBuilder.factoryOf(GatedExpiry.class)));
      HybridJCache<String, String> h = c.unwrap(HybridJCache.class);
      String first = "a";
      String second = otherStripe(h, first, "b-");
      String neighbour = sameStripeAs(h, second, "c-");
      Map<String, String> batch = new LinkedHashMap<>();
      batch.put(first, "1");
      batch.put(second, "2");
      GatedExpiry.arm();
      Future<?> putAll = pool.submit(() -> c.putAll(batch));
      assertTrue(GatedExpiry.inside.await(10, TimeUnit.SECONDS), "putAll never reached a key's creation");
      Future<?> put = pool.submit(() -> c.put(neighbour, "3"));
      try {
        put.get(5, TimeUnit.SECONDS); // completes at once unless putAll holds the second key's stripe
        assertTrue(!putAll.isDone(), "putAll finished before the gate opened");
      } catch (java.util.concurrent.TimeoutException e) {
        throw new AssertionError("a put on the stripe of putAll's second key waited while putAll worked on its first "
            + "key: putAll held both stripes together", e);
      } finally {
        GatedExpiry.release.countDown();
      }
      putAll.get(10, TimeUnit.SECONDS);
      assertEquals("1", c.get(first));
      assertEquals("2", c.get(second));
      assertEquals("3", c.get(neighbour));
    }
  }

  /** A synchronous CREATED listener that counts down {@link #delivered} when it hears of key "a". */
  public static final class FirstKeyHeard implements javax.cache.event.CacheEntryCreatedListener<String, String>,
      Serializable {
    static volatile CountDownLatch delivered = new CountDownLatch(1);

    @Override
    public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
      for (CacheEntryEvent<? extends String, ? extends String> e : events) {
        if (e.getKey().equals("a")) {
          delivered.countDown();
        }
      }
    }
  }

  /**
   * Review of issue 37's per-key batch locking: a putAll (no writer, a synchronous listener) of "a" (stripe s) and
   * k2 (stripe t) meets an entry processor on k3 (stripe t) that puts k4 (stripe s). Forced order: the processor
   * holds t first; putAll does "a", then needs t. When putAll kept "a"'s delivery turn until its last key, the
   * processor's nested put on s waited for that turn while holding t, and putAll waited for t: a deadlock. Now
   * "a"'s events are delivered before putAll waits for t, and both finish.
   */
  @Test
  void aBatchNeverHoldsADeliveryTurnWhileItWaitsForAnotherKeysLock() throws Exception {
    FirstKeyHeard.delivered = new CountDownLatch(1);
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<String, String> c = m.createCache("batched", new MutableConfiguration<String, String>()
          .setTypes(String.class, String.class)
          .addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
              FactoryBuilder.factoryOf(FirstKeyHeard.class), null, false, true)));
      HybridJCache<String, String> h = c.unwrap(HybridJCache.class);
      String first = "a";
      String second = otherStripe(h, first, "b-");
      String processed = sameStripeAs(h, second, "d-");
      String nested = sameStripeAs(h, first, "e-");
      CountDownLatch holding = new CountDownLatch(1);
      CountDownLatch go = new CountDownLatch(1);
      Future<?> processor = pool.submit(() -> c.invoke(processed, (entry, args) -> {
        holding.countDown();
        try {
          go.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        c.put(nested, "4"); // a write on "a"'s stripe from inside the processor that holds the second key's stripe
        entry.setValue("3");
        return null;
      }));
      assertTrue(holding.await(10, TimeUnit.SECONDS), "the processor never ran");
      Map<String, String> batch = new LinkedHashMap<>();
      batch.put(first, "1");
      batch.put(second, "2");
      Future<?> putAll = pool.submit(() -> c.putAll(batch));
      boolean heard = FirstKeyHeard.delivered.await(10, TimeUnit.SECONDS);
      go.countDown();
      assertTrue(heard, "putAll kept the first key's events while it waited for the second key's lock");
      processor.get(20, TimeUnit.SECONDS);
      putAll.get(20, TimeUnit.SECONDS);
      assertEquals("1", c.get(first));
      assertEquals("2", c.get(second));
      assertEquals("3", c.get(processed));
      assertEquals("4", c.get(nested));
    }
  }

  private static String otherStripe(HybridJCache<String, String> h, String key, String prefix) {
    for (int i = 0; ; i++) {
      if (h.stripeOf(prefix + i) != h.stripeOf(key)) {
        return prefix + i;
      }
    }
  }

  private static String sameStripeAs(HybridJCache<String, String> h, String key, String prefix) {
    for (int i = 0; ; i++) {
      if (h.stripeOf(prefix + i) == h.stripeOf(key)) {
        return prefix + i;
      }
    }
  }
}
