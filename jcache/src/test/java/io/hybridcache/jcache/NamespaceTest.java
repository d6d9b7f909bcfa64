package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Many caches, one engine: namespaces share the engine, and clear or destroy one without a flash scan. */
class NamespaceTest {
  @TempDir Path dir;

  private static MutableConfiguration<String, String> strings() {
    return new MutableConfiguration<String, String>().setTypes(String.class, String.class);
  }

  @Test
  void fiftyCachesShareOneEngineAndKeepTheirOwnKeys() {
    HybridCachingProvider provider = new HybridCachingProvider();
    try (CacheManager manager = TestManagers.open(provider, dir)) {
      List<Cache<String, String>> caches = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        Cache<String, String> c = manager.createCache("region-" + i, strings());
        c.put("k", "v" + i);
        caches.add(c);
      }
      HybridCache engine = manager.unwrap(HybridCache.class);
      for (int i = 0; i < 50; i++) {
        assertSame(engine, caches.get(i).unwrap(HybridCache.class));
        assertEquals("v" + i, caches.get(i).get("k"));
      }
    }
  }

  @Test
  void clearDropsOneCacheWithoutReadingFlash() {
    HybridCachingProvider provider = new HybridCachingProvider();
    try (CacheManager manager = TestManagers.open(provider, dir)) {
      Cache<String, String> a = manager.createCache("a", strings());
      Cache<String, String> b = manager.createCache("b", strings());
      String big = "x".repeat(1000);
      for (int i = 0; i < 1500; i++) { // 3 MB in all, within the flash budget: most of it on flash
        a.put("k" + i, big + i);
        b.put("k" + i, big + i);
      }
      HybridCache engine = manager.unwrap(HybridCache.class);
      engine.flush();
      CacheStats before = engine.stats();
      a.clear();
      CacheStats after = engine.stats();
      assertEquals(before.deviceReads(), after.deviceReads(), "clear read the flash tier");
      assertEquals(before.flashIndexDrops(), after.flashIndexDrops());
      for (int i = 0; i < 1500; i += 47) {
        assertNull(a.get("k" + i));
        assertEquals(big + i, b.get("k" + i));
      }
      a.put("k1", "new");
      assertEquals("new", a.get("k1"));

      manager.destroyCache("b");
      Cache<String, String> again = manager.createCache("b", strings());
      assertNull(again.get("k5"), "a destroyed cache's entries came back");
    }
  }

  @Test
  void aHotSetLargerThanDramIsServedFromFlash() {
    HybridCachingProvider provider = new HybridCachingProvider();
    try (CacheManager manager = TestManagers.open(provider, dir)) {
      Cache<Long, byte[]> c = manager.createCache("blobs",
          new MutableConfiguration<Long, byte[]>().setTypes(Long.class, byte[].class));
      for (long i = 0; i < 4000; i++) { // 4 MB over a 1 MiB DRAM tier
        c.put(i, value(i));
      }
      HybridCache engine = manager.unwrap(HybridCache.class);
      engine.flush();
      CacheStats before = engine.stats();
      for (long i = 0; i < 4000; i++) {
        assertEquals(java.util.Arrays.toString(value(i)), java.util.Arrays.toString(c.get(i)), "key " + i);
      }
      CacheStats after = engine.stats();
      assertEquals(before.misses(), after.misses(), "a key was lost");
      long flashHits = after.flashHits() - before.flashHits();
      org.junit.jupiter.api.Assertions.assertTrue(flashHits > 2000, "flash hits " + flashHits);
    }
  }

  @Test
  void evictionsAreCountedForTheCacheThatLostThemAndPutsDoNotReadFlash() {
    HybridCachingProvider provider = new HybridCachingProvider();
    try (CacheManager manager = TestManagers.open(provider, dir)) {
      MutableConfiguration<Long, byte[]> config = new MutableConfiguration<Long, byte[]>()
          .setTypes(Long.class, byte[].class).setStatisticsEnabled(true);
      Cache<Long, byte[]> churn = manager.createCache("churn", config);
      Cache<Long, byte[]> quiet = manager.createCache("quiet", config);
      quiet.put(-1L, value(1));
      HybridCache engine = manager.unwrap(HybridCache.class);
      for (long i = 0; i < 3000; i++) {
        churn.put(i, value(i));
      }
      engine.flush();
      CacheStats before = engine.stats();
      churn.put(5L, value(6)); // a flash-resident key, the default (eternal) expiry, no listener
      assertEquals(before.deviceReads(), engine.stats().deviceReads(), "a put read the entry it replaced");
      for (long i = 3000; i < 12_000; i++) { // 12 MB through an 8 MiB flash tier
        churn.put(i, value(i));
      }
      engine.flush();
      Statistics churned = churn.unwrap(HybridJCache.class).statistics();
      Statistics quieted = quiet.unwrap(HybridJCache.class).statistics();
      // the quiet cache's one entry is the oldest on flash: shared budgets may evict it, and then it counts there
      long quietEvictions = quiet.containsKey(-1L) ? 0 : 1;
      long deadline = System.currentTimeMillis() + 10_000; // the engine tells evictions on its removal executor
      while ((churned.getCacheEvictions() == 0 || quieted.getCacheEvictions() < quietEvictions)
          && System.currentTimeMillis() < deadline) {
        Thread.yield();
      }
      org.junit.jupiter.api.Assertions.assertTrue(churned.getCacheEvictions() > 0, "no eviction counted");
      assertEquals(quietEvictions, quieted.getCacheEvictions());
    }
  }

  @Test
  void theProviderLeavesFilesItDidNotCreate() throws Exception {
    java.nio.file.Files.createDirectories(dir);
    Path foreign = java.nio.file.Files.writeString(dir.resolve("notes.txt"), "mine");
    HybridCachingProvider provider = new HybridCachingProvider();
    try (CacheManager manager = TestManagers.open(provider, dir)) {
      Cache<String, String> c = manager.createCache("c", strings());
      c.put("k", "v");
      c.clear();
      manager.destroyCache("c");
    }
    assertEquals("mine", java.nio.file.Files.readString(foreign));
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(dir)) {
      assertEquals(java.util.Set.of("notes.txt", "engine", Namespaces.FILE, io.hybridcache.core.device.DirectoryLock.FILE),
          files.map(f -> f.getFileName().toString()).collect(java.util.stream.Collectors.toSet()));
    }
  }

  private static byte[] value(long i) {
    byte[] v = new byte[1000];
    java.util.Arrays.fill(v, (byte) i);
    v[0] = (byte) (i >> 8);
    return v;
  }
}
