package io.hybridcache.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.HybridCache;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import javax.cache.CacheManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.cache.autoconfigure.metrics.CacheMetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.jcache.JCacheCacheManager;

/**
 * The starter's meters under Spring Boot's metrics auto-configuration: per cache, Micrometer's JCache meters and
 * ours side by side with the same tags (hits by tier, evictions, rejections); per engine, hits by tier, entries and
 * bytes per tier. Each moves with what the cache does.
 */
class StarterMetricsTest {
  @TempDir Path dir;

  /** The starter's runner with the metrics auto-configurations and a simple registry. */
  private ApplicationContextRunner metered() {
    return StarterContexts.runner(dir.resolve("cache"), HybridCacheMetricsAutoConfiguration.class,
        MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class, CacheMetricsAutoConfiguration.class);
  }

  @Test
  void metersExistAndMoveOnHits() {
    metered()
        .withPropertyValues("hybridcache.jcache.cache.items.key-type=java.lang.Integer",
            "hybridcache.jcache.cache.items.value-type=java.lang.String",
            "hybridcache.jcache.cache.items.statistics=true", "hybridcache.jcache.flash-bytes=8MB")
        .run(context -> {
          assertNull(context.getStartupFailure());
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          Cache items = context.getBean(JCacheCacheManager.class).getCache("items");
          // Micrometer's JCache meters and ours, for the cache Spring Boot bound at start
          assertEquals(0, registry.get("cache.gets").tag("cache", "items").tag("result", "hit").functionCounter().count());
          assertEquals(0, registry.get("hybridcache.jcache.undecodable").tag("cache", "items")
              .tag("cache.manager", "cacheManager").functionCounter().count());
          assertEquals(0, registry.get("hybridcache.jcache.oversized").tag("cache", "items").functionCounter().count());
          double dramHits = engine(registry, "hybridcache.jcache.gets", "tier", "dram");

          String value = "v".repeat(1000);
          int n = 2000; // about 2 MB through a 1 MiB DRAM tier, onto 8 MiB of flash (room for all)
          for (int i = 0; i < n; i++) {
            items.put(i, value + i);
          }
          context.getBean(CacheManager.class).unwrap(HybridCache.class).flush();
          assertEquals(value + (n - 1), items.get(n - 1, String.class)); // in DRAM
          assertEquals(dramHits + 1, engine(registry, "hybridcache.jcache.gets", "tier", "dram"));
          assertEquals(0, engine(registry, "hybridcache.jcache.gets", "tier", "flash"));
          for (int i = 0; i < n; i++) {
            assertEquals(value + i, items.get(i, String.class), "item " + i);
          }
          assertTrue(engine(registry, "hybridcache.jcache.gets", "tier", "flash") > n / 2.0, "early items from flash");
          assertEquals(n + 1, registry.get("cache.gets").tag("cache", "items").tag("result", "hit")
              .functionCounter().count(), "Micrometer's JCache binder beside ours");
          assertTrue(gauge(registry, "hybridcache.jcache.size", "flash") > n / 2.0);
          assertTrue(gauge(registry, "hybridcache.jcache.bytes", "dram") > 0);
          assertTrue(gauge(registry, "hybridcache.jcache.bytes", "flash") > n * 1000.0);
          assertEquals(0, gauge(registry, "hybridcache.jcache.degraded", null));
        });
  }

  /**
   * The per-cache tier meters, tagged as Micrometer's JCache meters of the cache, statistics off: hits by the tier
   * that served them, entries the engine refused and entries it evicted, each moving with what the cache did;
   * another cache's stay at 0.
   */
  @Test
  void perCacheTierMetersExistWithTheCacheTagsAndMove() {
    metered()
        .withPropertyValues("hybridcache.jcache.cache.quiet.value-type=java.lang.String",
            "hybridcache.jcache.cache.items.key-type=java.lang.Integer",
            "hybridcache.jcache.cache.items.value-type=java.lang.String")
        .run(context -> {
          assertNull(context.getStartupFailure());
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          Cache items = context.getBean(JCacheCacheManager.class).getCache("items");
          assertEquals(0, perCache(registry, "hybridcache.jcache.cache.hits", "items", "dram"));
          assertEquals(0, perCache(registry, "hybridcache.jcache.cache.hits", "items", "flash"));
          String value = "v".repeat(1000);
          int n = 2000; // about 2 MB through a 1 MiB DRAM tier onto 4 MiB of flash
          for (int i = 0; i < n; i++) {
            items.put(i, value + i);
          }
          context.getBean(CacheManager.class).unwrap(HybridCache.class).flush();
          for (int i = 0; i < n; i++) {
            assertEquals(value + i, items.get(i, String.class), "item " + i);
          }
          double flash = perCache(registry, "hybridcache.jcache.cache.hits", "items", "flash");
          assertTrue(flash > n / 2.0, "early items from flash: " + flash);
          assertEquals(n, flash + perCache(registry, "hybridcache.jcache.cache.hits", "items", "dram"));
          items.put(-1, "x".repeat(2 << 20)); // over both tiers: refused
          assertEquals(1, perCache(registry, "hybridcache.jcache.cache.rejections", "items", null));
          for (int i = n; i < 4 * n; i++) { // 8 MB through 4 MiB of flash: reclaim evicts
            items.put(i, value + i);
          }
          context.getBean(CacheManager.class).unwrap(HybridCache.class).flush();
          assertTrue(perCache(registry, "hybridcache.jcache.cache.evictions", "items", null) > 0, "evictions");
          for (String name : new String[] {"hits", "evictions", "rejections"}) {
            assertEquals(0, registry.get("hybridcache.jcache.cache." + name).tag("cache", "quiet")
                .tag("cache.manager", "cacheManager").functionCounters().stream().mapToDouble(c -> c.count()).sum(),
                name + " of the quiet cache");
          }
        });
  }

