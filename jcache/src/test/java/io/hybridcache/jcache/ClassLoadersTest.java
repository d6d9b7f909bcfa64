package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.hybridcache.core.api.HybridCache;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two managers of one URI with different class loaders share the directory's engine, but their caches are
 * distinct (JSR-107: a manager per URI and class loader); the first manager's caches are the durable ones.
 */
class ClassLoadersTest {
  @TempDir Path dir;

  private static final MutableConfiguration<String, String> STRINGS =
      new MutableConfiguration<String, String>().setTypes(String.class, String.class);

  @Test
  void sameNamedCachesOfTwoClassLoadersAreDistinctAndTheFirstManagersAreDurable() throws Exception {
    HybridCachingProvider provider = new HybridCachingProvider();
    URI uri = URI.create("test:loaders");
    ClassLoader first = getClass().getClassLoader();
    try (URLClassLoader second = new URLClassLoader(new URL[0], first)) {
      CacheManager a = provider.getCacheManager(uri, first, TestManagers.small(dir, "c"));
      CacheManager b = provider.getCacheManager(uri, second, TestManagers.small(dir, "c"));
      assertNotSame(a, b);
      Cache<String, String> ca = a.createCache("c", STRINGS);
      Cache<String, String> cb = b.createCache("c", STRINGS);
      assertSame(a.unwrap(HybridCache.class), b.unwrap(HybridCache.class), "one directory, one engine");
      ca.put("k", "of a");
      assertNull(cb.get("k"), "b's cache saw a's entry");
      cb.put("k", "of b");
      assertEquals("of a", ca.get("k"));
      cb.clear();
      assertEquals("of a", ca.get("k"), "clearing b's cache cleared a's");
      cb.put("left", "by b");
      b.close();
      CacheManager b2 = provider.getCacheManager(uri, second, TestManagers.small(dir, "c"));
      Cache<String, String> cb2 = b2.createCache("c", STRINGS);
      assertNull(cb2.get("left"), "a second manager's cache must start empty, not find an earlier one's entries");
      b2.destroyCache("c");
      assertEquals("of a", ca.get("k"), "destroying b's cache emptied a's");
      b2.close();
      a.close();
      // the directory alone, reopened: the first manager's cache is warm, the other's entries are gone
      try (CacheManager again = provider.getCacheManager(uri, second, TestManagers.small(dir, "c"))) {
        Cache<String, String> c = again.createCache("c", STRINGS);
        assertEquals("of a", c.get("k"));
        assertNull(c.get("left"));
      }
    }
  }
}
