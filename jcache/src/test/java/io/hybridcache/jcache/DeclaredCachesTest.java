package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.expiry.Duration;
import javax.cache.expiry.ModifiedExpiryPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Caches declared in the properties file a manager's URI names exist as soon as the manager does. */
class DeclaredCachesTest {
  @TempDir Path dir;

  private URI file(Properties p) throws IOException {
    Path f = dir.resolve("hybridcache.properties");
    try (OutputStream out = Files.newOutputStream(f)) {
      p.store(out, null);
    }
    return f.toUri();
  }

  private Properties declaring() {
    Properties p = TestManagers.small(dir.resolve("cache"));
    p.setProperty("cache.users.key-type", "java.lang.String");
    p.setProperty("cache.users.value-type", "java.lang.Long");
    p.setProperty("cache.users.value-codec", CountingLongCodec.class.getName());
    p.setProperty("cache.users.expire-after-write", "10m");
    p.setProperty("cache.users.statistics", "true");
    p.setProperty("cache.demo.Region.expire-after-access", "1h");
    return p;
  }

  @Test
  void theFileDeclaresCachesWithTheirTypesCodecsExpiryAndStatistics() throws IOException {
    URI uri = file(declaring());
    try (CacheManager manager = new HybridCachingProvider().getCacheManager(uri, getClass().getClassLoader())) {
      assertEquals(java.util.Set.of("demo.Region", "users"), new java.util.HashSet<>(toList(manager.getCacheNames())));
      Cache<String, Long> users = manager.getCache("users", String.class, Long.class);
      assertThrows(ClassCastException.class, () -> manager.getCache("users", String.class, String.class));
      @SuppressWarnings("unchecked")
      CompleteConfiguration<String, Long> config = users.getConfiguration(CompleteConfiguration.class);
      assertTrue(config.isStatisticsEnabled());
      assertEquals(new Duration(java.util.concurrent.TimeUnit.MINUTES, 10),
          config.getExpiryPolicyFactory().create().getExpiryForCreation());
      assertTrue(config.getExpiryPolicyFactory().create() instanceof ModifiedExpiryPolicy);
      Cache<Object, Object> region = manager.getCache("demo.Region");
      assertEquals(Object.class, region.getConfiguration(CompleteConfiguration.class).getKeyType());
      long encoded = CountingLongCodec.ENCODED.get();
      users.put("ada", 42L);
      assertEquals(encoded + 1, CountingLongCodec.ENCODED.get(), "the declared value codec was not used");
      region.put("k", List.of("v"));
      CacheException e = assertThrows(CacheException.class,
          () -> manager.createCache("users", new MutableConfiguration<String, Long>()));
      assertTrue(e.getMessage().contains("users"), e.getMessage());
    }
    try (CacheManager manager = new HybridCachingProvider().getCacheManager(uri, getClass().getClassLoader())) {
      assertEquals(42L, manager.getCache("users", String.class, Long.class).get("ada"), "not warm after a restart");
      assertEquals(List.of("v"), manager.getCache("demo.Region").get("k"));
    }
  }

  /**
   * Spring Boot creates each {@code spring.cache.cache-names} cache right after it gets the manager, and
   * on a failure drops the manager unclosed: a cache declared in the file and listed there too fails the
   * start with the remedy named, and the manager closes itself, its engine cleanly (the next start is warm,
   * not a crash recovery) (issue 35 item 12).
   */
  @Test
  void aDeclaredCacheCreatedAgainAsSpringsCacheNamesDoNamesTheRemedyAndLeavesTheSharedManagerOpen() throws IOException {
    URI uri = file(declaring());
    CacheManager manager = new HybridCachingProvider().getCacheManager(uri, getClass().getClassLoader(),
        new Properties());
    try (manager) {
      Cache<String, Long> users = manager.getCache("users", String.class, Long.class);
      users.put("ada", 42L);
      CacheException e = assertThrows(CacheException.class,
          () -> manager.createCache("users", new MutableConfiguration<>())); // what Spring Boot does
      assertTrue(e.getMessage().contains("users") && e.getMessage().contains("spring.cache.cache-names")
          && e.getMessage().contains("never both"), e.getMessage());
      // Hibernate shares the manager, and "try createCache, catch CacheException, getCache" is a common idiom
      assertFalse(manager.isClosed(), "a failed createCache closed the shared manager");
      assertFalse(users.isClosed(), "a failed createCache closed the declared cache");
      assertEquals(42L, manager.getCache("users", String.class, Long.class).get("ada"));
      users.put("grace", 7L);
      assertEquals(7L, users.get("grace"));
    }
  }

