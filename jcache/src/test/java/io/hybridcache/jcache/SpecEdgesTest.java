package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.integration.CacheWriter;
import javax.cache.processor.EntryProcessorException;
import javax.management.ObjectName;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.cache.support.NullValue;

/** The spec's and the frameworks' edges (issue 35 item 10), each through the public JCache API. */
class SpecEdgesTest {
  @TempDir Path dir;

  private CacheManager open(HybridCachingProvider provider) {
    return TestManagers.open(provider, dir.resolve("cache"));
  }

  @Test
  void getConfigurationReturnsAnImmutableCopy() {
    try (CacheManager m = open(new HybridCachingProvider())) {
      Cache<String, String> c = m.createCache("c", new MutableConfiguration<String, String>().setTypes(String.class,
          String.class));
      MutableConfiguration<?, ?> got = c.getConfiguration(MutableConfiguration.class);
      assertThrows(UnsupportedOperationException.class, () -> got.setStatisticsEnabled(true));
      assertThrows(UnsupportedOperationException.class, () -> got.setReadThrough(true));
      assertFalse(c.getConfiguration(CompleteConfiguration.class).isStatisticsEnabled(), "the cache's unchanged");
      assertFalse(c.getConfiguration(CompleteConfiguration.class).isReadThrough());
      assertEquals(String.class, c.getConfiguration(HybridCacheConfiguration.class).getValueType());
    }
  }

  /**
   * Two equal {@code byte[]} keys (different arrays, different identity hashes) are one entry: the second
   * invoke waits for the first's processor (both lock the encoded key), checked three times with fresh arrays.
   */
  @Test
  void byteArrayKeysKeepInvokeAtomicity() throws Exception {
    ExecutorService other = Executors.newSingleThreadExecutor();
    try (CacheManager m = open(new HybridCachingProvider())) {
      Cache<byte[], Long> c = m.createCache("bytes", new MutableConfiguration<byte[], Long>().setTypes(byte[].class,
          Long.class));
      for (int round = 0; round < 3; round++) {
        CountDownLatch firstIn = new CountDownLatch(1);
        CountDownLatch secondIn = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<Thread> secondThread = new java.util.concurrent.atomic.AtomicReference<>();
        Future<?> second = other.submit(() -> {
          secondThread.set(Thread.currentThread());
          firstIn.await();
          return c.invoke(new byte[] {1, 2, 3}, (e, a) -> {
            secondIn.countDown();
            e.setValue(e.exists() ? e.getValue() + 1 : 1L);
            return null;
          });
        });
        Boolean overlapped = c.invoke(new byte[] {1, 2, 3}, (e, a) -> {
          firstIn.countDown();
          // the second invoke must not enter while this one runs: wait until it has entered (a failure) or is
          // parked on a lock (the key's), within 10 s
          long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
          while (secondIn.getCount() > 0 && !parkedOnALock(secondThread.get())) {
            if (System.nanoTime() > end) {
              throw new IllegalStateException("the second invoke neither entered nor waited for the key's lock");
            }
            Thread.onSpinWait();
          }
          boolean in = secondIn.getCount() == 0;
          e.setValue(e.exists() ? e.getValue() + 1 : 1L);
          return in;
        });
        second.get(10, TimeUnit.SECONDS);
        assertFalse(overlapped, "an invoke of an equal byte[] key ran inside another's processor");
        assertEquals(2L * (round + 1), c.get(new byte[] {1, 2, 3}));
      }
    } finally {
      other.shutdownNow();
    }
  }

  /** True if {@code t} is parked waiting for a {@code ReentrantLock} (the key locks are), not for a latch. */
  private static boolean parkedOnALock(Thread t) {
    Object blocker = t == null ? null : java.util.concurrent.locks.LockSupport.getBlocker(t);
    return blocker != null && blocker.getClass().getName().startsWith("java.util.concurrent.locks.ReentrantLock");
  }

