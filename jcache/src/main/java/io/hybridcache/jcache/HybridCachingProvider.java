package io.hybridcache.jcache;

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

  private final WeakHashMap<ClassLoader, Map<URI, HybridCacheManager>> managers = new WeakHashMap<>();

  @Override
  public synchronized CacheManager getCacheManager(URI uri, ClassLoader classLoader, Properties properties) {
    URI u = uri == null ? getDefaultURI() : uri;
    ClassLoader l = classLoader == null ? getDefaultClassLoader() : classLoader;
    Map<URI, HybridCacheManager> byUri = managers.computeIfAbsent(l, k -> new HashMap<>());
    HybridCacheManager m = byUri.get(u);
    if (m == null || m.isClosed()) {
      m = new HybridCacheManager(this, u, l, properties);
      byUri.put(u, m);
    }
    return m;
  }

  @Override
  public CacheManager getCacheManager(URI uri, ClassLoader classLoader) {
    return getCacheManager(uri, classLoader, getDefaultProperties());
  }

  @Override
  public CacheManager getCacheManager() {
    return getCacheManager(getDefaultURI(), getDefaultClassLoader());
  }

  @Override
  public ClassLoader getDefaultClassLoader() {
    return getClass().getClassLoader();
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
    for (HybridCacheManager m : all(classLoader == null ? getDefaultClassLoader() : classLoader)) {
      m.close();
    }
  }

  @Override
  public void close(URI uri, ClassLoader classLoader) {
    HybridCacheManager m;
    synchronized (this) {
      Map<URI, HybridCacheManager> byUri = managers.get(classLoader == null ? getDefaultClassLoader() : classLoader);
      m = byUri == null ? null : byUri.get(uri == null ? getDefaultURI() : uri);
    }
    if (m != null) {
      m.close();
    }
  }

  private synchronized java.util.List<HybridCacheManager> all(ClassLoader only) {
    java.util.List<HybridCacheManager> list = new java.util.ArrayList<>();
    for (Map.Entry<ClassLoader, Map<URI, HybridCacheManager>> e : managers.entrySet()) {
      if (only == null || e.getKey() == only) {
        list.addAll(e.getValue().values());
      }
    }
    return list;
  }

  /** Called by a closing manager: a later request for its URI and loader makes a new one. */
  synchronized void release(HybridCacheManager m) {
    Map<URI, HybridCacheManager> byUri = managers.get(m.getClassLoader());
    if (byUri != null) {
      byUri.remove(m.getURI(), m);
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
