package io.hybridcache.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.cache.annotation.Cacheable;

/**
 * {@code @Cacheable} on a method returning {@code CompletableFuture}: Spring calls {@code Cache.retrieve}, which
 * Spring's own {@code JCacheCache} does not implement (UnsupportedOperationException); the starter's caches do, and
 * look up on the application's task executor, not on the caller's thread.
 */
class StarterRetrieveTest {
  @TempDir Path dir;

  /** A service whose cached method returns a future; counts its calls (read through the proxy: {@link #calls()}). */
  static class Items {
    private final AtomicInteger calls = new AtomicInteger();

    public int calls() {
      return calls.get();
    }

    @Cacheable("items")
    public CompletableFuture<String> item(int id) {
      calls.incrementAndGet();
      return CompletableFuture.completedFuture("item-" + id);
    }
  }

  @Test
  void aCachedFutureIsServedFromTheCacheOffTheCallersThread() {
    Set<Thread> lookupThreads = ConcurrentHashMap.newKeySet();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Executor recording = task -> pool.execute(() -> {
        lookupThreads.add(Thread.currentThread());
        task.run();
      });
      StarterContexts.runner(dir.resolve("cache"))
          .withPropertyValues("hybridcache.jcache.cache.items.key-type=java.lang.Integer",
              "hybridcache.jcache.cache.items.value-type=java.lang.String")
          .withBean("applicationTaskExecutor", Executor.class, () -> recording)
          .withBean(Items.class)
          .run(context -> {
            assertNull(context.getStartupFailure());
            Items items = context.getBean(Items.class);
            assertEquals("item-1", items.item(1).join());
            assertEquals("item-1", items.item(1).join());
            assertEquals("item-2", items.item(2).join());
            assertEquals(2, items.calls(), "the second call of item(1) is served by the cache");
            assertFalse(lookupThreads.isEmpty(), "lookups ran on the application's task executor");
            assertFalse(lookupThreads.contains(Thread.currentThread()));
            assertTrue(context.getBean(javax.cache.CacheManager.class)
                .getCache("items", Integer.class, String.class).containsKey(1), "stored in the JCache cache");
          });
    } finally {
      pool.shutdownNow();
    }
  }
}