  @Test
  void invokeWrapsAProcessorsCacheException() {
    try (CacheManager m = open(new HybridCachingProvider())) {
      Cache<String, String> c = m.createCache("c", new MutableConfiguration<String, String>());
      CacheException thrown = new CacheException("the processor's own");
      EntryProcessorException e = assertThrows(EntryProcessorException.class,
          () -> c.invoke("k", (entry, args) -> {
            throw thrown;
          }));
      assertSame(thrown, e.getCause());
      EntryProcessorException own = new EntryProcessorException("as is");
      assertSame(own, assertThrows(EntryProcessorException.class, () -> c.invoke("k", (entry, args) -> {
        throw own;
      })), "an EntryProcessorException is thrown as is");
    }
  }

  @Test
  void iteratorRemoveRemovesOnlyTheValueItReturned() {
    try (CacheManager m = open(new HybridCachingProvider())) {
      for (boolean byValue : new boolean[] {true, false}) {
        Cache<String, String> c = m.createCache("it-" + byValue, new MutableConfiguration<String, String>()
            .setTypes(String.class, String.class).setStoreByValue(byValue));
        c.put("k", "old");
        Iterator<Cache.Entry<String, String>> it = c.iterator();
        assertEquals("old", it.next().getValue());
        c.put("k", "new");
        it.remove();
        assertEquals("new", c.get("k"), "iterator().remove() removed a newer value (store-by-value " + byValue + ")");
        Iterator<Cache.Entry<String, String>> again = c.iterator();
        again.next();
        again.remove();
        assertFalse(c.containsKey("k"), "the value it returned is removed");
      }
    }
  }

  /** Records what it is asked to write. */
  public static final class RecordingWriter implements CacheWriter<Object, Object> {
    static final List<Object> WRITTEN = new CopyOnWriteArrayList<>();

    @Override
    public void write(Cache.Entry<?, ?> entry) {
      WRITTEN.add(entry.getKey());
    }

    @Override
    public void writeAll(java.util.Collection<Cache.Entry<?, ?>> entries) {
      for (Cache.Entry<?, ?> e : entries) {
        WRITTEN.add(e.getKey());
      }
    }

    @Override
    public void delete(Object key) {}

    @Override
    public void deleteAll(java.util.Collection<?> keys) {}
  }

  @Test
  void theWriterIsNotCalledWhenTheValueCannotBeEncoded() {
    RecordingWriter.WRITTEN.clear();
    try (CacheManager m = open(new HybridCachingProvider())) {
      Cache<Object, Object> c = m.createCache("w", new MutableConfiguration<Object, Object>()
          .setCacheWriterFactory(FactoryBuilder.factoryOf(RecordingWriter.class)).setWriteThrough(true));
      Object notSerializable = new Object();
      assertThrows(RuntimeException.class, () -> c.put("put", notSerializable));
      assertThrows(RuntimeException.class, () -> c.putAll(java.util.Map.of("putAll", notSerializable)));
      assertThrows(RuntimeException.class, () -> c.invoke("invoke", (e, a) -> {
        e.setValue(notSerializable);
        return null;
      }));
      c.put("r", "fine");
      assertThrows(RuntimeException.class, () -> c.replace("r", notSerializable));
      assertEquals(List.of("r"), RecordingWriter.WRITTEN, "the writer saw only the value that could be stored");
      assertEquals("fine", c.get("r"));
    }
  }

  private static Set<ObjectName> statisticsBeans(String uri) throws Exception {
    return ManagementFactory.getPlatformMBeanServer().queryNames(
        new ObjectName("javax.cache:type=CacheStatistics,CacheManager=" + uri.replaceAll(",|:|=|\n", ".")
            + ",Cache=shared,*"), null);
  }