  @Test
  void aDeclaredCacheOfAnUnknownTypeFailsTheManagerNamingThePropertyAndTheValue() throws IOException {
    Properties p = declaring();
    p.setProperty("cache.users.value-type", "com.example.Missing");
    URI uri = file(p);
    HybridCachingProvider provider = new HybridCachingProvider();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> provider.getCacheManager(uri, getClass().getClassLoader()));
    assertTrue(e.getMessage().contains("cache.users.value-type") && e.getMessage().contains("com.example.Missing"),
        e.getMessage());
    p.setProperty("cache.users.value-type", "java.lang.Long");
    CacheManager fixed = provider.getCacheManager(file(p), getClass().getClassLoader());
    try (fixed) {
      assertEquals(2, ((java.util.Collection<?>) toList(fixed.getCacheNames())).size());
      assertNull(fixed.getCache("users", String.class, Long.class).get("nobody"));
    }
  }

  @Test
  void aStoreByReferenceCacheKeepsInstancesOnTheHeapAndAClearOnStartCacheStartsEmpty() throws IOException {
    Properties p = TestManagers.small(dir.resolve("cache"));
    p.setProperty("cache.timestamps.store-by-reference", "true");
    p.setProperty("cache.queries.clear-on-start", "true");
    p.setProperty("cache.entities.statistics", "false");
    URI uri = file(p);
    List<String> value = new ArrayList<>(List.of("v"));
    try (CacheManager manager = new HybridCachingProvider().getCacheManager(uri, getClass().getClassLoader())) {
      Cache<Object, Object> timestamps = manager.getCache("timestamps");
      assertTrue(!timestamps.getConfiguration(CompleteConfiguration.class).isStoreByValue());
      timestamps.put("t", value);
      org.junit.jupiter.api.Assertions.assertSame(value, timestamps.get("t"), "store-by-reference copied");
      manager.getCache("queries").put("q", "result");
      manager.getCache("entities").put("e", "row");
      assertEquals("result", manager.getCache("queries").get("q"));
    }
    try (CacheManager manager = new HybridCachingProvider().getCacheManager(uri, getClass().getClassLoader())) {
      assertNull(manager.getCache("timestamps").get("t"), "a heap cache outlived its manager");
      assertNull(manager.getCache("queries").get("q"), "clear-on-start kept an entry of the last run");
      assertEquals("row", manager.getCache("entities").get("e"), "the plain cache was not warm");
    }
  }

  /** A {@code Long} codec that counts its encodes (named by class in {@code cache.users.value-codec}). */
  public static final class CountingLongCodec implements io.hybridcache.core.api.Codec<Long> {
    static final java.util.concurrent.atomic.AtomicLong ENCODED = new java.util.concurrent.atomic.AtomicLong();

    @Override
    public byte[] encode(Long value) {
      ENCODED.incrementAndGet();
      return java.nio.ByteBuffer.allocate(Long.BYTES).putLong(value).array();
    }

    @Override
    public Long decode(byte[] bytes) {
      return java.nio.ByteBuffer.wrap(bytes).getLong();
    }
  }

  private static List<String> toList(Iterable<String> names) {
    List<String> list = new ArrayList<>();
    names.forEach(list::add);
    return list;
  }
}
