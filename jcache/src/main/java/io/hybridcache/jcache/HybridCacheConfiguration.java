package io.hybridcache.jcache;

import io.hybridcache.core.api.Codec;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.MutableConfiguration;

/**
 * A {@link MutableConfiguration} with what only this provider has: the codecs that turn a cache's keys
 * and values into bytes (store-by-value). A codec left null is chosen from the provider properties
 * ({@code cache.NAME.key-codec}) or the configured type ({@link Codecs#forType}). Budgets and the
 * directory belong to the {@code CacheManager} (its properties), not to a cache: its caches share them.
 * Not thread-safe, like its parent.
 */
public class HybridCacheConfiguration<K, V> extends MutableConfiguration<K, V> {
  private static final long serialVersionUID = 1L;

  private transient Codec<K> keyCodec;
  private transient Codec<V> valueCodec;

  public HybridCacheConfiguration() {}

  /** A copy of {@code other} (its codecs too, if it is a {@code HybridCacheConfiguration}). */
  public HybridCacheConfiguration(CompleteConfiguration<K, V> other) {
    super(other);
    if (other instanceof HybridCacheConfiguration) {
      HybridCacheConfiguration<K, V> h = (HybridCacheConfiguration<K, V>) other;
      this.keyCodec = h.keyCodec;
      this.valueCodec = h.valueCodec;
    }
  }

  /** The key codec, or null to choose one by type. */
  public Codec<K> getKeyCodec() {
    return keyCodec;
  }

  public HybridCacheConfiguration<K, V> setKeyCodec(Codec<K> codec) {
    this.keyCodec = codec;
    return this;
  }

  /** The value codec, or null to choose one by type. */
  public Codec<V> getValueCodec() {
    return valueCodec;
  }

  public HybridCacheConfiguration<K, V> setValueCodec(Codec<V> codec) {
    this.valueCodec = codec;
    return this;
  }

  @Override
  public HybridCacheConfiguration<K, V> setTypes(Class<K> keyType, Class<V> valueType) {
    super.setTypes(keyType, valueType);
    return this;
  }
}
