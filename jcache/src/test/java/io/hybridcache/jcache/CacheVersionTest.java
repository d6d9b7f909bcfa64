package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35 item 2: a deploy does not resurrect old data. A different {@code cache-version} starts every cache
 * empty; the same one is warm; a cache created on demand (not declared) starts empty unless
 * {@code cache.NAME.warm=true}.
 */
class CacheVersionTest {
  @TempDir Path dir;

  private CacheManager open(String version, String... extra) {
    Properties p = TestManagers.small(dir);
    if (version != null) {
      p.setProperty(ProviderProperties.CACHE_VERSION, version);
    }
    for (int i = 0; i < extra.length; i += 2) {
      p.setProperty(extra[i], extra[i + 1]);
    }
    return new HybridCachingProvider().getCacheManager(URI.create("test:version"), getClass().getClassLoader(), p);
  }

  private static MutableConfiguration<Object, Object> plain() {
    return new MutableConfiguration<>(); // what Hibernate creates for a region, Spring for cache-names
  }

  /** A warm cache created on demand, and a declared one; both filled under {@code version}. */
  private void fill(String version) {
    try (CacheManager m = open(version, "cache.onDemand.warm", "true", "cache.declared.statistics", "true")) {
      m.createCache("onDemand", plain()).put("k", "v-" + version);
      m.getCache("declared").put("k", "v-" + version);
    }
  }

  @Test
  void aWarmRestartWithAnotherCacheVersionReadsNothingOld() {
    fill("1.0.0");
    try (CacheManager m = open("1.0.1", "cache.onDemand.warm", "true", "cache.declared.statistics", "true")) {
      assertNull(m.createCache("onDemand", plain()).get("k"), "a warm cache served an entry of the old version");
      assertNull(m.getCache("declared").get("k"), "a declared cache served an entry of the old version");
      m.getCache("declared").put("k", "new");
    }
    try (CacheManager m = open("1.0.1", "cache.declared.statistics", "true")) {
      assertEquals("new", m.getCache("declared").get("k"), "the new version's entry is warm");
    }
  }

  @Test
  void aWarmRestartWithTheSameCacheVersionIsWarm() {
    fill("1.0.0");
    try (CacheManager m = open("1.0.0", "cache.onDemand.warm", "true", "cache.declared.statistics", "true")) {
      assertEquals("v-1.0.0", m.createCache("onDemand", plain()).get("k"));
      assertEquals("v-1.0.0", m.getCache("declared").get("k"));
    }
  }

  @Test
  void settingACacheVersionForTheFirstTimeStartsEmpty() {
    fill(null);
    try (CacheManager m = open("1.0.0", "cache.declared.statistics", "true")) {
      assertNull(m.getCache("declared").get("k"), "entries of a run without cache-version served under one");
    }
  }

  /** Hibernate's entity and collection regions, Spring's cache-names: created on demand, empty at each start. */
  @Test
  void aCacheCreatedOnDemandStartsEmptyUnlessDeclaredWarm() {
    try (CacheManager m = open(null)) {
      m.createCache("demo.Customer", plain()).put(1L, "before");
    }
    try (CacheManager m = open(null)) {
      Cache<Object, Object> c = m.createCache("demo.Customer", plain());
      assertNull(c.get(1L), "a region created on demand came back warm without cache.demo.Customer.warm=true");
      c.put(1L, "kept");
    }
    try (CacheManager m = open(null, "cache.demo.Customer.warm", "true")) {
      assertEquals(null, m.getCache("demo.Customer"), "warm does not declare: code may still create the cache");
      m.createCache("demo.Customer", plain()).put(1L, "kept");
    }
    try (CacheManager m = open(null, "cache.demo.Customer.warm", "true")) {
      assertEquals("kept", m.createCache("demo.Customer", plain()).get(1L), "warm=true keeps the region's entries");
    }
    try (CacheManager m = open(null, "cache.demo.Customer.warm", "false", "cache.demo.Customer.statistics", "true")) {
      assertNull(m.getCache("demo.Customer").get(1L), "a declared cache set warm=false starts empty");
    }
  }

  @Test
  void warmAndClearOnStartThatDisagreeFailTheManager() {
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> open(null, "cache.c.warm", "true", "cache.c.clear-on-start", "true"));
    assertTrue(e.getMessage().contains("cache.c.warm") && e.getMessage().contains("cache.c.clear-on-start"),
        e.getMessage());
  }

  @Test
  void theCacheVersionCanComeFromTheEnvironmentAndIsLogged() {
    Properties given = new Properties();
    given.setProperty(ProviderProperties.DIRECTORY, dir.toString());
    ManagerSettings s = ManagerSettings.resolve(URI.create("test:env"), getClass().getClassLoader(), given,
        new Properties(), Map.of("HYBRIDCACHE_JCACHE_CACHE_VERSION", "2.3.4"));
    assertEquals("2.3.4", s.cacheVersion());
    assertTrue(s.describe().contains("cache-version 2.3.4"), s.describe());
  }
}
