package io.hybridcache.bench.jcache;

import com.github.benmanes.caffeine.jcache.configuration.CaffeineConfiguration;
import java.nio.file.Path;
import java.util.OptionalLong;
import javax.cache.Cache;
import javax.cache.CacheManager;

/**
 * Caffeine's provider: the bounded cache is a {@code CaffeineConfiguration} with a maximum size (heap only),
 * its maintenance run on the calling thread: by default Caffeine evicts on the common pool, after the put
 * returns, so a count taken at once varied with the machine's load (522 of a 500 bound was seen once).
 */
final class CaffeineSubject extends ProbeSubject {
  CaffeineSubject() {
    super("Caffeine jcache", "com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider");
  }

  @Override
  CacheManager boundedManager(Path dir) {
    return plainManager(dir); // its configuration is the cache's (boundedCache)
  }

  @Override
  String boundedConfiguration() {
    return "CaffeineConfiguration.setMaximumSize(" + JCacheProbe.HEAP_ENTRIES + "), setExecutorFactory(same thread)"
        + " (it has no tier beyond the heap)";
  }

  @Override
  Cache<Integer, String> boundedCache(CacheManager manager) {
    Cache<Integer, String> cache = manager.getCache(JCacheProbe.BOUNDED, Integer.class, String.class);
    return cache != null ? cache : manager.createCache(JCacheProbe.BOUNDED, new CaffeineConfiguration<Integer, String>()
        .setTypes(Integer.class, String.class)
        .setMaximumSize(OptionalLong.of(JCacheProbe.HEAP_ENTRIES))
        .setExecutorFactory(() -> Runnable::run)); // evictions done when the put returns
  }
}
