package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.Codec;
import java.io.Serializable;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryRemovedListener;
import javax.cache.event.CacheEntryUpdatedListener;
import javax.cache.management.CacheStatisticsMXBean;
import javax.management.ObjectName;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stored value that no longer decodes (its class changed incompatibly or moved in a deploy, a tightened
 * {@code serial-filter}, a codec that refuses it) is a miss: the operation that finds it removes it, counts
 * it ({@link HybridCacheStatisticsMXBean#getUndecodableValues()}) and goes on as on a miss; no operation
 * throws for it, events carry no old value, the iterator skips it, and it is never counted as a hit.
 */
class UndecodableTest {
  @TempDir Path dir;

  /** Strings, except that a stored "poison" does not decode (a codec that fails, as after a change of codec). */
  public static final class PoisonCodec implements Codec<String> {
    @Override
    public byte[] encode(String value) {
      return value.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String decode(byte[] bytes) {
      String s = new String(bytes, StandardCharsets.UTF_8);
      if (s.startsWith("poison")) {
        throw new IllegalStateException("cannot decode " + s);
      }
      return s;
    }
  }

  private static HybridCacheConfiguration<String, String> poisonable() {
    HybridCacheConfiguration<String, String> c = new HybridCacheConfiguration<>();
    c.setTypes(String.class, String.class);
    c.setValueCodec(new PoisonCodec());
    c.setStatisticsEnabled(true);
    return c;
  }

  private static long undecodable(Cache<?, ?> cache) {
    return cache.unwrap(HybridCacheStatisticsMXBean.class).getUndecodableValues();
  }

  @Test
  void everyOperationReadsAnUndecodableValueAsAMissAndRemovesIt() {
    try (CacheManager manager = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<String, String> c = manager.createCache("poisoned", poisonable());
      c.put("k", "poison");
      assertNull(c.get("k"), "get");
      assertFalse(c.containsKey("k"), "the get removed it");
      assertEquals(1, undecodable(c));
      CacheStatisticsMXBean stats = c.unwrap(HybridCacheStatisticsMXBean.class);
      assertEquals(0, stats.getCacheHits(), "an undecodable value counted as a hit");
      assertEquals(1, stats.getCacheMisses());

      c.put("k", "poison");
      assertNull(c.getAndPut("k", "fresh"), "getAndPut returns no old value");
      assertEquals("fresh", c.get("k"), "getAndPut stored its value");

      c.put("k", "poison");
      assertFalse(c.remove("k", "poison"), "remove(k, v) of an undecodable value");
      assertFalse(c.containsKey("k"));
      c.put("k", "poison");
      assertFalse(c.replace("k", "poison", "x"), "replace(k, old, new)");
      assertFalse(c.containsKey("k"));
      c.put("k", "poison");
      assertFalse(c.replace("k", "x"), "replace(k, v) over an undecodable value is a replace of nothing");
      assertFalse(c.containsKey("k"));
      c.put("k", "poison");
      assertNull(c.getAndRemove("k"));
      assertFalse(c.containsKey("k"));
      c.put("k", "poison");
      assertNull(c.invoke("k", (e, args) -> e.getValue()), "an entry processor sees no value");
      assertFalse(c.containsKey("k"));
      c.put("k", "poison");
      assertTrue(c.getAll(Set.of("k")).isEmpty(), "getAll");
      assertEquals(8, undecodable(c));

      c.put("a", "one");
      c.put("k", "poison");
      c.put("b", "two");
      Set<String> seen = new HashSet<>();
      for (Cache.Entry<String, String> e : c) {
        seen.add(e.getKey() + "=" + e.getValue());
      }
      assertEquals(Set.of("a=one", "b=two"), seen, "the iterator skips the undecodable value");
      assertFalse(c.containsKey("k"), "the iterator removed it");
      assertEquals(9, undecodable(c));
      assertEquals(3, stats.getCacheHits(), "hits: fresh, and the iterator's two");
    }
  }

  /** What a listener heard: the event type, its value and old value. */
  static final class Heard implements CacheEntryUpdatedListener<String, String>,
      CacheEntryRemovedListener<String, String>, Serializable {
    private static final long serialVersionUID = 1L;
    static final List<String> EVENTS = new CopyOnWriteArrayList<>();

    @Override
    public void onUpdated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
      events.forEach(e -> EVENTS.add("UPDATED " + e.getValue() + " old " + e.getOldValue() + " " + e.isOldValueAvailable()));
    }

    @Override
    public void onRemoved(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
      events.forEach(e -> EVENTS.add("REMOVED " + e.getValue() + " old " + e.getOldValue()));
    }
  }

  @Test
  void aPutOrRemoveOverAnUndecodableValueDoesItsWorkAndTellsListenersNoOldValue() {
    Heard.EVENTS.clear();
    try (CacheManager manager = TestManagers.open(new HybridCachingProvider(), dir)) {
      HybridCacheConfiguration<String, String> config = poisonable();
      config.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<String, String>(
          () -> new Heard(), null, true, true));
      Cache<String, String> c = manager.createCache("listened", config);
      c.put("k", "poison");
      c.put("k", "fresh"); // threw CacheException, after storing "fresh"
      assertEquals("fresh", c.get("k"));
      c.put("k", "poison");
      assertTrue(c.remove("k"), "a stored (if undecodable) entry is removed");
      assertFalse(c.containsKey("k"));
      assertEquals(List.of("UPDATED fresh old null false", "UPDATED poison old fresh true", "REMOVED null old null"),
          Heard.EVENTS.subList(Heard.EVENTS.size() - 3, Heard.EVENTS.size()));
    }
  }

  /** Compiles class {@code gen.Order} (a {@code name}, and {@code extra} more source) into a directory of its own. */
  private Path order(String version, long serialVersionUid, String extra) throws Exception {
    Path src = dir.resolve("src-" + version + "/gen/Order.java");
    Files.createDirectories(src.getParent());
    Files.writeString(src, "package gen; public class Order implements java.io.Serializable {"
        + " private static final long serialVersionUID = " + serialVersionUid + "L;"
        + " public String name; " + extra + " }");
    Path out = Files.createDirectories(dir.resolve("classes-" + version));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertEquals(0, javac.run(null, null, null, "-d", out.toString(), src.toString()), "javac");
    return out;
  }

  private static Object newOrder(ClassLoader loader, String name) throws Exception {
    Object o = loader.loadClass("gen.Order").getConstructor().newInstance();
    o.getClass().getField("name").set(o, name);
    return o;
  }

  private CacheManager manager(HybridCachingProvider provider, ClassLoader loader, String filter) {
    Properties p = TestManagers.small(dir.resolve("cache"), "orders");
    if (filter != null) {
      p.setProperty(ProviderProperties.SERIAL_FILTER, filter);
    }
    return provider.getCacheManager(URI.create("test:deploys"), loader, p);
  }

  private static MutableConfiguration<String, Object> orders() {
    return new MutableConfiguration<String, Object>().setTypes(String.class, Object.class).setStatisticsEnabled(true);
  }

  /**
   * A deploy that changes a cached class: a compatible change (a field added, the same serialVersionUID)
   * brings the old entry back with the field null, silently (Java serialization's rule); an incompatible
   * one (another serialVersionUID), a moved class or a tightened filter makes the entry a counted miss,
   * removed, never a hit, and the cache goes on working.
   */
  @Test
  void aDeployThatChangesOrMovesTheCachedClassReadsOldEntriesAsMisses() throws Exception {
    URL v1 = order("v1", 1, "").toUri().toURL();
    URL v1b = order("v1b", 1, "public String note;").toUri().toURL();
    URL v2 = order("v2", 2, "").toUri().toURL();
    HybridCachingProvider provider = new HybridCachingProvider();
    ClassLoader app = getClass().getClassLoader();
    try (URLClassLoader first = new URLClassLoader(new URL[] {v1}, app)) {
      try (CacheManager m = manager(provider, first, null)) {
        Cache<String, Object> c = m.createCache("orders", orders());
        for (String k : List.of("compatible", "incompatible", "moved", "filtered")) {
          c.put(k, newOrder(first, k));
        }
        c.put("point", new CodecsTest.Point(4));
      }
    }
    try (URLClassLoader added = new URLClassLoader(new URL[] {v1b}, app);
        CacheManager m = manager(provider, added, null)) {
      Object o = m.createCache("orders", orders()).get("compatible");
      assertNotNull(o, "a compatible change reads the old entry");
      assertEquals("compatible", o.getClass().getField("name").get(o));
      assertNull(o.getClass().getField("note").get(o), "the added field comes back null");
    }
    try (URLClassLoader changed = new URLClassLoader(new URL[] {v2}, app);
        CacheManager m = manager(provider, changed, null)) {
      Cache<String, Object> c = m.createCache("orders", orders());
      assertNull(c.get("incompatible"), "an incompatible class change is a miss");
      CacheStatisticsMXBean stats = statistics(m, "orders");
      assertEquals(0, stats.getCacheHits(), "an incompatible value counted as a hit");
      assertEquals(1, stats.getCacheMisses());
      assertEquals(1, undecodable(c));
      assertEquals(1L, ManagementFactory.getPlatformMBeanServer().getAttribute(
          MBeans.name(c, MBeans.Kind.CacheStatistics), "UndecodableValues"), "the count on the statistics MXBean");
      c.put("incompatible", newOrder(changed, "again"));
      assertNotNull(c.get("incompatible"), "the cache goes on working with the new class");
    }
    try (CacheManager m = manager(provider, app, null)) { // gen.Order is gone from the class path
      Cache<String, Object> c = m.createCache("orders", orders());
      assertNull(c.get("moved"), "a moved class is a miss");
      assertEquals(1, undecodable(c));
    }
    try (CacheManager m = manager(provider, app, "java.lang.*;java.util.*;!*")) { // a tightened filter
      Cache<String, Object> c = m.createCache("orders", orders());
      assertNull(c.get("point"), "a value the filter now refuses is a miss");
      assertEquals(1, undecodable(c));
    }
    try (URLClassLoader first = new URLClassLoader(new URL[] {v1}, app);
        CacheManager m = manager(provider, first, null)) {
      Cache<String, Object> c = m.createCache("orders", orders());
      assertNull(c.get("moved"), "the miss removed the undecodable entry");
      assertNull(c.get("point"), "the miss removed the refused entry");
      assertNotNull(c.get("filtered"), "an entry nobody read stays");
      List<Object> all = new ArrayList<>();
      c.forEach(e -> all.add(e.getKey()));
      assertTrue(all.contains("filtered"), all.toString());
    }
  }

  /** A loader of "loaded-KEY" (a factory's singleton: configurations are copied). */
  static final class Loader implements javax.cache.integration.CacheLoader<String, String>, Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public String load(String key) {
      return "loaded-" + key;
    }

    @Override
    public java.util.Map<String, String> loadAll(Iterable<? extends String> keys) {
      java.util.Map<String, String> m = new java.util.HashMap<>();
      keys.forEach(k -> m.put(k, load(k)));
      return m;
    }
  }

  /**
   * containsKey reads an entry's header only (issue 37: no read or decode of the value), so an undecodable value
   * is there for it until an operation that reads it finds it; putIfAbsent, an entry processor's exists() and
   * loadAll without replace decode it, so for them it is absent (removed, counted: they store over it).
   */
  @Test
  void containsKeySeesAnUndecodableValuePutIfAbsentInvokeAndLoadAllStoreOverIt() throws Exception {
    try (CacheManager manager = TestManagers.open(new HybridCachingProvider(), dir)) {
      HybridCacheConfiguration<String, String> config = poisonable();
      config.setCacheLoaderFactory(new FactoryBuilder.SingletonFactory<>(new Loader()));
      Cache<String, String> c = manager.createCache("absent", config);
      CacheStatisticsMXBean stats = c.unwrap(HybridCacheStatisticsMXBean.class);

      c.put("k", "poison");
      assertTrue(c.containsKey("k"), "containsKey reads no value: an undecodable one is there");
      assertEquals(0, undecodable(c), "containsKey decoded nothing");
      long misses = stats.getCacheMisses();
      assertTrue(c.putIfAbsent("k", "fresh"), "putIfAbsent over an undecodable value stores (after a deploy)");
      assertEquals(misses + 1, stats.getCacheMisses(), "putIfAbsent counted a miss");
      assertEquals(0, stats.getCacheHits(), "putIfAbsent counted a hit");
      assertEquals(1, undecodable(c));
      assertEquals("fresh", c.get("k"));

      c.put("k", "poison");
      assertNull(c.get("k"), "a read finds it undecodable: a miss");
      assertEquals(2, undecodable(c));
      assertFalse(c.containsKey("k"), "the get removed it");

      c.put("k", "poison");
      assertEquals("absent", c.invoke("k", (e, args) -> e.exists() ? "present " + e.getValue().length() : "absent"),
          "an entry processor's exists()");
      assertFalse(c.containsKey("k"));
      assertEquals(3, undecodable(c));

      c.put("k", "poison");
      javax.cache.integration.CompletionListenerFuture done = new javax.cache.integration.CompletionListenerFuture();
      c.loadAll(Set.of("k"), false, done);
      done.get();
      assertEquals("loaded-k", c.get("k"), "loadAll without replace loads over an undecodable value");
      assertEquals(4, undecodable(c));
    }
  }

  private static CacheStatisticsMXBean statistics(CacheManager m, String cache) throws Exception {
    ObjectName name = MBeans.name(m.getCache(cache), MBeans.Kind.CacheStatistics);
    return javax.management.JMX.newMXBeanProxy(ManagementFactory.getPlatformMBeanServer(), name,
        CacheStatisticsMXBean.class);
  }
}
