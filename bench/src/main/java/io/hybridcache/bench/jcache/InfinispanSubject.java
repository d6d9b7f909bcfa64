package io.hybridcache.bench.jcache;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.function.Function;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.infinispan.configuration.cache.Configuration;
import org.infinispan.configuration.cache.ConfigurationBuilder;
import org.infinispan.eviction.EvictionStrategy;
import org.infinispan.jcache.embedded.JCacheManager;

/**
 * Infinispan's embedded provider: the manager's URI names an Infinispan XML file (its global state in the
 * directory) and its properties give the bounded cache's Infinispan configuration
 * ({@link JCacheManager#CACHE_CONFIGURATION_FUNCTION}): at most {@link JCacheProbe#HEAP_ENTRIES} entries in
 * memory over a soft-index file store, not purged at start, preloaded. The cache is created read-through: its
 * JCache reads the store only then.
 */
final class InfinispanSubject extends ProbeSubject {
  InfinispanSubject() {
    super("Infinispan jcache", "org.infinispan.jcache.embedded.JCachingProvider");
  }

  @Override
  CacheManager boundedManager(Path dir) {
    Path xml = dir.resolve("infinispan.xml");
    String text = """
        <infinispan xmlns="urn:infinispan:config:15.2">
          <cache-container>
            <global-state><persistent-location path="%s"/></global-state>
          </cache-container>
        </infinispan>
        """.formatted(dir.toAbsolutePath());
    try {
      Files.createDirectories(dir);
      Files.writeString(xml, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Function<String, Configuration> bounded = name -> {
      ConfigurationBuilder c = new ConfigurationBuilder();
      c.memory().maxCount(JCacheProbe.HEAP_ENTRIES).whenFull(EvictionStrategy.REMOVE);
      c.persistence().passivation(false)
          .addSoftIndexFileStore()
          .dataLocation(dir.resolve("data").toString())
          .indexLocation(dir.resolve("index").toString())
          .purgeOnStartup(false)
          .preload(true);
      return c.build();
    };
    Properties p = new Properties();
    p.put(JCacheManager.CACHE_CONFIGURATION_FUNCTION, bounded);
    return provider().getCacheManager(xml.toUri(), provider().getDefaultClassLoader(), p);
  }

  @Override
  String boundedConfiguration() {
    return "an Infinispan configuration (CACHE_CONFIGURATION_FUNCTION): memory maxCount=" + JCacheProbe.HEAP_ENTRIES
        + ", soft-index file store purgeOnStartup=false preload=true; created with setReadThrough(true)";
  }

  @Override
  Cache<Integer, String> boundedCache(CacheManager manager) {
    return manager.createCache(JCacheProbe.BOUNDED,
        new MutableConfiguration<Integer, String>().setTypes(Integer.class, String.class).setReadThrough(true));
  }
}