  @Test
  void mbeanNamesAreUniqueForTwoManagersOfOneUri() throws Exception {
    HybridCachingProvider provider = new HybridCachingProvider();
    URI uri = URI.create("test:mbeans");
    ClassLoader app = getClass().getClassLoader();
    Properties p = TestManagers.small(dir.resolve("mbeans"));
    try (URLClassLoader l1 = new URLClassLoader(new URL[0], app); URLClassLoader l2 = new URLClassLoader(new URL[0], app);
        CacheManager a = provider.getCacheManager(uri, l1, p); CacheManager b = provider.getCacheManager(uri, l2, p)) {
      MutableConfiguration<String, String> stats = new MutableConfiguration<String, String>().setStatisticsEnabled(true);
      a.createCache("shared", stats);
      b.createCache("shared", stats);
      assertEquals(2, statisticsBeans(uri.toString()).size(), "one MXBean per cache: " + statisticsBeans(uri.toString()));
      a.close();
      assertEquals(1, statisticsBeans(uri.toString()).size(), "closing one manager left the other's MXBean");
      b.getCache("shared").get("x");
      ObjectName left = statisticsBeans(uri.toString()).iterator().next();
      assertEquals(1L, ManagementFactory.getPlatformMBeanServer().getAttribute(left, "CacheMisses"),
          "the MXBean left is the other manager's cache's");
    }
  }

