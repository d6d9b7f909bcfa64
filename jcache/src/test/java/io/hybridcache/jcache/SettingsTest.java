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

  /** The file sets what nothing more specific sets (this module's surefire system properties left out). */
  @Test
  void theFileTheUriNamesSetsTheBudgetsAndGivenPropertiesWin() {
    Properties given = new Properties();
    given.setProperty(ProviderProperties.DIRECTORY, dir.toString());
    given.setProperty(ProviderProperties.FLASH_BYTES, "8m");
    CacheConfig config = ManagerSettings.resolve(URI.create("classpath:jcache-settings-test.properties"),
        getClass().getClassLoader(), given, new Properties(), java.util.Map.of()).engineConfig();
    assertEquals(2 * CacheConfig.MIB, config.dramBytes());
    assertEquals(8 * CacheConfig.MIB, config.flashBytes());
    assertEquals(256 * CacheConfig.KIB, config.segmentBytes());
    assertEquals(dir.resolve("engine"), config.directory());
  }

  /**
   * Most specific first (issue 35 item 16): code's Properties, then system properties, then the
   * environment, then the file (jcache-settings-test.properties: dram-bytes 2m, flash-bytes 4m, segment-bytes 256k).
   */
  @Test
  void codeWinsOverSystemPropertiesOverTheEnvironmentOverTheFile() {
    URI uri = URI.create("classpath:jcache-settings-test.properties");
    Properties given = new Properties();
    given.setProperty(ProviderProperties.DRAM_BYTES, "5m");
    Properties system = new Properties();
    system.setProperty("hybridcache.jcache.dram-bytes", "4m");
    system.setProperty("hybridcache.jcache.flash-bytes", "16m");
    java.util.Map<String, String> env = java.util.Map.of("HYBRIDCACHE_JCACHE_DRAM_BYTES", "3m",
        "HYBRIDCACHE_JCACHE_FLASH_BYTES", "12m", "HYBRIDCACHE_JCACHE_SEGMENT_BYTES", "512k");
    CacheConfig c = ManagerSettings.resolve(uri, getClass().getClassLoader(), given, system, env).engineConfig();
    assertEquals(5 * CacheConfig.MIB, c.dramBytes(), "code's Properties");
    assertEquals(16 * CacheConfig.MIB, c.flashBytes(), "a system property over the environment");
    assertEquals(512 * CacheConfig.KIB, c.segmentBytes(), "the environment over the file");
    c = ManagerSettings.resolve(uri, getClass().getClassLoader(), null, new Properties(), env).engineConfig();
    assertEquals(3 * CacheConfig.MIB, c.dramBytes(), "the environment over the file");
  }

  @Test
  void perCacheSettingsGiveAPlainConfigurationExpiryAndStatistics() {
    Properties given = TestManagers.small(dir);
    given.setProperty("cache.demo.Fast.expire-after-write", "50ms");
    given.setProperty("cache.demo.Fast.statistics", "true");
    try (CacheManager manager = new HybridCachingProvider().getCacheManager(URI.create("test:settings"),
        getClass().getClassLoader(), given)) {
      javax.cache.Cache<String, String> fast = manager.getCache("demo.Fast"); // declared by its settings
      javax.cache.Cache<String, String> plain = manager.createCache("demo.Plain", new MutableConfiguration<>());
      MutableConfiguration<?, ?> config = fast.getConfiguration(MutableConfiguration.class);
      assertEquals(true, config.isStatisticsEnabled());
      assertEquals(false, plain.getConfiguration(MutableConfiguration.class).isStatisticsEnabled());
      fast.put("k", "v");
      plain.put("k", "v");
      long expiresBy = System.currentTimeMillis() + 50;
      while (System.currentTimeMillis() <= expiresBy) { // the clock must pass the expiry
        Thread.onSpinWait();
      }
      org.junit.jupiter.api.Assertions.assertNull(fast.get("k"), "expire-after-write did not apply");
      assertEquals("v", plain.get("k"));
      assertEquals(1, fast.unwrap(HybridJCache.class).statistics().getCachePuts());
    }
  }

  @Test
  void aBadCacheSettingIsNamedWithItsValue() {
    for (String[] bad : new String[][] {{"cache.c.expire-after-write", "soon"}, {"cache.c.colour", "red"},
        {"cache.c.statistics", "yes"}, {"cache.c.clear-on-start", "always"},
        {"cache.c.store-by-reference", "1"}}) {
      Properties given = TestManagers.small(dir);
      given.setProperty(bad[0], bad[1]);
      IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
          () -> new HybridCachingProvider().getCacheManager(URI.create("test:bad"), getClass().getClassLoader(), given));
      org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains(bad[0]) && e.getMessage().contains(bad[1]),
          e.getMessage());
    }
  }

  @Test
  void theSmallObjectEngineIsOffByDefaultAndTakesItsShareAndBound() {
    Properties given = TestManagers.small(dir);
    java.net.URI uri = URI.create("test:small");
    assertEquals(0, ManagerSettings.resolve(uri, getClass().getClassLoader(), given).engineConfig().smallObjectShare());
    given.setProperty(ProviderProperties.SMALL_OBJECT_SHARE, "0.25");
    given.setProperty(ProviderProperties.SMALL_OBJECT_MAX_BYTES, "512");
    io.hybridcache.core.api.CacheConfig c = ManagerSettings.resolve(uri, getClass().getClassLoader(), given)
        .engineConfig();
    assertEquals(0.25, c.smallObjectShare());
    assertEquals(512, c.smallObjectMaxBytes());
    assertEquals(io.hybridcache.core.api.CacheConfig.DEFAULT_SMALL_OBJECT_LOG_SHARE, c.smallObjectLogShare());
    given.setProperty(ProviderProperties.SMALL_OBJECT_LOG_SHARE, "0.4");
    assertEquals(0.4, ManagerSettings.resolve(uri, getClass().getClassLoader(), given).engineConfig()
        .smallObjectLogShare());
    for (String bad : new String[] {"much", "0.6"}) {
      given.setProperty(ProviderProperties.SMALL_OBJECT_LOG_SHARE, bad);
      IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
          () -> ManagerSettings.resolve(uri, getClass().getClassLoader(), given).engineConfig());
      org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains(bad), e.getMessage());
    }
    given.remove(ProviderProperties.SMALL_OBJECT_LOG_SHARE);
    for (String bad : new String[] {"lots", "0.95"}) {
      given.setProperty(ProviderProperties.SMALL_OBJECT_SHARE, bad);
      IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
          () -> ManagerSettings.resolve(uri, getClass().getClassLoader(), given));
      org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains(bad), e.getMessage());
    }
  }

  /**
   * A size below its minimum is named as the file spells it, with its unit (issue 35 item 17): not the
   * engine's field name and a byte count.
   */
  @Test
  void aSizeBelowItsMinimumIsNamedWithItsUnit() {
    String[][] cases = {
        {ProviderProperties.DRAM_BYTES, "256k", "dram-bytes must be at least 1m, was 256k"},
        {ProviderProperties.SEGMENT_BYTES, "32k", "segment-bytes must be a multiple of 4k from 64k to 128m, was 32k"},
        {ProviderProperties.FLASH_BYTES, "256k",
            "flash-bytes must be at least 6 segments of segment-bytes (6 x 64k = 384k), was 256k"},
        {ProviderProperties.WRITE_BUFFER_BYTES, "63k",
            "write-buffer-bytes must be a multiple of 4k from 4k to segment-bytes - 8k (504k), was 63k"}};
    for (String[] c : cases) {
      Properties given = TestManagers.small(dir);
      given.setProperty(c[0], c[1]);
      if (c[0].equals(ProviderProperties.FLASH_BYTES)) {
        given.setProperty(ProviderProperties.SEGMENT_BYTES, "64k");
        given.setProperty(ProviderProperties.WRITE_BUFFER_BYTES, "16k");
      }
      IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
          () -> new HybridCachingProvider().getCacheManager(URI.create("test:min"), getClass().getClassLoader(), given));
      assertEquals(c[2], e.getMessage());
    }
  }
}
