package io.hybridcache.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.HybridCache;
import io.hybridcache.jcache.HybridCacheStatisticsMXBean;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import javax.cache.CacheManager;
import javax.cache.spi.CachingProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.cache.autoconfigure.metrics.CacheMetricsAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.jcache.JCacheCacheManager;

/**
 * Issue 37 review (second reader: the starter). Each test fails on the code it was written against; see the
 * review report for the scenario of each.
 */
class Review37StarterTest {
  @TempDir Path dir;

  private ApplicationContextRunner metered() {
    return StarterContexts.runner(dir.resolve("cache"), HybridCacheMetricsAutoConfiguration.class,
        HybridCacheHealthAutoConfiguration.class, MetricsAutoConfiguration.class,
        SimpleMetricsExportAutoConfiguration.class, CacheMetricsAutoConfiguration.class);
  }

  /**
   * A DRAM eviction that flash refuses because its cache is over its own {@code flash-bytes} cap leaves the cache:
   * the cache's {@code hybridcache.jcache.cache.rejections} counts it, so the manager's
   * {@code hybridcache.jcache.evictions{tier=dram}} ("DRAM evictions that left the cache because flash refused
   * them") and the sum of {@code hybridcache.jcache.rejections} over its reasons must too: with one cache, neither
   * engine figure can be below that cache's.
   */
  @Test
  void anEvictionRefusedForACachesFlashCapIsCountedInTheManagersEvictionsAndRejections() {
    metered()
        .withPropertyValues("hybridcache.jcache.cache.items.key-type=java.lang.Integer",
            "hybridcache.jcache.cache.items.value-type=java.lang.String",
            "hybridcache.jcache.cache.items.flash-bytes=2MB",
            "hybridcache.jcache.flash-bytes=8MB", "hybridcache.jcache.segment-bytes=512KB")
        .run(context -> {
          assertNull(context.getStartupFailure());
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          Cache items = context.getBean(JCacheCacheManager.class).getCache("items");
          String value = "v".repeat(1000);
          for (int i = 0; i < 6000; i++) { // 6 MB through 1 MiB of DRAM into a 2 MB flash cap
            items.put(i, value + i);
          }
          context.getBean(CacheManager.class).unwrap(HybridCache.class).flush();
          double cacheRejections = registry.get("hybridcache.jcache.cache.rejections").tag("cache", "items")
              .functionCounter().count();
          assertTrue(cacheRejections > 0, "the cap refused DRAM evictions of items: " + cacheRejections);
          double engineRefused = registry.get("hybridcache.jcache.evictions").tag("tier", "dram")
              .functionCounter().count();
          double byReason = registry.get("hybridcache.jcache.rejections").functionCounters().stream()
              .mapToDouble(c -> c.count()).sum();
          assertTrue(engineRefused >= cacheRejections, "hybridcache.jcache.evictions{tier=dram} = " + engineRefused
              + " below the only cache's hybridcache.jcache.cache.rejections = " + cacheRejections);
          assertTrue(byReason >= cacheRejections, "hybridcache.jcache.rejections (all reasons) = " + byReason
              + " below the only cache's hybridcache.jcache.cache.rejections = " + cacheRejections);
        });
  }

  /**
   * A function counter is monotonic (Micrometer's contract; a step registry sends the difference). The JCache
   * statistics' {@code clear()} (the {@code CacheStatistics} MBean's operation, e.g. from JConsole) must not take
   * the starter's per-cache counters back.
   */
  @Test
  void thePerCacheCountersNeverGoBackwards() {
    metered()
        .withPropertyValues("hybridcache.jcache.cache.items.key-type=java.lang.Integer",
            "hybridcache.jcache.cache.items.value-type=java.lang.String",
            "hybridcache.jcache.cache.items.statistics=true")
        .run(context -> {
          assertNull(context.getStartupFailure());
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          Cache items = context.getBean(JCacheCacheManager.class).getCache("items");
          for (int i = 0; i < 10; i++) {
            items.put(i, "v" + i);
            assertEquals("v" + i, items.get(i, String.class));
          }
          double before = dramHits(registry);
          assertEquals(10, before);
          context.getBean(CacheManager.class).getCache("items").unwrap(HybridCacheStatisticsMXBean.class).clear();
          double after = dramHits(registry);
          assertTrue(after >= before, "the function counter hybridcache.jcache.cache.hits{tier=dram} went from "
              + before + " back to " + after);
        });
  }

  private static double dramHits(MeterRegistry registry) {
    return registry.get("hybridcache.jcache.cache.hits").tag("cache", "items").tag("tier", "dram")
        .functionCounter().count();
  }

  /**
   * An application with the starter on its class path (perhaps transitively) that makes its own
   * {@code javax.cache.CacheManager} bean of another provider: Spring uses that manager, the starter's retrieve
   * support and Hibernate hand-over step aside (they check the provider); the health indicator and the engine
   * meters must too (their auto-configuration says "the manager is hybridcache's"), not report DOWN and fail every
   * scrape.
   */
  @Test
  void anotherProvidersManagerBeanGetsNoFailingHealthOrMeters() {
    metered()
        .withBean("otherJCacheManager", CacheManager.class, Review37StarterTest::otherProvidersManager)
        .run(context -> {
          assertNull(context.getStartupFailure());
          List<String> failures = new ArrayList<>();
          context.getBeansOfType(HealthIndicator.class).forEach((name, indicator) -> {
            Health h = indicator.health();
            if (Status.DOWN.equals(h.getStatus())) {
              failures.add("health " + name + " is " + h);
            }
          });
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          for (Meter m : registry.getMeters()) {
            try {
              for (Measurement x : m.measure()) {
                x.getValue();
              }
            } catch (RuntimeException e) {
              failures.add("a scrape of " + m.getId().getName() + m.getId().getTags() + " throws " + e);
            }
          }
          assertEquals(List.of(), failures);
        });
  }

