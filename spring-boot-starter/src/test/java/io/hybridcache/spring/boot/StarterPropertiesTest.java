package io.hybridcache.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.jcache.HybridCachingProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.expiry.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.cache.autoconfigure.JCacheManagerCustomizer;
import org.springframework.boot.cache.autoconfigure.JCachePropertiesCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.jcache.JCacheCacheManager;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * {@code hybridcache.jcache.*} reaches the provider through Spring Boot's own JCache configuration: the manager is
 * hybridcache's, its budgets, directory and per-cache settings are the bound ones, Spring's
 * {@code spring.cache.cache-names} and {@code JCacheManagerCustomizer}s still apply, a typo fails the start, and
 * Hibernate is handed the same manager.
 */
class StarterPropertiesTest {
  @TempDir Path dir;

  @Test
  void boundPropertiesConfigureHybridcachesManager() {
    Path directory = dir.resolve("cache");
    StarterContexts.runner(directory)
        .withPropertyValues(
            "hybridcache.jcache.dram-bytes=2MB",
            "hybridcache.jcache.cache-version=7",
            "hybridcache.jcache.cache.items.key-type=java.lang.Long",
            "hybridcache.jcache.cache.items.value-type=java.lang.String",
            "hybridcache.jcache.cache.items.expire-after-write=10m",
            "hybridcache.jcache.cache.items.statistics=true",
            "hybridcache.jcache.cache[demo.Customer].warm=true",
            "hybridcache.jcache.cache[demo.Customer].dram-bytes=25%",
            "hybridcache.jcache.cache[default].flash-bytes=1MB")
        .run(context -> {
          assertNull(context.getStartupFailure());
          CacheManager manager = context.getBean(CacheManager.class);
          assertInstanceOf(HybridCachingProvider.class, manager.getCachingProvider());
          assertSame(manager, context.getBean(JCacheCacheManager.class).getCacheManager());
          CacheConfig engine = manager.unwrap(HybridCache.class).config();
          assertEquals(2L << 20, engine.dramBytes(), "dram-bytes=2MB");
          assertEquals(4L << 20, engine.flashBytes(), "flash-bytes=4MB");
          assertEquals(64L << 10, engine.segmentBytes(), "segment-bytes=64KB");
          assertTrue(engine.directory().startsWith(directory), engine.directory() + " under " + directory);
          assertTrue(Files.isDirectory(directory), "the configured directory is the manager's");
          assertEquals("7", manager.getProperties().getProperty("cache-version"));
          // a bracketed dotted name keeps its dots and case; warm does not declare the cache
          assertEquals("true", manager.getProperties().getProperty("cache.demo.Customer.warm"));
          // per-cache budgets (issue 37 item 6): passed as the provider reads them; they declare no cache
          assertEquals("25%", manager.getProperties().getProperty("cache.demo.Customer.dram-bytes"));
          assertEquals(Long.toString(1L << 20), manager.getProperties().getProperty("cache.default.flash-bytes"));
          assertNotNull(manager.unwrap(HybridCache.class).config().keyGroups(), "the engine enforces the caps");
          List<String> names = new ArrayList<>();
          manager.getCacheNames().forEach(names::add);
          assertEquals(List.of("items"), names, "declared by its settings: items only");
          Cache<Long, String> items = manager.getCache("items", Long.class, String.class);
          assertNotNull(items, "items declared with its types");
          @SuppressWarnings("unchecked")
          CompleteConfiguration<Long, String> config = items.getConfiguration(CompleteConfiguration.class);
          assertTrue(config.isStatisticsEnabled());
          assertEquals(new Duration(TimeUnit.MILLISECONDS, 600_000),
              config.getExpiryPolicyFactory().create().getExpiryForCreation(), "expire-after-write=10m");
          org.springframework.cache.Cache spring = context.getBean(JCacheCacheManager.class).getCache("items");
          spring.put(1L, "one");
          assertEquals("one", spring.get(1L, String.class));
        });
  }

  @Test
  void composesWithSpringCacheNamesAndCustomizers() {
    StarterContexts.runner(dir.resolve("cache"))
        .withPropertyValues("spring.cache.cache-names=extra", "hybridcache.jcache.dram-bytes=3MB")
        .withBean(JCacheManagerCustomizer.class,
            () -> m -> m.createCache("fromCustomizer", new MutableConfiguration<>()))
        .run(context -> {
          assertNull(context.getStartupFailure());
          CacheManager manager = context.getBean(CacheManager.class);
          assertNotNull(manager.getCache("extra"), "spring.cache.cache-names applies");
          assertNotNull(manager.getCache("fromCustomizer"), "JCacheManagerCustomizers apply");
          assertEquals(3L << 20, manager.unwrap(HybridCache.class).config().dramBytes());
        });
  }

