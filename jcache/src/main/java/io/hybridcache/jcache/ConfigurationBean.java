package io.hybridcache.jcache;

import javax.cache.configuration.CompleteConfiguration;
import javax.cache.management.CacheMXBean;

/** A cache's configuration as {@code javax.cache:type=CacheConfiguration}. Reads the live configuration. */
final class ConfigurationBean implements CacheMXBean {
  private final CompleteConfiguration<?, ?> config;

  ConfigurationBean(CompleteConfiguration<?, ?> config) {
    this.config = config;
  }

  @Override
  public String getKeyType() { return config.getKeyType().getName(); }

  @Override
  public String getValueType() { return config.getValueType().getName(); }

  @Override
  public boolean isReadThrough() { return config.isReadThrough(); }

  @Override
  public boolean isWriteThrough() { return config.isWriteThrough(); }

  @Override
  public boolean isStoreByValue() { return config.isStoreByValue(); }

  @Override
  public boolean isStatisticsEnabled() { return config.isStatisticsEnabled(); }

  @Override
  public boolean isManagementEnabled() { return config.isManagementEnabled(); }
}
