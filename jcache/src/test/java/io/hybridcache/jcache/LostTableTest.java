package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.hybridcache.core.api.HybridCache;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Properties;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35 item 6: a lost (or foreign) namespace table never makes one cache read another's entries, nor its
 * own old ones: the directory id kept with the table and with the engine tells them apart.
 */
class LostTableTest {
  @TempDir Path dir;

  private static CacheManager open(Path directory) {
    Properties p = TestManagers.small(directory);
    p.setProperty("cache.a.warm", "true");
    p.setProperty("cache.b.warm", "true");
    return new HybridCachingProvider().getCacheManager(URI.create("test:" + directory.getFileName()),
        LostTableTest.class.getClassLoader(), p);
  }

  private static MutableConfiguration<String, String> strings() {
    return new MutableConfiguration<String, String>().setTypes(String.class, String.class);
  }

  /** Fills caches a then b (a gets the first namespace id, b the second) and closes cleanly. */
  private static void fill(Path directory) {
    try (CacheManager m = open(directory)) {
      Cache<String, String> a = m.createCache("a", strings());
      Cache<String, String> b = m.createCache("b", strings());
      a.put("k", "of a");
      b.put("k", "of b");
      m.unwrap(HybridCache.class).flush();
    }
  }

  /** Creates b first (it would get a's old namespace id from a new table) and reads both. */
  private static void assertNothingOld(Path directory, String why) {
    try (CacheManager m = open(directory)) {
      Cache<String, String> b = m.createCache("b", strings());
      Cache<String, String> a = m.createCache("a", strings());
      assertNull(b.get("k"), why + ": cache b read " + b.get("k"));
      assertNull(a.get("k"), why + ": cache a read " + a.get("k"));
      b.put("k", "new b");
    }
    try (CacheManager m = open(directory)) {
      assertEquals("new b", m.createCache("b", strings()).get("k"), why + ": the new table is used warm afterwards");
    }
  }

  @Test
  void aDeletedTableStartsEveryCacheEmpty() throws Exception {
    Path one = dir.resolve("one");
    fill(one);
    try (CacheManager m = open(one)) {
      assertEquals("of a", m.createCache("a", strings()).get("k"), "warm before the table is lost");
    }
    Files.delete(one.resolve(Namespaces.FILE));
    assertNothingOld(one, "the table was deleted");
  }

  @Test
  void aTableOfAnotherDirectoryIsNotTrusted() throws Exception {
    Path one = dir.resolve("one");
    Path other = dir.resolve("other");
    fill(one);
    try (CacheManager m = open(other)) { // another directory: b gets the first id there
      m.createCache("b", strings());
      m.createCache("a", strings());
    }
    Files.copy(other.resolve(Namespaces.FILE), one.resolve(Namespaces.FILE), StandardCopyOption.REPLACE_EXISTING);
    assertNothingOld(one, "the table came from another directory");
  }

  /** Neither the table nor the engine's mark: nothing bounds the ids the engine's keys hold, so it is emptied. */
  @Test
  void aDeletedTableAndMarkEmptyTheEngine() throws Exception {
    Path one = dir.resolve("one");
    fill(one);
    Files.delete(one.resolve(Namespaces.FILE));
    Files.delete(one.resolve("engine").resolve(io.hybridcache.core.api.CacheConfig.COMPANION_DIRECTORY)
        .resolve(EngineMark.FILE));
    assertNothingOld(one, "the table and the mark were deleted");
  }

  /** A table of the provider before directory ids (names only) beside an engine without a mark stays warm. */
  @Test
  void aTableOfAnEarlierVersionStaysWarm() throws Exception {
    Path one = dir.resolve("one");
    fill(one);
    Properties table = PropertiesFile.read(one.resolve(Namespaces.FILE));
    table.stringPropertyNames().stream().filter(k -> k.startsWith("\0")).forEach(table::remove);
    PropertiesFile.write(one.resolve(Namespaces.FILE), table, "as an earlier version wrote it");
    Files.delete(one.resolve("engine").resolve(io.hybridcache.core.api.CacheConfig.COMPANION_DIRECTORY)
        .resolve(EngineMark.FILE));
    for (int run = 0; run < 2; run++) {
      try (CacheManager m = open(one)) {
        assertEquals("of b", m.createCache("b", strings()).get("k"), "run " + run);
        assertEquals("of a", m.createCache("a", strings()).get("k"), "run " + run);
      }
    }
  }
}
