package io.hybridcache.bench.jcache;

import java.nio.file.Path;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.spi.CachingProvider;

/**
 * One JSR-107 provider as {@link JCacheProbe} drives it: a manager for the probes of a plain
 * {@code MutableConfiguration}, and a manager configured the provider's own way for a heap budget of
 * {@link JCacheProbe#HEAP_ENTRIES} values plus whatever tier it has beyond the heap, its files under a directory
 * (opening it again on the same directory is the restart).
 */
abstract class ProbeSubject {
  private final String name;
  private final CachingProvider provider;

  /** @param name the column's name; @param providerClass the provider's class name (on the class path) */
  ProbeSubject(String name, String providerClass) {
    this.name = name;
    this.provider = Caching.getCachingProvider(providerClass);
  }

  /** The provider's column name. */
  final String name() {
    return name;
  }

  /** The provider. */
  final CachingProvider provider() {
    return provider;
  }

  /**
   * A manager for caches of a plain {@code MutableConfiguration}; files, if any, under {@code dir}. By default the
   * provider's default manager (default URI and class loader).
   */
  CacheManager plainManager(Path dir) {
    return provider().getCacheManager(provider().getDefaultURI(), provider().getDefaultClassLoader());
  }

  /** The manager of the bounded cache, configured the provider's own way; files under {@code dir}. */
  abstract CacheManager boundedManager(Path dir);

  /** What {@link #boundedManager} configures, in a few words (printed under the table). */
  abstract String boundedConfiguration();

  /** The bounded cache ({@link JCacheProbe#BOUNDED}) of {@code manager}: declared by its configuration, or created. */
  abstract Cache<Integer, String> boundedCache(CacheManager manager);
}
