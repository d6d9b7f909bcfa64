package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.HybridCache;
import java.net.URI;
import java.nio.file.Path;
import java.util.Properties;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The properties file a manager's URI names sets its budgets; given properties win over it. */
class SettingsTest {
  @TempDir Path dir;

  @Test
  void theFileTheUriNamesSetsTheBudgetsAndGivenPropertiesWin() {
    Properties given = new Properties();
    given.setProperty(ProviderProperties.DIRECTORY, dir.toString());
    given.setProperty(ProviderProperties.FLASH_BYTES, "8m");
    try (CacheManager manager = new HybridCachingProvider().getCacheManager(
        URI.create("classpath:jcache-settings-test.properties"), getClass().getClassLoader(), given)) {
      manager.createCache("c", new MutableConfiguration<String, String>());
      CacheConfig config = manager.unwrap(HybridCache.class).config();
      assertEquals(2 * CacheConfig.MIB, config.dramBytes());
      assertEquals(8 * CacheConfig.MIB, config.flashBytes());
      assertEquals(256 * CacheConfig.KIB, config.segmentBytes());
      assertEquals(dir.resolve("engine"), config.directory());
    }
  }
}
