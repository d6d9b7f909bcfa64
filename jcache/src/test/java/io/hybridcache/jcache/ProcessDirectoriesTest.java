package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.ChildJvms;
import io.hybridcache.core.api.HybridCache;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a manager's directory is, as separate processes see it (issue 35 items 3 and 16): two processes
 * with default settings share nothing and both start, each run starts cold and leaves nothing behind;
 * a {@code -Dhybridcache.jcache.directory} or {@code HYBRIDCACHE_JCACHE_DIRECTORY} wins over the file's
 * {@code directory}; two processes on one directory are told each needs its own.
 */
class ProcessDirectoriesTest {
  @TempDir Path dir;

  /**
   * The child, as a Spring application would: the provider by name, the URI {@code args[0]} ("-": the
   * default one), no properties in code. Prints "GOT value" for key k of cache c, puts its pid there,
   * prints "DIR manager-directory", then waits for a line on stdin, closes and prints "CLOSED". A failed
   * start prints "FAILED message".
   */
  public static void main(String[] args) throws Exception {
    CacheManager manager;
    try {
      javax.cache.spi.CachingProvider provider = Caching.getCachingProvider(HybridCachingProvider.class.getName());
      URI uri = args[0].equals("-") ? provider.getDefaultURI() : URI.create(args[0]);
      manager = provider.getCacheManager(uri, provider.getDefaultClassLoader(), new Properties());
      Cache<String, String> c = manager.createCache("c", new MutableConfiguration<String, String>()
          .setTypes(String.class, String.class));
      System.out.println("GOT " + c.get("k"));
      c.put("k", "from-" + ProcessHandle.current().pid());
      System.out.println("DIR " + manager.unwrap(HybridCache.class).config().directory().getParent());
    } catch (RuntimeException e) {
      System.out.println("FAILED " + e.getMessage());
      return;
    }
    System.out.flush();
    new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    manager.close();
    System.out.println("CLOSED");
  }

  /** A running child and what it said. */
  private record Child(Process process, BufferedReader out, Path err) {
    String line() throws IOException {
      String l = out.readLine();
      if (l == null) {
        throw new AssertionError("the child ended: " + Files.readString(err));
      }
      return l;
    }

    /** "GOT ..." then "DIR ...": the value found and the directory, or fails with the child's FAILED line. */
    String[] started() throws IOException {
      String got = line();
      if (!got.startsWith("GOT ")) {
        throw new AssertionError("the child did not start: " + got);
      }
      String d = line();
      assertTrue(d.startsWith("DIR "), d);
      return new String[] {got.substring(4), d.substring(4)};
    }

    void close() throws Exception {
      PrintWriter in = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
      in.println("close");
      assertEquals("CLOSED", line());
      process.waitFor();
    }
  }

