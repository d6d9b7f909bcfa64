package io.hybridcache.jcache;

import io.hybridcache.core.api.Codec;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.Factory;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.expiry.ExpiryPolicy;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheWriter;

/**
 * What {@code Cache.getConfiguration} returns: a copy of the cache's configuration as it is now, which
 * refuses every change ({@link UnsupportedOperationException}), as the spec asks of the returned value. It is
 * a {@link HybridCacheConfiguration} (so a {@code MutableConfiguration} and a {@code CompleteConfiguration}), so
 * {@code getConfiguration} of any of those classes works. Immutable once made.
 */
final class FrozenConfiguration<K, V> extends HybridCacheConfiguration<K, V> {
  private static final long serialVersionUID = 1L;
  private final boolean frozen; // false while the parent's copy constructor runs

  FrozenConfiguration(CompleteConfiguration<K, V> of) {
    super(of);
    frozen = true;
  }

  private UnsupportedOperationException refused() {
    return new UnsupportedOperationException("the configuration Cache.getConfiguration returns is an immutable copy;"
        + " change a cache through the Cache and CacheManager (registerCacheEntryListener, enableStatistics...)");
  }

  @Override
  public Iterable<CacheEntryListenerConfiguration<K, V>> getCacheEntryListenerConfigurations() {
    List<CacheEntryListenerConfiguration<K, V>> all = new ArrayList<>();
    super.getCacheEntryListenerConfigurations().forEach(all::add);
    return Collections.unmodifiableList(all);
  }

  @Override
  public MutableConfiguration<K, V> addCacheEntryListenerConfiguration(CacheEntryListenerConfiguration<K, V> c) {
    if (frozen) {
      throw refused();
    }
    return super.addCacheEntryListenerConfiguration(c);
  }

  @Override
  public MutableConfiguration<K, V> removeCacheEntryListenerConfiguration(CacheEntryListenerConfiguration<K, V> c) {
    throw refused();
  }

  @Override
  public HybridCacheConfiguration<K, V> setTypes(Class<K> keyType, Class<V> valueType) {
    throw refused();
  }

  @Override
  public MutableConfiguration<K, V> setCacheLoaderFactory(Factory<? extends CacheLoader<K, V>> f) {
    throw refused();
  }

  @Override
  public MutableConfiguration<K, V> setCacheWriterFactory(Factory<? extends CacheWriter<? super K, ? super V>> f) {
    throw refused();
  }

  @Override
  public MutableConfiguration<K, V> setExpiryPolicyFactory(Factory<? extends ExpiryPolicy> f) {
    throw refused();
  }

  @Override
  public MutableConfiguration<K, V> setReadThrough(boolean on) {
    throw refused();
  }

  @Override
  public MutableConfiguration<K, V> setWriteThrough(boolean on) {
    throw refused();
  }

  @Override
  public MutableConfiguration<K, V> setStoreByValue(boolean on) {
    throw refused();
  }

  @Override
  public MutableConfiguration<K, V> setStatisticsEnabled(boolean on) {
    throw refused();
  }

  @Override
  public MutableConfiguration<K, V> setManagementEnabled(boolean on) {
    throw refused();
  }

  @Override
  public HybridCacheConfiguration<K, V> setKeyCodec(Codec<K> codec) {
    throw refused();
  }

  @Override
  public HybridCacheConfiguration<K, V> setValueCodec(Codec<V> codec) {
    throw refused();
  }
}
