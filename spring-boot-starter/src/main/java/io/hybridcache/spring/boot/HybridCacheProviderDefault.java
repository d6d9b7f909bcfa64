package io.hybridcache.spring.boot;

import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.DefaultPropertiesPropertySource;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Sets {@code spring.cache.jcache.provider} to hybridcache's provider as a <em>default</em> property (the
 * lowest-precedence property source), so that Spring Boot's JCache support uses it without a provider class
 * name in the application's configuration, even when another JCache provider is on the class path too (Spring
 * Boot then finds "multiple JSR-107 providers" and, without the property, configures no JCache cache at all).
 * A value the application sets anywhere wins. It must be a property, not a bean: Spring Boot reads it in the
 * condition that decides whether to configure JCache, before any bean exists. Registered in
 * {@code META-INF/spring.factories}; unordered, so it runs after Spring Boot has loaded the application's
 * configuration files. Stateless.
 */
public class HybridCacheProviderDefault implements EnvironmentPostProcessor {
  @Override
  public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
    if (environment.containsProperty(HybridCacheAutoConfiguration.PROVIDER_PROPERTY)) {
      return; // set by the application (its files are loaded by now: this runs after Spring's config data)
    }
    DefaultPropertiesPropertySource.addOrMerge(
        Map.of(HybridCacheAutoConfiguration.PROVIDER_PROPERTY, HybridCacheAutoConfiguration.PROVIDER),
        environment.getPropertySources());
  }
}
