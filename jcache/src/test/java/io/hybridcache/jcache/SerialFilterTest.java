package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
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
      IllegalArgumentException n = assertThrows(IllegalArgumentException.class, () -> c.put("x", new Allowed(new Object())));
      assertTrue(n.getMessage().contains("cannot serialize a " + Allowed.class.getName()),
          "a value that is not serializable is named so, not as the filter's refusal: " + n.getMessage());
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

  /** A key class an allow-list of java.base does not name; counts its deserializations. */
  record Key(int id) implements Serializable {
    static final java.util.concurrent.atomic.AtomicInteger READS = new java.util.concurrent.atomic.AtomicInteger();

    private Object readResolve() {
      READS.incrementAndGet();
      return this;
    }
  }

  /** A value that counts its deserializations (its readObject runs user code). */
  static final class Counted implements Serializable {
    private static final long serialVersionUID = 1L;
    static final java.util.concurrent.atomic.AtomicInteger READS = new java.util.concurrent.atomic.AtomicInteger();
    final String name;

    Counted(String name) {
      this.name = name;
    }

    private void readObject(java.io.ObjectInputStream in) throws java.io.IOException, ClassNotFoundException {
      in.defaultReadObject();
      READS.incrementAndGet();
    }
  }

  @Test
  void aKeyIsNeverDeserializedByAReadOrAPut() {
    Key.READS.set(0);
    try (CacheManager m = manager(null)) {
      Cache<Object, String> c = m.createCache("keyed", new MutableConfiguration<Object, String>());
      c.put(new Key(1), "one");
      assertEquals("one", c.get(new Key(1)));
      assertTrue(c.containsKey(new Key(1)));
      assertTrue(c.remove(new Key(1)));
      assertEquals(0, Key.READS.get(), "a key was deserialized on the read path");
    }
  }

  @Test
  void aKeyTheFilterRefusesIsAMissOnAReadAndFailsItsPutNamingTheClass() {
    try (CacheManager m = manager("java.base/*;!*")) {
      Cache<Object, String> c = m.createCache("keyed", new MutableConfiguration<Object, String>());
      assertNull(c.get(new Key(1)), "a refused key is a miss");
      assertFalse(c.containsKey(new Key(1)));
      assertFalse(c.remove(new Key(1)));
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.put(new Key(1), "one"));
      assertTrue(e.getMessage().contains(Key.class.getName()) && e.getMessage().contains("serial-filter"),
          e.getMessage());
      c.put(new java.util.ArrayList<>(List.of(1)), "java.base key");
      assertEquals("java.base key", c.get(new java.util.ArrayList<>(List.of(1))), "an allowed key works");
    }
  }

  @Test
  void aPutDoesNotDeserializeTheValue() {
    Counted.READS.set(0);
    try (CacheManager m = manager(null)) {
      Cache<String, Object> c = objects(m);
      c.put("a", new Counted("a"));
      c.put("b", new Counted("b"));
      assertEquals(0, Counted.READS.get(), "a put read the value back (user readObject ran on a put)");
      assertEquals("a", ((Counted) c.get("a")).name);
      assertEquals(1, Counted.READS.get(), "one get, one decode");
    }
  }

  @Test
  void aValueOverTheArrayReferenceOrByteLimitsFailsItsPutNamingTheLimit() {
    List<Integer> many = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      many.add(1000 + i);
    }
    assertPutRefused("maxarray=100", new int[100], new int[101], "maxarray=100", "int[]");
    assertPutRefused("maxrefs=50", new ArrayList<>(many.subList(0, 40)), many, "maxrefs=50", "java.lang.Integer");
    assertPutRefused("maxbytes=2000", new byte[100], new byte[5000], "maxbytes=2000", "byte[]");
  }

  /** Under {@code filter}, {@code small} is stored and {@code big} fails its put with a message naming {@code parts}. */
  private void assertPutRefused(String filter, Object small, Object big, String... parts) {
    try (CacheManager m = manager(filter)) {
      Cache<String, Object> c = objects(m);
      c.put("small", new ArrayList<>(List.of(small)));
      assertEquals(1, ((List<?>) c.get("small")).size());
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.put("big", big));
      for (String part : parts) {
        assertTrue(e.getMessage().contains(part), filter + ": " + e.getMessage());
      }
      assertNull(c.get("big"), "nothing stored");
    }
  }
}
