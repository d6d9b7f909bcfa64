package io.hybridcache.spring.boot;

import io.hybridcache.jcache.HybridCachingProvider;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.boot.cache.autoconfigure.metrics.CacheMetricsAutoConfiguration;
import org.springframework.boot.cache.metrics.JCacheCacheMeterBinderProvider;
import org.springframework.cache.jcache.JCacheCache;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer meters of hybridcache's JCache manager, when Micrometer is on the class path: per cache
 * ({@link HybridCacheMeterBinderProvider}, bound by Spring Boot's {@code CacheMetricsRegistrar} beside
 * Micrometer's JCache meters) and per engine ({@link HybridCacheEngineMeters}, a {@code MeterBinder} bean that
 * Spring Boot binds to every registry). Ordered before Spring Boot's cache metrics so that its registrar finds
 * the provider (Spring Boot makes its own JCache provider only when there is none). The manager bean may be the
 * application's own, of another provider: the engine meters are then not made (the bean method checks the
 * manager's provider), and the per-cache provider gives that provider's caches Micrometer's meters only.
 */
@AutoConfiguration(after = CacheAutoConfiguration.class, before = CacheMetricsAutoConfiguration.class)
@ConditionalOnClass({HybridCachingProvider.class, MeterRegistry.class, JCacheCacheMeterBinderProvider.class,
    JCacheCache.class})
@ConditionalOnProperty(name = HybridCacheAutoConfiguration.PROVIDER_PROPERTY,
    havingValue = HybridCacheAutoConfiguration.PROVIDER, matchIfMissing = true)
@ConditionalOnBean(javax.cache.CacheManager.class)
public class HybridCacheMetricsAutoConfiguration {
  @Bean
  HybridCacheMeterBinderProvider hybridCacheMeterBinderProvider() {
    return new HybridCacheMeterBinderProvider();
  }

  /** The engine's meters, or none (a null bean, which Spring leaves out of the binders) for another provider's manager. */
  @Bean
  HybridCacheEngineMeters hybridCacheEngineMeters(javax.cache.CacheManager manager) {
    return HybridCacheAutoConfiguration.ours(manager) ? new HybridCacheEngineMeters(manager) : null;
  }
}