  @Test
  void environmentVariablesBindAndAnUnrelatedOneIsIgnored() {
    StarterContexts.runner(dir.resolve("cache"))
        .withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
            new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                Map.of("HYBRIDCACHE_JCACHE_DRAM_BYTES", "3MB", "HYBRIDCACHE_JCACHE_UNRELATED", "x"))))
        .run(context -> {
          assertNull(context.getStartupFailure(), "the provider ignores unknown HYBRIDCACHE_JCACHE_* variables too");
          assertEquals(3L << 20, context.getBean(CacheManager.class).unwrap(HybridCache.class).config().dramBytes());
        });
  }

  @Test
  void anUnknownPropertyFailsTheStart() {
    assertStartFails("hybridcache.jcache.dram-byte=2MB", "hybridcache.jcache.dram-byte"); // a typo is never ignored
  }

  @Test
  void aDottedCacheNameWithoutBracketsFailsTheStart() {
    // it would bind a cache named "demo" with no setting "customer.warm"
    assertStartFails("hybridcache.jcache.cache.demo.Customer.warm=true", "hybridcache.jcache.cache.demo.customer.warm");
  }

  @Test
  void theProvidersRefusalNamesItsProperty() {
    assertStartFails("hybridcache.jcache.dram-bytes=512KB", "dram-bytes must be at least 1m, was 524288");
  }

  /** A per-cache cap in Spring's units reaches the provider in bytes, TB included (as the manager's flash-bytes). */
  @Test
  void aCapInTerabytesReachesTheProviderInBytes() {
    assertStartFails("hybridcache.jcache.cache[a].flash-bytes=2TB",
        "cache.a.flash-bytes cannot exceed the manager's flash-bytes (4m), was " + (2L << 40));
  }

  /** A start with {@code property} fails, and a cause's message has {@code expected}. */
  private void assertStartFails(String property, String expected) {
    StarterContexts.runner(dir.resolve("cache")).withPropertyValues(property).run(context -> {
      assertNotNull(context.getStartupFailure(), property);
      assertTrue(causes(context.getStartupFailure()).contains(expected), causes(context.getStartupFailure()));
    });
  }

  @Test
  void anotherProviderNamedByTheApplicationGetsNothingOfOurs() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(HybridCacheAutoConfiguration.class))
        .withPropertyValues("spring.cache.jcache.provider=com.example.OtherProvider")
        .run(context -> assertTrue(context.getBeansOfType(JCachePropertiesCustomizer.class).isEmpty()));
  }

  @Test
  void theProviderIsADefaultTheApplicationOverrides() {
    StandardEnvironment plain = new StandardEnvironment();
    new HybridCacheProviderDefault().postProcessEnvironment(plain, null);
    assertEquals(HybridCacheAutoConfiguration.PROVIDER, plain.getProperty("spring.cache.jcache.provider"));
    assertEquals(HybridCachingProvider.class.getName(), HybridCacheAutoConfiguration.PROVIDER);

    StandardEnvironment chosen = new StandardEnvironment();
    chosen.getPropertySources().addFirst(new MapPropertySource("application",
        Map.of("spring.cache.jcache.provider", "com.example.OtherProvider")));
    new HybridCacheProviderDefault().postProcessEnvironment(chosen, null);
    assertEquals("com.example.OtherProvider", chosen.getProperty("spring.cache.jcache.provider"));
  }

  @Test
  void hibernateIsHandedTheSameManagerUnlessItNamesOne() {
    StarterContexts.runner(dir.resolve("cache")).run(context -> {
      CacheManager manager = context.getBean(CacheManager.class);
      var customizer = HybridCacheAutoConfiguration.HibernateSecondLevelCache.hibernateCustomizer(
          context.getBeanProvider(CacheManager.class));
      Map<String, Object> plain = new HashMap<>(Map.of("hibernate.cache.region.factory_class", "jcache"));
      customizer.customize(plain);
      assertSame(manager, plain.get("hibernate.javax.cache.cache_manager"));

      Map<String, Object> ownUri = new HashMap<>(Map.of("hibernate.javax.cache.uri", "file:/etc/other.properties"));
      customizer.customize(ownUri);
      assertFalse(ownUri.containsKey("hibernate.javax.cache.cache_manager"), "an explicit URI wins");
    });
  }

  private static String causes(Throwable t) {
    StringBuilder s = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      s.append(c).append('\n');
    }
    return s.toString();
  }
}
