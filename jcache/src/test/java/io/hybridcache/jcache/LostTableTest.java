package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.hybridcache.core.api.HybridCache;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.charset.StandardCharsets;
import java.util.List;
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
    try (var out = Files.newOutputStream(one.resolve(Namespaces.FILE))) { // no checksum: as it wrote it
      table.store(out, "as an earlier version wrote it");
    }
    Files.delete(one.resolve("engine").resolve(io.hybridcache.core.api.CacheConfig.COMPANION_DIRECTORY)
        .resolve(EngineMark.FILE));
    for (int run = 0; run < 2; run++) {
      try (CacheManager m = open(one)) {
        assertEquals("of b", m.createCache("b", strings()).get("k"), "run " + run);
        assertEquals("of a", m.createCache("a", strings()).get("k"), "run " + run);
      }
    }
  }

  /**
   * A table torn by a power loss (a prefix of the file: its last line cut short, no end line) beside an engine that
   * is warm (its close was clean) is not trusted: cache a's epoch 10 cut to 1 would serve what a held at epoch 1.
   */
  @Test
  void aTornTableNeverServesAnOlderEpoch() throws Exception {
    Path one = dir.resolve("one");
    Namespace a;
    try (CacheManager m = open(one)) {
      Cache<String, String> cache = m.createCache("a", strings());
      cache.put("k", "v0");
      for (int epoch = 1; epoch <= 10; epoch++) {
        cache.clear();
        cache.put("k", "v" + epoch);
      }
      m.unwrap(HybridCache.class).flush();
      a = ((HybridCacheManager) m).namespaces().find("a");
      assertEquals(10, a.epoch());
    }
    Path file = one.resolve(Namespaces.FILE);
    StringBuilder torn = new StringBuilder();
    for (String line : Files.readAllLines(file, StandardCharsets.ISO_8859_1)) {
      if (!line.startsWith("a=") && !line.startsWith(PropertiesFile.END)) {
        torn.append(line).append('\n');
      }
    }
    torn.append("a=").append(a.id()).append(".1"); // "a=ID.10" cut short
    Files.writeString(file, torn, StandardCharsets.ISO_8859_1);
    try (CacheManager m = open(one)) {
      assertNull(m.createCache("a", strings()).get("k"), "a torn table's older epoch of cache a was served");
    }
  }

  /**
   * After a power loss (an unclean stop, then an open in another boot: the engine starts cold) a table that is torn,
   * empty or garbled does not fail the manager: every cache opens empty and serves.
   */
  @Test
  void aDamagedTableInAnotherBootOpensColdAndServes() throws Exception {
    Path one = dir.resolve("one");
    List<String> damages = List.of("torn", "empty", "zeros");
    try (CacheManager m = open(one)) {
      m.createCache("a", strings()).put("k", "of a");
      m.createCache("b", strings()).put("k", "of b");
      m.unwrap(HybridCache.class).flush();
      for (String damage : damages) {
        copyOpen(one, dir.resolve(damage)); // as the device held it when the power went
      }
    }
    for (String damage : damages) {
      Path copy = dir.resolve(damage);
      Files.writeString(copy.resolve("engine").resolve("boot.id"), "00000000-0000-0000-0000-000000000000");
      Path file = copy.resolve(Namespaces.FILE);
      byte[] bytes = Files.readAllBytes(file);
      switch (damage) {
        case "torn" -> {
          String text = new String(bytes, StandardCharsets.ISO_8859_1);
          int cut = text.indexOf("a=") + 2; // inside cache a's line
          Files.write(file, java.util.Arrays.copyOf(bytes, cut));
        }
        case "empty" -> Files.write(file, new byte[0]);
        default -> Files.write(file, new byte[4096]);
      }
      try (CacheManager m = open(copy)) {
        Cache<String, String> a = m.createCache("a", strings());
        Cache<String, String> b = m.createCache("b", strings());
        assertNull(a.get("k"), damage + ": cache a");
        assertNull(b.get("k"), damage + ": cache b");
        a.put("k", "new a");
        assertEquals("new a", a.get("k"), damage + ": cache a serves");
      }
      try (CacheManager m = open(copy)) {
        assertEquals("new a", m.createCache("a", strings()).get("k"), damage + ": the new table is used warm afterwards");
      }
    }
  }

  /** Copies manager directory {@code from}, open, to {@code to}: what an unclean stop leaves (its lock left out). */
  private static void copyOpen(Path from, Path to) throws Exception {
    try (var files = Files.walk(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else if (!f.getFileName().toString().equals("LOCK")) {
          Files.copy(f, target);
        }
      }
    }
  }
}