  /** Compiles {@code source} (class {@code name}, package {@code p}) into a new directory; its URL. */
  private URL compiled(String name, String source) throws Exception {
    Path src = dir.resolve("src-" + name).resolve("p");
    Files.createDirectories(src);
    Files.writeString(src.resolve(name + ".java"), source);
    Path out = Files.createDirectories(dir.resolve("classes-" + name));
    assertEquals(0, ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", out.toString(),
        src.resolve(name + ".java").toString()), "javac");
    return out.toUri().toURL();
  }

  @Test
  void theDefaultClassLoaderTriesTheThreadsContextLoaderFirst() throws Exception {
    URL classes = compiled("Order", "package p; public class Order implements java.io.Serializable {}");
    Thread t = Thread.currentThread();
    ClassLoader saved = t.getContextClassLoader();
    HybridCachingProvider provider = new HybridCachingProvider();
    Properties p = TestManagers.small(dir.resolve("tccl"));
    p.setProperty("cache.orders.value-type", "p.Order");
    try (URLClassLoader app = new URLClassLoader(new URL[] {classes}, getClass().getClassLoader())) {
      t.setContextClassLoader(app);
      try (CacheManager m = provider.getCacheManager(URI.create("test:tccl"), null, p)) {
        Class<?> type = m.getCache("orders").getConfiguration(CompleteConfiguration.class).getValueType();
        assertSame(app, type.getClassLoader(), "the value type came from the thread's context loader");
      } finally {
        t.setContextClassLoader(saved);
      }
    }
  }

  /**
   * The default loader resolves a stored class against the thread's context loader of each read: after a
   * redeploy (context loader A, then B, on one shared manager) B's read gets B's class, not A's (no
   * "p.Order cannot be cast to p.Order", no stale class, A not pinned by the provider's default loader).
   */
  @Test
  void theDefaultClassLoaderResolvesEachReadAgainstTheCurrentContextLoader() throws Exception {
    URL classes = compiled("Order", "package p; public class Order implements java.io.Serializable {"
        + " private static final long serialVersionUID = 1L; }");
    Thread t = Thread.currentThread();
    ClassLoader saved = t.getContextClassLoader();
    HybridCachingProvider provider = new HybridCachingProvider();
    try (URLClassLoader a = new URLClassLoader(new URL[] {classes}, getClass().getClassLoader());
        URLClassLoader b = new URLClassLoader(new URL[] {classes}, getClass().getClassLoader());
        CacheManager m = provider.getCacheManager(URI.create("test:redeploy"), null,
            TestManagers.small(dir.resolve("redeploy")))) {
      Cache<String, Object> orders = m.createCache("orders", new MutableConfiguration<String, Object>());
      try {
        t.setContextClassLoader(a);
        orders.put("1", a.loadClass("p.Order").getConstructor().newInstance());
        assertSame(a, orders.get("1").getClass().getClassLoader(), "A's read");
        t.setContextClassLoader(b);
        assertSame(b, orders.get("1").getClass().getClassLoader(),
            "after a redeploy the read got the previous context loader's class");
        orders.put("2", b.loadClass("p.Order").getConstructor().newInstance());
        assertSame(b, orders.get("2").getClass().getClassLoader(), "B's own entry");
      } finally {
        t.setContextClassLoader(saved);
      }
    }
  }

  /**
   * Makes a manager of {@code loader} with a store-by-value cache of a type of that loader, uses it, and drops
   * it. (No {@code p.Order} is serialized: the JDK's own serialization caches hold what they saw by soft
   * reference, which a GC clears only under memory pressure, whatever the provider does.)
   */
  private static void useAndDrop(HybridCachingProvider provider, ClassLoader loader, Properties p) throws Exception {
    CacheManager m = provider.getCacheManager(URI.create("test:dropped"), loader, p);
    Cache<String, Object> c = m.getCache("orders");
    assertSame(loader, c.getConfiguration(CompleteConfiguration.class).getValueType().getClassLoader());
    assertNull(c.get("o"));
    Cache<String, String> any = m.createCache("any", new MutableConfiguration<String, String>());
    any.put("s", "a String");
    assertNotNull(any.get("s"));
  }

  @Test
  void aManagerDroppedWithoutCloseDoesNotPinItsClassLoader() throws Exception {
    URL classes = compiled("Order", "package p; public class Order implements java.io.Serializable {}");
    HybridCachingProvider provider = new HybridCachingProvider();
    Properties p = TestManagers.small(dir.resolve("dropped"));
    p.setProperty("cache.orders.value-type", "p.Order");
    p.setProperty("cache.orders.statistics", "true");
    URLClassLoader loader = new URLClassLoader(new URL[] {classes}, getClass().getClassLoader());
    ReferenceQueue<ClassLoader> queue = new ReferenceQueue<>();
    WeakReference<ClassLoader> ref = new WeakReference<>(loader, queue);
    useAndDrop(provider, loader, p);
    loader.close();
    loader = null;
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (ref.get() != null && System.nanoTime() < end) {
      System.gc();
      queue.remove(100); // a bounded wait for the collector
    }
    assertNull(ref.get(), "the class loader of a manager dropped without close is still reachable");
    // the collected manager's resources are closed by the provider's Cleaner: its engine, and its caches' MBeans
    end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (SharedEngine.isOpen(dir.resolve("dropped")) && System.nanoTime() < end) {
      System.gc();
      queue.remove(100); // a bounded wait for the Cleaner
    }
    assertFalse(SharedEngine.isOpen(dir.resolve("dropped")), "the dropped manager's engine was closed");
    assertTrue(java.lang.management.ManagementFactory.getPlatformMBeanServer()
        .queryNames(new javax.management.ObjectName("javax.cache:CacheManager=test.dropped,*"), null).isEmpty(),
        "the dropped manager's caches' MBeans were unregistered");
    provider.close();
  }

  @Test
  void unknownTopLevelPropertiesFailTheManagerNamingTheKnownOnes() {
    Properties p = TestManagers.small(dir.resolve("typo"));
    p.setProperty("dram-byte", "2m");
    Exception e = assertThrows(RuntimeException.class,
        () -> new HybridCachingProvider().getCacheManager(URI.create("test:typo"), getClass().getClassLoader(), p));
    assertTrue(e.getMessage().contains("dram-byte") && e.getMessage().contains("dram-bytes")
        && e.getMessage().contains("flash-bytes"), e.getMessage());
  }

  @Test
  void springsNullValueWithADeclaredValueTypeIsStored() {
    try (CacheManager m = open(new HybridCachingProvider())) {
      for (boolean byValue : new boolean[] {true, false}) {
        @SuppressWarnings({"unchecked", "rawtypes"})
        Cache<Object, Object> typed = (Cache) m.createCache("typed-" + byValue,
            new MutableConfiguration<String, String>().setTypes(String.class, String.class).setStoreByValue(byValue));
        typed.put("absent", NullValue.INSTANCE); // Spring's JCacheCache for a null result
        assertSame(NullValue.INSTANCE, typed.get("absent"), "store-by-value " + byValue);
      }
    }
  }
}