  /** A {@code javax.cache.CacheManager} of some other provider, with no caches. */
  private static CacheManager otherProvidersManager() {
    ClassLoader loader = Review37StarterTest.class.getClassLoader();
    CachingProvider provider = (CachingProvider) Proxy.newProxyInstance(loader, new Class<?>[] {CachingProvider.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "toString" -> "OtherProvider";
          case "hashCode" -> System.identityHashCode(proxy);
          case "equals" -> proxy == args[0];
          default -> null;
        });
    return (CacheManager) Proxy.newProxyInstance(loader, new Class<?>[] {CacheManager.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "getCachingProvider" -> provider;
          case "getURI" -> URI.create("urn:other-provider");
          case "getClassLoader" -> loader;
          case "getProperties" -> new Properties();
          case "isClosed" -> false;
          case "getCacheNames" -> List.of();
          case "unwrap" -> throw new IllegalArgumentException("OtherCacheManager does not unwrap to " + args[0]);
          case "toString" -> "OtherCacheManager";
          case "hashCode" -> System.identityHashCode(proxy);
          case "equals" -> proxy == args[0];
          default -> null;
        });
  }

  /** A service whose {@code sync = true} cached method returns a future that completes when the test says. */
  static class SlowItems {
    private final AtomicInteger calls = new AtomicInteger();
    private final CompletableFuture<String> gate = new CompletableFuture<>();

    public int calls() {
      return calls.get();
    }

    public void open() {
      gate.complete("item-");
    }

    @Cacheable(cacheNames = "items", sync = true)
    public CompletableFuture<String> item(int id) {
      calls.incrementAndGet();
      return gate.thenApply(prefix -> prefix + id);
    }
  }

  /**
   * {@code @Cacheable(sync = true)} on a method returning a future: Spring calls {@code Cache.retrieve(key,
   * loader)}, whose contract asks that the loader run once for concurrent callers of one key (what {@code sync}
   * is for; Caffeine's cache and Spring's {@code ConcurrentMapCache} do so). Two callers of a missing key while the
   * first's load is in flight: the method must run once. The executor runs tasks on the calling thread, so the
   * interleaving is fixed: the second call looks up while the first's future is still pending.
   */
  @Test
  void aSyncCacheableFutureMethodRunsOnceForConcurrentCallersOfAKey() {
    StarterContexts.runner(dir.resolve("cache"))
        .withPropertyValues("hybridcache.jcache.cache.items.key-type=java.lang.Integer",
            "hybridcache.jcache.cache.items.value-type=java.lang.String")
        .withBean("applicationTaskExecutor", Executor.class, () -> Runnable::run)
        .withBean(SlowItems.class)
        .run(context -> {
          assertNull(context.getStartupFailure());
          SlowItems items = context.getBean(SlowItems.class);
          CompletableFuture<String> first = items.item(1);
          assertEquals(1, items.calls(), "the first call's load is in flight");
          CompletableFuture<String> second = items.item(1);
          items.open();
          assertEquals("item-1", first.join());
          assertEquals("item-1", second.join());
          assertEquals(1, items.calls(), "@Cacheable(sync = true): the method ran once per caller, not once per key");
        });
  }

  /**
   * The configuration metadata IDEs read ({@code META-INF/spring-configuration-metadata.json}, the processor's
   * output merged with {@code additional-spring-configuration-metadata.json}) states each setting's default where
   * the provider has one, and the values {@code durability} takes.
   */
  @Test
  void theConfigurationMetadataGivesTheDefaultsAndTheDurabilityValues() throws IOException {
    String json = starterMetadata();
    List<String> missing = new ArrayList<>();
    for (String name : new String[] {"dram-bytes", "flash-bytes", "write-buffer-bytes", "direct-io",
        "small-object-share", "small-object-max-bytes", "small-object-log-share", "close-timeout", "shutdown-hook",
        "durability"}) {
      String entry = property(json, "hybridcache.jcache." + name);
      if (entry == null || !entry.contains("\"defaultValue\"")) {
        missing.add(name);
      }
    }
    assertEquals(List.of(), missing, "hybridcache.jcache.* without a defaultValue in the configuration metadata");
    int hints = json.indexOf("\"hints\"");
    assertTrue(hints >= 0 && json.indexOf("\"hybridcache.jcache.durability\"", hints) >= 0
        && json.indexOf("\"POWER\"", hints) >= 0, "no value hints for hybridcache.jcache.durability (PROCESS, POWER, NONE)");
  }

  /** The starter's generated metadata (several jars on the class path have one of that name). */
  private static String starterMetadata() throws IOException {
    Enumeration<URL> all = Review37StarterTest.class.getClassLoader()
        .getResources("META-INF/spring-configuration-metadata.json");
    while (all.hasMoreElements()) {
      try (InputStream in = all.nextElement().openStream()) {
        String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        if (text.contains("io.hybridcache.spring.boot.HybridCacheProperties")) {
          return text;
        }
      }
    }
    throw new AssertionError("no configuration metadata of the starter on the class path");
  }

  /** The JSON object of property {@code name} in {@code json}'s "properties", or null. */
  private static String property(String json, String name) {
    int properties = json.indexOf("\"properties\"");
    int hints = json.indexOf("\"hints\"");
    int at = json.indexOf("\"name\": \"" + name + "\"", properties);
    if (at < 0 || (hints >= 0 && at > hints)) {
      return null;
    }
    int start = json.lastIndexOf('{', at);
    int end = json.indexOf('}', at);
    assertNotNull(json.substring(start, end));
    return json.substring(start, end);
  }
}
