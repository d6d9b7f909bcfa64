package io.hybridcache.jcache;

import java.lang.ref.WeakReference;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.WeakHashMap;
import javax.cache.CacheManager;
import javax.cache.configuration.OptionalFeature;
import javax.cache.spi.CachingProvider;

/**
 * The JCache provider (registered in {@code META-INF/services/javax.cache.spi.CachingProvider}): one
 * {@code CacheManager} per URI and class loader, each with a hybridcache engine in its directory
 * (settings: {@link ProviderProperties}; without a configured directory a private one, deleted at close);
 * managers on one configured directory with different class loaders share that engine but not their caches
 * ({@code SharedEngine}). Store-by-reference is supported (such caches stay on the
 * heap). Thread-safe (synchronized).
 */
public final class HybridCachingProvider implements CachingProvider {
  /** The default URI: managers asked for without one use it (its directory: a private one unless configured). */
  public static final URI DEFAULT_URI = URI.create(HybridCachingProvider.class.getName());

  private final WeakHashMap<ClassLoader, Map<URI, Held>> managers = new WeakHashMap<>();
  private final ClassLoader defaultLoader = new ContextFirstClassLoader(HybridCachingProvider.class.getClassLoader());

  /**
   * A manager as the provider holds it: strongly if its class loader lives as long as the provider (the
   * default loader, the provider's own or one of its parents), else weakly, so that a manager of an
   * application's loader dropped without close does not pin that loader (its caches' types would); such a
   * manager is closed by the collector ({@code ManagerResources}).
   */
  private record Held(HybridCacheManager strong, WeakReference<HybridCacheManager> weak) {
    HybridCacheManager get() {
      return strong != null ? strong : weak.get();
    }
  }

  @Override
  public synchronized CacheManager getCacheManager(URI uri, ClassLoader classLoader, Properties properties) {
    URI u = uri == null ? getDefaultURI() : uri;
    // the provider's own loader is the default loader's last resort: one manager for both (Spring Boot passes
    // the application's loader, which is the provider's, and Hibernate the default loader: one engine, one
    // set of namespaces, not a second manager whose caches start empty)
    ClassLoader l = key(classLoader);
    Map<URI, Held> byUri = managers.computeIfAbsent(l, k -> new HashMap<>());
    Held held = byUri.get(u);
    HybridCacheManager m = held == null ? null : held.get();
    if (m == null || m.isClosed()) {
      m = new HybridCacheManager(this, u, l, properties);
      byUri.put(u, livesWithProvider(l) ? new Held(m, null) : new Held(null, new WeakReference<>(m)));
    }
    return m;
  }

  /**
   * The loader a manager of {@code classLoader} is kept under: the default loader for null and for the
   * provider's own loader (the default loader's last resort), so both name one manager; else itself.
   */
  private ClassLoader key(ClassLoader classLoader) {
    return classLoader == null || classLoader == HybridCachingProvider.class.getClassLoader()
        ? getDefaultClassLoader() : classLoader;
  }

  /** Whether {@code l} is the default loader, the provider's own or a parent of it. */
  private boolean livesWithProvider(ClassLoader l) {
    if (l == defaultLoader) {
      return true;
    }
    for (ClassLoader own = HybridCachingProvider.class.getClassLoader(); own != null; own = own.getParent()) {
      if (own == l) {
        return true;
      }
    }
    return false;
  }

  @Override
  public CacheManager getCacheManager(URI uri, ClassLoader classLoader) {
    return getCacheManager(uri, classLoader, getDefaultProperties());
  }

  @Override
  public CacheManager getCacheManager() {
    return getCacheManager(getDefaultURI(), getDefaultClassLoader());
  }

  /**
   * One loader per provider that tries the calling thread's context class loader first, then the provider's
   * own ({@link ContextFirstClassLoader}), as Ehcache's default loader does.
   */
  @Override
  public ClassLoader getDefaultClassLoader() {
    return defaultLoader;
  }

  @Override
  public URI getDefaultURI() {
    return DEFAULT_URI;
  }

  @Override
  public Properties getDefaultProperties() {
    return new Properties();
  }

  @Override
  public void close() {
    for (HybridCacheManager m : all(null)) {
      m.close();
    }
  }

  @Override
  public void close(ClassLoader classLoader) {
    for (HybridCacheManager m : all(key(classLoader))) {
      m.close();
    }
  }

  @Override
  public void close(URI uri, ClassLoader classLoader) {
    HybridCacheManager m;
    synchronized (this) {
      Map<URI, Held> byUri = managers.get(key(classLoader));
      Held held = byUri == null ? null : byUri.get(uri == null ? getDefaultURI() : uri);
      m = held == null ? null : held.get();
    }
    if (m != null) {
      m.close();
    }
  }

  private synchronized java.util.List<HybridCacheManager> all(ClassLoader only) {
    java.util.List<HybridCacheManager> list = new java.util.ArrayList<>();
    for (Map.Entry<ClassLoader, Map<URI, Held>> e : managers.entrySet()) {
      if (only == null || e.getKey() == only) {
        for (Held h : e.getValue().values()) {
          HybridCacheManager m = h.get();
          if (m != null) {
            list.add(m);
          }
        }
      }
    }
    return list;
  }

  /** Called by a closing manager: a later request for its URI and loader makes a new one. */
  synchronized void release(HybridCacheManager m) {
    Map<URI, Held> byUri = managers.get(m.getClassLoader());
    if (byUri != null) {
      Held h = byUri.get(m.getURI());
      if (h != null && h.get() == m) {
        byUri.remove(m.getURI());
      }
      if (byUri.isEmpty()) {
        managers.remove(m.getClassLoader());
      }
    }
  }

  @Override
  public boolean isSupported(OptionalFeature feature) {
    return feature == OptionalFeature.STORE_BY_REFERENCE;
  }
}
