package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryUpdatedListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Entry processors are atomic per key; an asynchronous listener gets one key's events in order. */
class AtomicityTest {
  @TempDir Path dir;

  @Test
  void concurrentIncrementsByEntryProcessorLoseNothing() throws Exception {
    try (CacheManager manager = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<String, Long> counters = manager.createCache("counters",
          new MutableConfiguration<String, Long>().setTypes(String.class, Long.class));
      int threads = 4;
      int each = 5000;
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(pool.submit(() -> {
          go.await();
          for (int i = 0; i < each; i++) {
            counters.invoke("n", (entry, args) -> {
              entry.setValue(entry.exists() ? entry.getValue() + 1 : 1L);
              return null;
            });
          }
          return null;
        }));
      }
      go.countDown();
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
      pool.shutdown();
      assertEquals((long) threads * each, counters.get("n"));
    }
  }

  /** Records the values of updates, in the order it is told of them. */
  public static final class Recorder implements CacheEntryUpdatedListener<String, Long>, java.io.Serializable {
    private static final long serialVersionUID = 1L;
    static final List<Long> SEEN = new CopyOnWriteArrayList<>();

    @Override
    public void onUpdated(Iterable<CacheEntryEvent<? extends String, ? extends Long>> events) {
      for (CacheEntryEvent<? extends String, ? extends Long> e : events) {
        SEEN.add(e.getValue());
      }
    }
  }

  @Test
  void anAsynchronousListenerGetsOneKeysUpdatesInOrder() {
    Recorder.SEEN.clear();
    try (CacheManager manager = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<String, Long> c = manager.createCache("ordered",
          new MutableConfiguration<String, Long>().setTypes(String.class, Long.class));
      c.registerCacheEntryListener(new MutableCacheEntryListenerConfiguration<>(
          FactoryBuilder.factoryOf(Recorder.class), null, false, false));
      c.put("k", 0L);
      for (long i = 1; i <= 2000; i++) {
        c.put("k", i);
      }
      c.close(); // waits for the queued events (bounded)
    }
    List<Long> expected = new ArrayList<>();
    for (long i = 1; i <= 2000; i++) {
      expected.add(i);
    }
    assertEquals(expected, Recorder.SEEN);
  }
}
