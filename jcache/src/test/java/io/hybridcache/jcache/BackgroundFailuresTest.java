package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Serializable;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.integration.CacheLoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Throwables on the provider's background threads are counted, per cache, whatever the statistics switch says
 * ({@link HybridCacheStatisticsMXBean#getBackgroundFailures()}): an asynchronous listener that throws, a
 * {@code loadAll} with no completion listener whose loader throws, an asynchronous listener's events the manager's
 * pool refused (shut down by a close racing a write), which never reach the writer whose change is stored.
 */
class BackgroundFailuresTest {
  @TempDir Path dir;
  private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "background-failures");
    t.setDaemon(true);
    return t;
  });

  @AfterEach
  void stop() {
    threads.shutdownNow();
  }

  private static HybridCacheStatisticsMXBean stats(Cache<?, ?> c) {
    return c.unwrap(HybridCacheStatisticsMXBean.class);
  }

  private static void await(CountDownLatch l) throws InterruptedException {
    assertTrue(l.await(10, TimeUnit.SECONDS), "the other thread never reached its point");
  }

  /** An asynchronous listener that throws for key "bad" (an Error for "error") and tells of "good". */
  public static final class Throwing implements CacheEntryCreatedListener<String, String>, Serializable {
    private static final long serialVersionUID = 1L;
    static volatile CountDownLatch good = new CountDownLatch(1);

    @Override
    public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
      for (CacheEntryEvent<? extends String, ? extends String> e : events) {
        if (e.getKey().equals("bad")) {
          throw new IllegalStateException("the listener fails for bad");
        }
        if (e.getKey().equals("error")) {
          throw new AssertionError("the listener fails for error");
        }
        good.countDown();
      }
    }
  }

  /**
   * Points: the listener throws for "bad", then an Error for "error", then is told of "good"; its events run in
   * order on one queue, so once it was told of "good" both failures were counted.
   */
  @Test
  void anAsynchronousListenersFailuresAreCounted() throws Exception {
    Throwing.good = new CountDownLatch(1);
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<String, String> c = m.createCache("async", new MutableConfiguration<String, String>()
          .setTypes(String.class, String.class));
      c.registerCacheEntryListener(new MutableCacheEntryListenerConfiguration<>(
          FactoryBuilder.factoryOf(Throwing.class), null, false, false));
      assertEquals(0, stats(c).getBackgroundFailures());
      c.put("bad", "v");
      c.put("error", "v");
      c.put("good", "v");
      await(Throwing.good);
      assertEquals(2, stats(c).getBackgroundFailures(), "the listener's two failures");
      stats(c).clear();
      assertEquals(0, stats(c).getBackgroundFailures(), "clear() resets it with the other counts");
    }
  }

  /** A loader whose loadAll throws (an Error for a key "error"); it tells when it was called. */
  public static final class FailingBulkLoader implements CacheLoader<String, String>, Serializable {
    private static final long serialVersionUID = 1L;
    static final List<String> CALLED = new CopyOnWriteArrayList<>();

    @Override
    public String load(String key) {
      return "v";
    }

    @Override
    public Map<String, String> loadAll(Iterable<? extends String> keys) {
      Map<String, String> m = new HashMap<>();
      for (String k : keys) {
        CALLED.add(k);
        if (k.equals("error")) {
          throw new AssertionError("the bulk load fails for error");
        }
        m.put(k, "v");
      }
      throw new IllegalStateException("the bulk load fails for " + m.keySet());
    }
  }

  /**
   * Two loadAll calls with no completion listener, whose loader throws (an exception, an Error): nobody can be told,
   * so each is counted. The manager's close waits for its pool's tasks, so after it both have run.
   */
  @Test
  void aLoadAllWithNoCompletionListenerThatFailsIsCounted() {
    FailingBulkLoader.CALLED.clear();
    HybridCacheStatisticsMXBean stats;
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<String, String> c = m.createCache("bulk", new MutableConfiguration<String, String>()
          .setTypes(String.class, String.class)
          .setCacheLoaderFactory(FactoryBuilder.factoryOf(FailingBulkLoader.class)));
      stats = stats(c);
      c.loadAll(Set.of("a"), false, null);
      c.loadAll(Set.of("error"), true, null);
    } // close waits for the pool's tasks (bounded: min(5 s, close-timeout))
    assertEquals(2, FailingBulkLoader.CALLED.size(), "both loads ran: " + FailingBulkLoader.CALLED);
    assertEquals(2, stats.getBackgroundFailures(), "the two loadAll failures nobody was told of");
  }

  /** A synchronous listener that blocks in its first event until {@link #release} opens. */
  public static final class Blocking implements CacheEntryCreatedListener<String, String>, Serializable {
    private static final long serialVersionUID = 1L;
    static volatile CountDownLatch inside = new CountDownLatch(1);
    static volatile CountDownLatch release = new CountDownLatch(1);

    @Override
    public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
      inside.countDown();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** An asynchronous listener that records the keys it is told of. */
  public static final class Told implements CacheEntryCreatedListener<String, String>, Serializable {
    private static final long serialVersionUID = 1L;
    static final List<String> KEYS = new CopyOnWriteArrayList<>();

    @Override
    public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
      for (CacheEntryEvent<? extends String, ? extends String> e : events) {
        KEYS.add(e.getKey());
      }
    }
  }

  /**
   * Points: a put has stored its entry and is delivering its event, held in a synchronous listener registered
   * before an asynchronous one; the manager closes meanwhile (its pool shut down); the put goes on to the
   * asynchronous listener, whose queue the pool refuses. The put returns normally (its change is stored), the
   * refused event is counted, and the listener was never told.
   */
  @Test
  void anEventThePoolRefusesAtCloseIsCountedAndNeverThrownToTheWriter() throws Exception {
    Blocking.inside = new CountDownLatch(1);
    Blocking.release = new CountDownLatch(1);
    Told.KEYS.clear();
    CacheManager m = TestManagers.open(new HybridCachingProvider(), dir);
    Cache<String, String> c = m.createCache("closing", new MutableConfiguration<String, String>()
        .setTypes(String.class, String.class));
    c.registerCacheEntryListener(new MutableCacheEntryListenerConfiguration<>(
        FactoryBuilder.factoryOf(Blocking.class), null, false, true));
    c.registerCacheEntryListener(new MutableCacheEntryListenerConfiguration<>(
        FactoryBuilder.factoryOf(Told.class), null, false, false));
    HybridCacheStatisticsMXBean stats = stats(c);
    Future<?> put = threads.submit(() -> c.put("k", "v"));
    try {
      await(Blocking.inside);
      m.close(); // the pool is shut down; the put is between its store and its asynchronous listener
    } finally {
      Blocking.release.countDown();
    }
    put.get(10, TimeUnit.SECONDS); // throws if the put failed (a RejectedExecutionException, wrapped)
    assertEquals(1, stats.getBackgroundFailures(), "the event the pool refused");
    assertEquals(List.of(), Told.KEYS, "the asynchronous listener was not told");
  }

  /**
   * A serial queue whose pool refuses one task stays usable: the refusal is counted, nothing is thrown, and the next
   * task runs (before, {@code running} stayed set and every later task waited for ever).
   */
  @Test
  void aSerialQueueWhosePoolRefusedATaskRunsTheNextOne() throws Exception {
    AtomicBoolean refuse = new AtomicBoolean(true);
    int[] failures = {0};
    SerialExecutor serial = new SerialExecutor(task -> {
      if (refuse.getAndSet(false)) {
        throw new RejectedExecutionException("shut down");
      }
      threads.execute(task);
    }, () -> failures[0]++);
    CountDownLatch ran = new CountDownLatch(1);
    serial.execute(() -> {
      throw new AssertionError("a refused task never runs");
    });
    assertEquals(1, failures[0], "the refused task is counted");
    serial.execute(ran::countDown);
    await(ran);
    serial.awaitIdle(10_000);
    assertEquals(1, failures[0]);
  }
}
