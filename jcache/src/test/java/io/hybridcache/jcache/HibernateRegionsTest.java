package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.ChildJvms;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35 item 7: Hibernate's update-timestamps and query-results regions are known by their names' ends,
 * so a {@code hibernate.cache.region_prefix} (Hibernate qualifies a region as {@code prefix.name}) and the
 * legacy names keep them safe: the timestamps region on the heap and never evicted, the query-results region
 * empty at each start; a timestamps region made store-by-value is warned about.
 */
class HibernateRegionsTest {
  @TempDir Path dir;

  static final List<String> TIMESTAMPS = List.of("default-update-timestamps-region",
      "myapp.default-update-timestamps-region", "org.hibernate.cache.spi.UpdateTimestampsCache",
      "myapp.org.hibernate.cache.spi.TimestampsRegion");
  static final List<String> QUERY_RESULTS = List.of("default-query-results-region",
      "myapp.default-query-results-region", "org.hibernate.cache.internal.StandardQueryCache",
      "myapp.org.hibernate.cache.spi.QueryResultsRegion");

  private static CacheManager open(Path directory, Properties extra) {
    Properties p = TestManagers.small(directory);
    p.putAll(extra);
    return new HybridCachingProvider().getCacheManager(URI.create("test:regions"),
        HibernateRegionsTest.class.getClassLoader(), p);
  }

  /** What Hibernate's JCacheRegionFactory creates for a missing region. */
  private static MutableConfiguration<Object, Object> plain() {
    return new MutableConfiguration<>();
  }

  @Test
  void theTimestampsRegionIsFoundByItsNamesEndAndKeptOnTheHeapNeverEvicted() {
    try (CacheManager m = open(dir, new Properties())) {
      for (String name : TIMESTAMPS) {
        Cache<Object, Object> c = m.createCache(name, plain());
        assertFalse(c.getConfiguration(CompleteConfiguration.class).isStoreByValue(),
            name + " is not store-by-reference");
      }
      Cache<Object, Object> ts = m.getCache("myapp.default-update-timestamps-region");
      int n = CacheSettings.DEFAULT_MAX_ENTRIES + 100; // over a store-by-reference cache's default bound
      for (int i = 0; i < n; i++) {
        ts.put("table" + i, (long) i);
      }
      int kept = 0;
      for (Cache.Entry<Object, Object> e : ts) {
        kept++;
      }
      assertEquals(n, kept, "the timestamps region evicted an entry");
      assertEquals(7L, ts.get("table7"));
      Cache<Object, Object> other = m.createCache("myapp.default-update-timestamps-region-copy", plain());
      assertTrue(other.getConfiguration(CompleteConfiguration.class).isStoreByValue(), "a name that only contains it");
    }
  }

  @Test
  void theQueryResultsRegionStartsEmptyAtEachStartEvenWhenDeclared() {
    Properties declared = new Properties();
    for (String name : QUERY_RESULTS) {
      declared.setProperty("cache." + name + ".statistics", "true"); // declared: warm, were it not the query region
    }
    declared.setProperty("cache.myapp.default-query-results-region-copy.statistics", "true");
    try (CacheManager m = open(dir, declared)) {
      for (String name : QUERY_RESULTS) {
        m.getCache(name).put("q", "result");
      }
      m.getCache("myapp.default-query-results-region-copy").put("q", "result");
    }
    try (CacheManager m = open(dir, declared)) {
      for (String name : QUERY_RESULTS) {
        assertNull(m.getCache(name).get("q"), name + " served a query result of the last run");
      }
      assertEquals("result", m.getCache("myapp.default-query-results-region-copy").get("q"),
          "a declared cache whose name only contains the query region's is warm");
    }
  }

  /** Child JVM: creates a timestamps region the file makes store-by-value. */
  public static void main(String[] args) {
    Properties p = new Properties();
    p.setProperty("cache.myapp.default-update-timestamps-region.store-by-reference", "false");
    try (CacheManager m = open(Path.of(args[0]), p)) {
      System.out.println("BY VALUE " + m.getCache("myapp.default-update-timestamps-region")
          .getConfiguration(CompleteConfiguration.class).isStoreByValue());
    }
  }

  @Test
  void aTimestampsRegionMadeStoreByValueIsWarned() throws Exception {
    Path err = dir.resolve("child.err");
    Process child = ChildJvms.start(HibernateRegionsTest.class, "128m",
        List.of("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"), err.toFile(), dir.resolve("child").toString());
    String out = new String(child.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertEquals(0, child.waitFor(), "child failed: " + Files.readString(err));
    String log = Files.readString(err);
    assertTrue(out.contains("BY VALUE true"), out);
    assertTrue(log.contains("WARN") && log.contains("myapp.default-update-timestamps-region")
        && log.contains("store-by-value"), "no WARN for a store-by-value timestamps region: " + log);
  }
}
