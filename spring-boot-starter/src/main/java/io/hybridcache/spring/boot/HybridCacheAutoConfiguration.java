package io.hybridcache.spring.boot;

import io.hybridcache.jcache.HybridCachingProvider;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.boot.cache.autoconfigure.JCachePropertiesCustomizer;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.cache.jcache.JCacheCacheManager;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.function.SingletonSupplier;

/**
 * Makes Spring Boot's JCache support ({@code JCacheCacheConfiguration}, {@code spring.cache.jcache.*}) run on
 * hybridcache's provider, configured from {@code hybridcache.jcache.*} ({@link HybridCacheProperties}).
 *
 * <p><b>Why a {@link JCachePropertiesCustomizer}, not a {@code javax.cache.CacheManager} bean of our own.</b>
 * Spring Boot makes the JCache manager in one place: it picks the provider ({@code spring.cache.jcache.provider},
 * else the only one on the class path), asks it for the manager of {@code spring.cache.jcache.config} (or the
 * provider's default URI) with {@code Properties} that its {@code JCachePropertiesCustomizer} beans fill, then
 * creates {@code spring.cache.cache-names} with the application's default {@code Configuration} bean and runs the
 * {@code JCacheManagerCustomizer} beans. A manager bean of ours would switch all of that off (Spring's method
 * is {@code @ConditionalOnMissingBean}): {@code cache-names}, the customizers and {@code config} would be
 * silently ignored, or this starter would have to copy them. The customizer adds only what is ours: the bound
 * settings, as the {@code Properties} the provider reads first (they win over a provider file that
 * {@code spring.cache.jcache.config} may still name). The provider itself is chosen by
 * {@link HybridCacheProviderDefault}, which sets {@code spring.cache.jcache.provider} as a default property:
 * Spring reads it in its condition (before any bean exists), so it cannot come from a bean; being a default,
 * the application's own value wins, and then this customizer stays out (the condition below), as do the health
 * indicator and the meters.
 *
 * <p><b>Hibernate.</b> With Hibernate's JCache region factory on the class path, a
 * {@link HibernatePropertiesCustomizer} hands Hibernate this same manager ({@code hibernate.javax.cache.cache_manager}):
 * one engine, one budget and the same settings for {@code @Cacheable} and the second-level cache, with no
 * provider class name or URI in the JPA properties. An explicit {@code hibernate.javax.cache.cache_manager} or
 * {@code hibernate.javax.cache.uri} wins. It needs Spring's cache manager ({@code @EnableCaching}); without one,
 * Hibernate opens its own as its properties say. Hibernate closes the manager it was given when the
 * {@code EntityManagerFactory} closes (before Spring closes it; a second close does nothing).
 *
 * <p><b>{@code @Cacheable} methods returning {@code CompletableFuture}.</b> Spring's {@code JCacheCacheManager} (the
 * bean Spring Boot makes) is replaced, before its initialization, by a {@link RetrievingJCacheCacheManager} over
 * the same JCache manager and settings, whose caches implement {@code Cache.retrieve}: the lookup (a flash read,
 * perhaps) runs on Spring Boot's {@code applicationTaskExecutor} (virtual threads with
 * {@code spring.threads.virtual.enabled}), or the common pool without one, not on the caller's thread. Only a
 * manager of this provider is replaced, and only Spring's own class (a subclass of the application's is left).
 */
@AutoConfiguration(before = CacheAutoConfiguration.class)
@ConditionalOnClass({HybridCachingProvider.class, JCachePropertiesCustomizer.class})
@ConditionalOnProperty(name = HybridCacheAutoConfiguration.PROVIDER_PROPERTY,
    havingValue = HybridCacheAutoConfiguration.PROVIDER, matchIfMissing = true)
@EnableConfigurationProperties(HybridCacheProperties.class)
public class HybridCacheAutoConfiguration {
  /** Spring Boot's property naming the JCache provider. */
  public static final String PROVIDER_PROPERTY = "spring.cache.jcache.provider";
  /** Our provider's class name. */
  public static final String PROVIDER = "io.hybridcache.jcache.HybridCachingProvider";
  /** Hibernate's {@code ConfigSettings.CACHE_MANAGER}: a {@code javax.cache.CacheManager} instance to use. */
  static final String HIBERNATE_CACHE_MANAGER = "hibernate.javax.cache.cache_manager";
  /** Hibernate's {@code ConfigSettings.CONFIG_URI}. */
  static final String HIBERNATE_CACHE_URI = "hibernate.javax.cache.uri";

  @Bean
  JCachePropertiesCustomizer hybridCachePropertiesCustomizer(HybridCacheProperties properties) {
    return p -> p.putAll(properties.toProviderProperties());
  }

  /** The bean name of Spring Boot's task executor. */
  static final String TASK_EXECUTOR = "applicationTaskExecutor";

  @Bean
  static BeanPostProcessor hybridCacheRetrieveSupport(BeanFactory beanFactory) {
    return new BeanPostProcessor() {
      @Override
      public Object postProcessBeforeInitialization(Object bean, String beanName) throws BeansException {
        if (bean.getClass() == JCacheCacheManager.class && ours(((JCacheCacheManager) bean).getCacheManager())) {
          return new RetrievingJCacheCacheManager((JCacheCacheManager) bean, SingletonSupplier.of(() ->
              beanFactory.containsBean(TASK_EXECUTOR) ? beanFactory.getBean(TASK_EXECUTOR, Executor.class)
                  : ForkJoinPool.commonPool()));
        }
        return bean;
      }
    };
  }

  /**
   * True if {@code manager} is one of this provider's: what the retrieve support, the Hibernate hand-over, the
   * health indicator and the meters check, since an application may make its own manager bean of another provider.
   */
  static boolean ours(javax.cache.CacheManager manager) {
    return manager != null && manager.getCachingProvider() instanceof HybridCachingProvider;
  }

  /** Hibernate's second-level cache on Spring's JCache manager (see the class comment). */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer",
      "org.hibernate.cache.jcache.ConfigSettings"})
  static class HibernateSecondLevelCache {
    @Bean
    HibernatePropertiesCustomizer hybridCacheHibernateCustomizer(ObjectProvider<javax.cache.CacheManager> managers) {
      return hibernateCustomizer(managers);
    }

    /**
     * Puts the JCache manager {@code managers} has (if it has one) under {@code hibernate.javax.cache.cache_manager}, unless the
     * properties name a manager or a URI already.
     */
    static HibernatePropertiesCustomizer hibernateCustomizer(ObjectProvider<javax.cache.CacheManager> managers) {
      return (Map<String, Object> p) -> {
        if (p.containsKey(HIBERNATE_CACHE_MANAGER) || p.containsKey(HIBERNATE_CACHE_URI)) {
          return;
        }
        javax.cache.CacheManager manager = managers.getIfUnique();
        if (ours(manager)) {
          p.put(HIBERNATE_CACHE_MANAGER, manager);
        }
      };
    }
  }
}
