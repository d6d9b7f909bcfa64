package io.hybridcache.spring.boot;

import io.hybridcache.jcache.HybridCachingProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The actuator's {@code hybridcache} health indicator ({@link HybridCacheHealthIndicator}) for Spring's JCache
 * manager, when actuator's health support is on the class path and the manager is hybridcache's
 * ({@code management.health.hybridcache.enabled=false} turns it off). The manager bean may be the application's
 * own, of another provider (Spring Boot's cache support then uses it as it is): which provider made it is known
 * only once it exists, so the bean method checks it and makes no indicator for another provider's manager.
 */
@AutoConfiguration(after = CacheAutoConfiguration.class)
@ConditionalOnClass({HybridCachingProvider.class, HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
@ConditionalOnProperty(name = HybridCacheAutoConfiguration.PROVIDER_PROPERTY,
    havingValue = HybridCacheAutoConfiguration.PROVIDER, matchIfMissing = true)
@ConditionalOnBean(javax.cache.CacheManager.class)
@ConditionalOnEnabledHealthIndicator("hybridcache")
public class HybridCacheHealthAutoConfiguration {
  /** The indicator, or none (a null bean, which Spring leaves out of the health contributors) for another provider's manager. */
  @Bean
  @ConditionalOnMissingBean(name = "hybridcacheHealthIndicator")
  HybridCacheHealthIndicator hybridcacheHealthIndicator(javax.cache.CacheManager manager) {
    return HybridCacheAutoConfiguration.ours(manager) ? new HybridCacheHealthIndicator(manager) : null;
  }
}