  /** An asynchronous listener that throws for every event but key -1's, which it tells of. */
  public static final class FailingListener
      implements javax.cache.event.CacheEntryCreatedListener<Object, Object>, java.io.Serializable {
    private static final long serialVersionUID = 1L;
    static final java.util.concurrent.CountDownLatch TOLD = new java.util.concurrent.CountDownLatch(1);

    @Override
    public void onCreated(Iterable<javax.cache.event.CacheEntryEvent<? extends Object, ? extends Object>> events) {
      for (javax.cache.event.CacheEntryEvent<? extends Object, ? extends Object> e : events) {
        if (!e.getKey().equals(-1)) {
          throw new IllegalStateException("the listener fails for " + e.getKey());
        }
        TOLD.countDown();
      }
    }
  }

  /**
   * An asynchronous listener that throws, on the manager's pool: {@code hybridcache.jcache.background.failures} of
   * its cache counts it (statistics off); the listener's events run in order, so once it was told of the last put
   * the failure of the first was counted.
   */
  @Test
  void aBackgroundFailureIsAMeterOfItsCache() {
    metered()
        .withPropertyValues("hybridcache.jcache.cache.items.key-type=java.lang.Integer")
        .run(context -> {
          assertNull(context.getStartupFailure());
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          Cache items = context.getBean(JCacheCacheManager.class).getCache("items");
          assertEquals(0, perCache(registry, "hybridcache.jcache.background.failures", "items", null));
          @SuppressWarnings("unchecked")
          javax.cache.Cache<Object, Object> jcache = (javax.cache.Cache<Object, Object>) items.getNativeCache();
          jcache.registerCacheEntryListener(new javax.cache.configuration.MutableCacheEntryListenerConfiguration<>(
              javax.cache.configuration.FactoryBuilder.factoryOf(FailingListener.class), null, false, false));
          items.put(1, "v");
          items.put(-1, "v");
          assertTrue(FailingListener.TOLD.await(10, java.util.concurrent.TimeUnit.SECONDS), "told of -1");
          assertEquals(1, perCache(registry, "hybridcache.jcache.background.failures", "items", null));
        });
  }

  private static double perCache(MeterRegistry registry, String name, String cache, String tier) {
    var search = registry.get(name).tag("cache", cache).tag("cache.manager", "cacheManager");
    return (tier == null ? search : search.tag("tier", tier)).functionCounter().count();
  }

  /** A capped cache's held bytes per tier are gauges (issue 37 item 6); a cache without a cap has none. */
  @Test
  void aCappedCachesHeldBytesAreGauges() {
    metered()
        .withPropertyValues("hybridcache.jcache.cache.items.key-type=java.lang.Integer",
            "hybridcache.jcache.cache.items.value-type=java.lang.String",
            "hybridcache.jcache.cache.other.key-type=java.lang.Integer",
            "hybridcache.jcache.cache.items.dram-bytes=256KB", "hybridcache.jcache.cache.items.flash-bytes=2MB",
            "hybridcache.jcache.flash-bytes=8MB", "hybridcache.jcache.segment-bytes=512KB")
        .run(context -> {
          assertNull(context.getStartupFailure());
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          Cache items = context.getBean(JCacheCacheManager.class).getCache("items");
          for (int i = 0; i < 100; i++) {
            items.put(i, "v".repeat(1000) + i);
          }
          double dram = held(registry, "items", "dram");
          assertTrue(dram > 100 * 1000.0 && dram <= 256 * 1024, "DRAM held " + dram);
          assertEquals(0, held(registry, "items", "flash"));
          context.getBean(CacheManager.class).unwrap(HybridCache.class).flush();
          assertTrue(held(registry, "items", "flash") > 100 * 1000.0, "flash held after a flush");
          assertTrue(registry.find("hybridcache.jcache.held.bytes").tag("cache", "other").gauges().isEmpty(),
              "a cache without a cap has no held-bytes gauge");
        });
  }

  private static double held(MeterRegistry registry, String cache, String tier) {
    return registry.get("hybridcache.jcache.held.bytes").tag("cache", cache).tag("tier", tier).gauge().value();
  }

  private static double engine(MeterRegistry registry, String name, String tag, String value) {
    return registry.get(name).tag(tag, value).functionCounter().count();
  }

  private static double gauge(MeterRegistry registry, String name, String tier) {
    var search = registry.get(name);
    return (tier == null ? search : search.tag("tier", tier)).gauge().value();
  }
}