  private Child start(String name, String uri, List<String> jvmFlags, Map<String, String> env) throws Exception {
    Path err = dir.resolve(name + ".err");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(ChildJvms.strictFlagsOfThisJvm());
    cmd.addAll(jvmFlags);
    cmd.addAll(List.of("-Xmx256m", "-cp", System.getProperty("java.class.path"), getClass().getName(), uri));
    ProcessBuilder b = new ProcessBuilder(cmd).redirectError(err.toFile());
    b.environment().keySet().removeIf(k -> k.startsWith("HYBRIDCACHE_JCACHE_"));
    b.environment().putAll(env);
    Process p = b.start();
    return new Child(p, new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)), err);
  }

  private static List<Path> entries(Path d) throws IOException {
    try (Stream<Path> s = Files.list(d)) {
      return s.toList();
    }
  }

  @Test
  void twoProcessesWithDefaultSettingsShareNothingBothStartColdAndLeaveNothingBehind() throws Exception {
    Path tmp = Files.createDirectory(dir.resolve("tmp"));
    List<String> flags = List.of("-Djava.io.tmpdir=" + tmp);
    Child a = start("a", "-", flags, Map.of());
    Child b = null;
    try {
      String[] first = a.started();
      b = start("b", "-", flags, Map.of());
      String[] second = b.started();
      assertEquals("null", first[0], "the first process did not start cold");
      assertEquals("null", second[0], "the second process read the first one's entry");
      assertNotEquals(first[1], second[1], "two processes share a directory");
      for (String d : List.of(first[1], second[1])) {
        Path p = Path.of(d);
        assertEquals(tmp, p.getParent(), "a private directory is made under java.io.tmpdir");
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(p)), d);
      }
      a.close();
      b.close();
      b = null;
      assertEquals(List.of(), entries(tmp), "a closed manager left its private directory behind");
      String log = Files.readString(a.err());
      assertTrue(log.contains(first[1]) && log.contains("persistence is off"), "no INFO on the directory: " + log);
      assertTrue(log.contains("dram-bytes 64m") && log.contains("flash-bytes 1g") && log.contains("direct-io"),
          "the effective configuration was not logged: " + log);
      assertTrue(log.contains("(new,"), "a new engine directory was not logged as new: " + log);
    } finally {
      a.process().destroyForcibly();
      if (b != null) {
        b.process().destroyForcibly();
      }
    }
    Child c = start("c", "-", flags, Map.of()); // the next run: cold again
    try {
      assertEquals("null", c.started()[0], "a second run in a row found the first run's entry");
      c.close();
    } finally {
      c.process().destroyForcibly();
    }
  }

  @Test
  void theNextManagerOpenDeletesThePrivateDirectoryOfAKilledProcessNotALiveOnes() throws Exception {
    Path tmp = Files.createDirectory(dir.resolve("tmp"));
    List<String> flags = List.of("-Djava.io.tmpdir=" + tmp);
    Child killed = start("killed", "-", flags, Map.of());
    Child live = start("live", "-", flags, Map.of());
    try {
      Path left = Path.of(killed.started()[1]);
      Path held = Path.of(live.started()[1]);
      killed.process().destroyForcibly(); // SIGKILL: no close, no shutdown hook
      killed.process().waitFor();
      assertTrue(Files.isDirectory(left), "the killed process's directory is gone before the next open");
      Properties given = new Properties();
      given.setProperty(ProviderProperties.ROOT, tmp.toString());
      given.setProperty(ProviderProperties.DRAM_BYTES, "1m");
      given.setProperty(ProviderProperties.FLASH_BYTES, "8m");
      try (CacheManager m = new HybridCachingProvider().getCacheManager(URI.create("test:sweeper"),
          getClass().getClassLoader(), given)) {
        m.createCache("c", new MutableConfiguration<String, String>().setTypes(String.class, String.class));
        Path own = m.unwrap(HybridCache.class).config().directory().getParent();
        assertEquals(List.of(held, own).stream().sorted().toList(), entries(tmp).stream().sorted().toList(),
            "not exactly the killed process's directory was deleted");
      }
      live.close();
      assertEquals(List.of(), entries(tmp));
    } finally {
      killed.process().destroyForcibly();
      live.process().destroyForcibly();
    }
  }

  private URI fileSettingDirectory(Path directory) throws IOException {
    Properties p = new Properties();
    p.setProperty(ProviderProperties.DIRECTORY, directory.toString());
    p.setProperty(ProviderProperties.DRAM_BYTES, "1m");
    p.setProperty(ProviderProperties.FLASH_BYTES, "8m");
    Path f = dir.resolve("hybridcache.properties");
    try (OutputStream out = Files.newOutputStream(f)) {
      p.store(out, null);
    }
    return f.toUri();
  }

  @Test
  void aSystemPropertyWinsOverTheEnvironmentWhichWinsOverTheFile() throws Exception {
    URI uri = fileSettingDirectory(dir.resolve("from-file"));
    String fromProperty = dir.resolve("from-property").toString();
    String fromEnvironment = dir.resolve("from-environment").toString();
    Child p = start("p", uri.toString(), List.of("-Dhybridcache.jcache.directory=" + fromProperty),
        Map.of("HYBRIDCACHE_JCACHE_DIRECTORY", fromEnvironment));
    try {
      assertEquals(fromProperty, p.started()[1], "-Dhybridcache.jcache.directory did not win over the file");
      p.close();
    } finally {
      p.process().destroyForcibly();
    }
    Child e = start("e", uri.toString(), List.of(), Map.of("HYBRIDCACHE_JCACHE_DIRECTORY", fromEnvironment));
    try {
      assertEquals(fromEnvironment, e.started()[1], "HYBRIDCACHE_JCACHE_DIRECTORY did not win over the file");
      e.close();
    } finally {
      e.process().destroyForcibly();
    }
  }

  @Test
  void aSecondProcessOnOneDirectoryIsToldEachProcessNeedsItsOwn() throws Exception {
    Path shared = dir.resolve("shared");
    URI uri = fileSettingDirectory(shared);
    Child holder = start("holder", uri.toString(), List.of(), Map.of());
    try {
      holder.started();
      Properties given = new Properties();
      given.setProperty(ProviderProperties.DIRECTORY, shared.toString());
      CacheException e = org.junit.jupiter.api.Assertions.assertThrows(CacheException.class, () -> {
        try (CacheManager m = new HybridCachingProvider().getCacheManager(uri, getClass().getClassLoader(), given)) {
          m.createCache("c", new MutableConfiguration<String, String>());
        }
      });
      assertTrue(e.getMessage().contains(shared.toString())
          && e.getMessage().contains("each process needs its own directory"), e.getMessage());
      holder.close();
    } finally {
      holder.process().destroyForcibly();
    }
  }
}
