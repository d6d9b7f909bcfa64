package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.device.FileModes;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Properties;
import java.util.jar.JarOutputStream;
import java.util.zip.ZipEntry;
import java.util.stream.Stream;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A manager's directory: a directory of another user or one others can write is refused (issue 35 item
 * 4); without {@code directory} a manager's directory is private, not named from its URI, and gone at
 * close, so a Spring Boot jar's path (in the URI of its classpath file) does not matter (item 13).
 */
class ManagerDirectoryTest {
  @TempDir Path dir;

  private static MutableConfiguration<String, String> strings() {
    return new MutableConfiguration<String, String>().setTypes(String.class, String.class);
  }

  private CacheException openRefused(Path managerDir) {
    Properties given = TestManagers.small(managerDir);
    return assertThrows(CacheException.class, () -> {
      try (CacheManager m = new HybridCachingProvider().getCacheManager(URI.create("test:refused"),
          getClass().getClassLoader(), given)) {
        m.createCache("c", strings());
      }
    });
  }

  @Test
  void aManagerDirectoryOthersCanWriteIsRefusedNamingItsMode() throws IOException {
    assumeTrue(FileModes.supported(dir));
    Path managerDir = Files.createDirectory(dir.resolve("m"));
    Files.setPosixFilePermissions(managerDir, PosixFilePermissions.fromString("rwxrwxrwx"));
    CacheException e = openRefused(managerDir);
    assertTrue(e.getMessage().contains(managerDir.toString()) && e.getMessage().contains("rwxrwxrwx"),
        e.getMessage());
    assertEquals(List.of(), entries(managerDir), "the refused directory was written");
  }

