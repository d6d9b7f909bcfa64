package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.ChildJvms;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Serializable;
import java.io.StringReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import javax.xml.transform.Templates;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.stream.StreamSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The provider's serialization filter: merged with the JVM-wide {@code jdk.serialFilter} (never replacing
 * it), a deny-list of known gadget classes, undecided classes refused when {@code serial-filter} names
 * classes, its limits checked at put time, declared types checked at start, and every refusal naming the class.
 */
class SerialFilterTest {
  @TempDir Path dir;

  /** A class the JVM-wide filter of the child JVM refuses. */
  static final class Forbidden implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  /** A class the allow-lists below name. */
  static final class Allowed implements Serializable {
    private static final long serialVersionUID = 1L;
    final Object payload;

    Allowed(Object payload) {
      this.payload = payload;
    }
  }

  private CacheManager manager(String filter) {
    Properties p = TestManagers.small(dir);
    if (filter != null) {
      p.setProperty(ProviderProperties.SERIAL_FILTER, filter);
    }
    return new HybridCachingProvider().getCacheManager(URI.create("test:filter"), getClass().getClassLoader(), p);
  }

  private static Cache<String, Object> objects(CacheManager m) {
    return m.createCache("objects", new MutableConfiguration<String, Object>());
  }

  /**
   * The child: a manager with the default {@code serial-filter} (no allow-list) under a JVM-wide filter that
   * refuses {@link Forbidden}; prints what a put and a get of one did, then reads an undecodable value twice.
   */
  public static void main(String[] args) throws Exception {
    try (CacheManager m = new HybridCachingProvider().getCacheManager(URI.create("test:child"),
        SerialFilterTest.class.getClassLoader(), TestManagers.small(Path.of(args[0])))) {
      Cache<String, Object> c = objects(m);
      String result;
      try {
        c.put("f", new Forbidden());
        Object back = c.get("f");
        result = "STORED " + (back == null ? "null" : back.getClass().getName());
      } catch (IllegalArgumentException e) {
        result = "REFUSED " + e.getMessage();
      }
      System.out.println(result.replace('\n', ' '));
      HybridCacheConfiguration<String, String> poison = new HybridCacheConfiguration<String, String>();
      poison.setTypes(String.class, String.class);
      poison.setValueCodec(new UndecodableTest.PoisonCodec());
      Cache<String, String> p = m.createCache("poisoned", poison);
      p.put("a", "poison-a");
      p.put("b", "poison-b");
      System.out.println("GETS " + p.get("a") + " " + p.get("b"));
    }
  }

  @Test
  void theJvmWideFilterStillAppliesAndJavaSerializationWithoutAnAllowListIsWarnedOnce() throws Exception {
    Path err = dir.resolve("child.err");
    Process child = ChildJvms.start(SerialFilterTest.class, "128m",
        List.of("-Djdk.serialFilter=!" + Forbidden.class.getName(),
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"),
        err.toFile(), dir.resolve("child").toString());
    List<String> out = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      r.lines().forEach(out::add);
    }
    assertEquals(0, child.waitFor(), "child failed: " + Files.readString(err));
    String log = Files.readString(err);
    assertEquals(2, out.size(), out + " " + log);
    assertTrue(out.get(0).startsWith("REFUSED ") && out.get(0).contains(Forbidden.class.getName())
        && out.get(0).contains("jdk.serialFilter"), "the JVM-wide filter was replaced: " + out.get(0));
    assertEquals("GETS null null", out.get(1), "undecodable values are misses");
    assertEquals(1, count(log, "without an allow-list"), "warn once that Java serialization has no allow-list: " + log);
    assertEquals(1, count(log, "does not decode"), "warn once per cache and class: " + log);
    assertTrue(log.contains(UndecodableTest.PoisonCodec.class.getName()), log);
  }

  /** How often {@code part} occurs in {@code text} (a log's lines). */
  static int count(String text, String part) {
    int n = 0;
    for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
      n++;
    }
    return n;
  }

  @Test
  void aKnownGadgetClassIsRefusedAtPutNamingIt() throws Exception {
    Templates templates = TransformerFactory.newInstance().newTemplates(new StreamSource(new StringReader(
        "<xsl:stylesheet version='1.0' xmlns:xsl='http://www.w3.org/1999/XSL/Transform'/>")));
    try (CacheManager m = manager(null)) {
      Cache<String, Object> c = objects(m);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.put("t", templates));
      assertTrue(e.getMessage().contains(templates.getClass().getName()) && e.getMessage().contains("deny-list"),
          e.getMessage());
    }
  }

  @Test
  void anAllowListRefusesClassesItDoesNotNameAtPut() {
    try (CacheManager m = manager(Allowed.class.getName())) { // no "!*": undecided classes are refused all the same
      Cache<String, Object> c = objects(m);
      c.put("ok", new Allowed("seven"));
      assertEquals("seven", ((Allowed) c.get("ok")).payload);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> c.put("list", new Allowed(new ArrayList<>(List.of(1)))));
      assertTrue(e.getMessage().contains("java.util.ArrayList") && e.getMessage().contains("serial-filter"),
          e.getMessage());
    }
  }

  @Test
  void aValueOverTheFiltersLimitsFailsItsPutNamingTheLimit() {
    try (CacheManager m = manager("maxdepth=20")) {
      Cache<String, Object> c = objects(m);
      c.put("shallow", CodecsTest.nested(5));
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.put("deep", CodecsTest.nested(50)));
      assertTrue(e.getMessage().contains("maxdepth=20") && e.getMessage().contains("java.util.ArrayList"),
          e.getMessage());
    }
  }

  @Test
  void aFilterThatRefusesADeclaredTypeFailsTheManagerNamingTheClass() {
    Properties p = TestManagers.small(dir);
    p.setProperty(ProviderProperties.SERIAL_FILTER, "java.lang.*;!*");
    p.setProperty("cache.points.value-type", Allowed.class.getName());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new HybridCachingProvider().getCacheManager(URI.create("test:declared"), getClass().getClassLoader(), p));
    assertTrue(e.getMessage().contains(Allowed.class.getName()) && e.getMessage().contains("java.lang.*;!*")
        && e.getMessage().contains("cache.points.value-type"), e.getMessage());
    p.setProperty(ProviderProperties.SERIAL_FILTER, "java.lang.*;" + Allowed.class.getName() + ";!*");
    try (CacheManager m = new HybridCachingProvider().getCacheManager(URI.create("test:declared2"),
        getClass().getClassLoader(), p)) {
      assertTrue(m.getCacheNames().iterator().hasNext(), "an allowed declared type starts");
    }
  }
}
