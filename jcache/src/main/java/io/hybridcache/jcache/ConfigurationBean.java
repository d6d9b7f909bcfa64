package io.hybridcache.jcache;

import javax.cache.configuration.CompleteConfiguration;
import javax.cache.management.CacheMXBean;

/**
 * A cache's configuration as {@code javax.cache:type=CacheConfiguration}. Reads the live configuration, held
 * weakly: the platform MBean server must not pin the cache's types, so its class loader (a cache gone without
 * close reads as its defaults).
 */
final class ConfigurationBean implements CacheMXBean {
  private static final CompleteConfiguration<?, ?> GONE = new javax.cache.configuration.MutableConfiguration<>();
  private final java.lang.ref.WeakReference<CompleteConfiguration<?, ?>> live;

  ConfigurationBean(CompleteConfiguration<?, ?> config) {
    this.live = new java.lang.ref.WeakReference<>(config);
  }

  private CompleteConfiguration<?, ?> config() {
    CompleteConfiguration<?, ?> c = live.get();
    return c != null ? c : GONE;
  }

  @Override
  public String getKeyType() { return config().getKeyType().getName(); }

  @Override
  public String getValueType() { return config().getValueType().getName(); }

  @Override
  public boolean isReadThrough() { return config().isReadThrough(); }

  @Override
  public boolean isWriteThrough() { return config().isWriteThrough(); }

  @Override
  public boolean isStoreByValue() { return config().isStoreByValue(); }

  @Override
  public boolean isStatisticsEnabled() { return config().isStatisticsEnabled(); }

  @Override
  public boolean isManagementEnabled() { return config().isManagementEnabled(); }
}
