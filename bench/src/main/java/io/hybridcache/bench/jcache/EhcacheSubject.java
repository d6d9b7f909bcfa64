package io.hybridcache.bench.jcache;

import java.nio.file.Path;
import java.util.Map;
import javax.cache.Cache;
import javax.cache.CacheManager;
import org.ehcache.config.CacheConfiguration;
import org.ehcache.config.builders.CacheConfigurationBuilder;
import org.ehcache.config.builders.ResourcePoolsBuilder;
import org.ehcache.config.units.EntryUnit;
import org.ehcache.config.units.MemoryUnit;
import org.ehcache.core.config.DefaultConfiguration;
import org.ehcache.impl.config.persistence.DefaultPersistenceConfiguration;
import org.ehcache.jsr107.EhcacheCachingProvider;

/**
 * Ehcache 3's provider: the bounded cache is declared in an Ehcache configuration given to the provider
 * (heap of {@link JCacheProbe#HEAP_ENTRIES} entries over a persistent 64 MB disk tier in the manager's
 * persistence directory).
 */
final class EhcacheSubject extends ProbeSubject {
  EhcacheSubject() {
    super("Ehcache 3", "org.ehcache.jsr107.EhcacheCachingProvider");
  }

  @Override
  CacheManager boundedManager(Path dir) {
    CacheConfiguration<Integer, String> bounded = CacheConfigurationBuilder.newCacheConfigurationBuilder(
        Integer.class, String.class, ResourcePoolsBuilder.newResourcePoolsBuilder()
            .heap(JCacheProbe.HEAP_ENTRIES, EntryUnit.ENTRIES)
            .disk(64, MemoryUnit.MB, true))
        .build();
    return ((EhcacheCachingProvider) provider()).getCacheManager(dir.toUri(), new DefaultConfiguration(Map.of(JCacheProbe.BOUNDED, bounded),
        provider().getDefaultClassLoader(), new DefaultPersistenceConfiguration(dir.toFile())));
  }

  @Override
  String boundedConfiguration() {
    return "an Ehcache configuration: heap(" + JCacheProbe.HEAP_ENTRIES
        + " entries).disk(64 MB, persistent), DefaultPersistenceConfiguration(dir)";
  }

  @Override
  Cache<Integer, String> boundedCache(CacheManager manager) {
    return manager.getCache(JCacheProbe.BOUNDED, Integer.class, String.class);
  }
}