  @Test
  void anExistingDirectoryKeepsItsGroupReadOnlyCreatedOnesAre0700() throws IOException {
    assumeTrue(FileModes.supported(dir));
    Path managerDir = Files.createDirectory(dir.resolve("m"));
    Files.setPosixFilePermissions(managerDir, PosixFilePermissions.fromString("rwxr-x---")); // a backup agent reads it
    try (CacheManager m = new HybridCachingProvider().getCacheManager(URI.create("test:group-read"),
        getClass().getClassLoader(), TestManagers.small(managerDir))) {
      m.createCache("c", strings()).put("k", "v");
      assertEquals("rwxr-x---", PosixFilePermissions.toString(Files.getPosixFilePermissions(managerDir)),
          "the manager chmodded a directory it did not make");
    }
    Path made = dir.resolve("made");
    try (CacheManager m = new HybridCachingProvider().getCacheManager(URI.create("test:made"),
        getClass().getClassLoader(), TestManagers.small(made))) {
      m.createCache("c", strings()).put("k", "v");
      assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(made)));
    }
  }

  @Test
  void aBlankDirectoryIsUnsetNotTheWorkingDirectory() {
    Properties given = new Properties();
    given.setProperty(ProviderProperties.DIRECTORY, " ");
    ManagerSettings s = ManagerSettings.resolve(URI.create("test:blank"), getClass().getClassLoader(), given,
        new Properties(), java.util.Map.of());
    assertFalse(s.persistent(), "a blank directory was taken as a persistent one: " + s.directory());
    assertEquals(Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath(), s.directory().getParent());
    ManagerSettings fromEnvironment = ManagerSettings.resolve(URI.create("test:blank"), getClass().getClassLoader(),
        new Properties(), new Properties(), java.util.Map.of("HYBRIDCACHE_JCACHE_DIRECTORY", ""));
    assertFalse(fromEnvironment.persistent(), "an empty HYBRIDCACHE_JCACHE_DIRECTORY was taken as "
        + fromEnvironment.directory());
  }

  @Test
  void aSecondUriOnADirectoryAnotherUriUsesFailsNamingBoth() {
    Path shared = dir.resolve("shared"); // what -Dhybridcache.jcache.directory does to every manager of the JVM
    HybridCachingProvider provider = new HybridCachingProvider();
    try (CacheManager first = provider.getCacheManager(URI.create("test:first"), getClass().getClassLoader(),
        TestManagers.small(shared))) {
      first.createCache("c", strings()).put("k", "first's");
      CacheException e = assertThrows(CacheException.class, () -> {
        try (CacheManager second = provider.getCacheManager(URI.create("test:second"), getClass().getClassLoader(),
            TestManagers.small(shared))) {
          second.createCache("c", strings());
        }
      });
      assertTrue(e.getMessage().contains("test:first") && e.getMessage().contains("test:second")
          && e.getMessage().contains(shared.toString()) && e.getMessage().contains("every manager of the JVM"),
          e.getMessage());
      assertEquals("first's", first.getCache("c", String.class, String.class).get("k"));
    }
  }

  @Test
  void anEngineDirectoryOthersCanWriteIsRefusedToo() throws IOException {
    assumeTrue(FileModes.supported(dir));
    Path managerDir = Files.createDirectory(dir.resolve("m"));
    Files.setPosixFilePermissions(managerDir, PosixFilePermissions.fromString("rwx------"));
    Path engine = Files.createDirectory(managerDir.resolve("engine"));
    Files.setPosixFilePermissions(engine, PosixFilePermissions.fromString("rwxrwxrwx"));
    CacheException e = openRefused(managerDir);
    assertTrue(e.getMessage().contains(engine.toString()) && e.getMessage().contains("rwxrwxrwx"), e.getMessage());
  }

  @Test
  void aManagerDirectoryOfAnotherUserIsRefusedNamingItsOwner() throws IOException {
    assumeTrue(FileModes.supported(dir));
    Path managerDir = Files.createDirectory(dir.resolve("m"));
    Files.setPosixFilePermissions(managerDir, PosixFilePermissions.fromString("rwx------"));
    try {
      Files.setOwner(managerDir, dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody"));
    } catch (IOException | UnsupportedOperationException e) {
      assumeTrue(false, "cannot give a directory to another user here (not root): " + e);
    }
    CacheException e = openRefused(managerDir);
    assertTrue(e.getMessage().contains(managerDir.toString()) && e.getMessage().contains("nobody"), e.getMessage());
  }

  /** A Spring Boot jar's classpath file, as {@code spring.cache.jcache.config=classpath:...} hands it over. */
  private URI inJar(String jarName) throws IOException {
    Path jar = dir.resolve(jarName);
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      out.putNextEntry(new ZipEntry("BOOT-INF/classes/hybridcache.properties"));
      Properties p = new Properties();
      p.setProperty(ProviderProperties.DRAM_BYTES, "1m");
      p.setProperty(ProviderProperties.FLASH_BYTES, "8m");
      p.store(out, null);
      out.closeEntry();
    }
    return URI.create("jar:" + jar.toUri() + "!/BOOT-INF/classes/hybridcache.properties");
  }

  @Test
  void withoutADirectoryTheJarsPathDoesNotMatterAndNothingIsLeftBehind() throws IOException {
    Path root = Files.createDirectory(dir.resolve("root"));
    Properties given = new Properties();
    given.setProperty(ProviderProperties.ROOT, root.toString());
    for (String jar : List.of("app-1.0.jar", "app-1.1.jar")) { // a deploy renames the jar
      URI uri = inJar(jar);
      try (CacheManager m = new HybridCachingProvider().getCacheManager(uri, getClass().getClassLoader(), given)) {
        Cache<String, String> c = m.createCache("c", strings());
        assertEquals(null, c.get("k"), "a manager without a directory found an earlier one's entry");
        c.put("k", "v");
        Path managerDir = m.unwrap(HybridCache.class).config().directory().getParent();
        assertEquals(root, managerDir.getParent());
        assertFalse(managerDir.getFileName().toString().contains("app-1"),
            "the directory is named from the URI: " + managerDir);
      }
      assertEquals(List.of(), entries(root), "a manager without a directory left it behind");
    }
  }

  private static List<Path> entries(Path d) throws IOException {
    try (Stream<Path> s = Files.list(d)) {
      return s.toList();
    }
  }
}
