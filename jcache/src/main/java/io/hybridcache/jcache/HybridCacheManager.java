package io.hybridcache.jcache;

import io.hybridcache.core.api.Codec;
import io.hybridcache.core.api.HybridCache;
import java.lang.ref.WeakReference;
import java.net.URI;
import java.nio.file.Files;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.Configuration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.spi.CachingProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JCache {@link CacheManager}: the caches of one URI and class loader, all in one hybridcache engine
 * (opened with the first store-by-value cache, in the directory the settings name) and served by one
 * thread pool (asynchronous listeners, {@code loadAll}). Thread-safe: the cache table is concurrent;
 * creating, destroying and closing are serialized by {@code this}.
 *
 * <p>Budgets: the manager's DRAM and flash budgets are shared by its caches, first come first served:
 * the engine's DRAM tier (W-TinyLFU) and flash tier (reclaim by garbage ratio) choose victims across
 * all namespaces, so a hot cache takes room from a cold one, as one cache's hot keys would.
 *
 * <p>Caches the settings declare ({@code cache.NAME.*}) are created with the manager. Managers of one URI
 * and different class loaders share the directory's engine; the first to open it owns the durable
 * namespaces, the caches of the others are their own and start empty ({@link SharedEngine}).
 */
final class HybridCacheManager implements CacheManager {
  private static final Logger LOG = LoggerFactory.getLogger(HybridCacheManager.class);
  private static final java.lang.ref.Cleaner CLEANER = java.lang.ref.Cleaner.create();

  private final HybridCachingProvider provider;
  private final URI uri;
  private final WeakReference<ClassLoader> classLoader;
  private final Properties properties;
  private final ManagerSettings settings;
  private final SerialFilter serialFilter;
  private final ConcurrentHashMap<String, HybridJCache<?, ?>> caches = new ConcurrentHashMap<>();
  private final ManagerResources resources;
  private final java.lang.ref.Cleaner.Cleanable cleanable;
  private final Thread shutdownHook;
  /** The eviction sinks of the open store-by-value caches, by name. */
  private final ConcurrentHashMap<String, SharedEngine.EvictionSink> sinks = new ConcurrentHashMap<>();
  private volatile boolean closed;

  HybridCacheManager(HybridCachingProvider provider, URI uri, ClassLoader classLoader, Properties properties) {
    this.provider = provider;
    this.uri = uri;
    this.classLoader = new WeakReference<>(classLoader);
    this.properties = new Properties();
    if (properties != null) {
      this.properties.putAll(properties);
    }
    this.settings = ManagerSettings.resolve(uri, classLoader, this.properties);
    this.serialFilter = SerialFilter.of(settings.serialFilter());
    this.resources = new ManagerResources(settings);
    this.cleanable = CLEANER.register(this, resources); // a manager dropped without close lets go of its engine
    this.shutdownHook = settings.shutdownHook() ? new Thread(this::close, "hybridcache-jcache-shutdown") : null;
    LOG.info("CacheManager {} (class loader {}, provider {}): {}", uri, classLoader, System.identityHashCode(provider), settings.describe());
    if (settings.cacheVersion() != null && settings.cacheVersion().contains("${")) {
      LOG.warn("CacheManager {}: cache-version is {}, a placeholder nothing replaced (is Maven resource filtering "
          + "on for the provider's file?): a constant, so a deploy never starts the caches empty", uri,
          settings.cacheVersion());
    }
    if (shutdownHook != null) {
      Runtime.getRuntime().addShutdownHook(shutdownHook);
    }
    createDeclared();
  }

  /**
   * Creates the caches the settings declare ({@code cache.NAME.*}); if one fails, the manager is closed and
   * the error (naming the property and its value) is thrown.
   */
  private void createDeclared() {
    try {
      for (String name : settings.caches().declared()) {
        createCache(name, settings.caches().declaredConfiguration(name, loader()));
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  @Override
  public CachingProvider getCachingProvider() {
    return provider;
  }

  @Override
  public URI getURI() {
    return uri;
  }

  @Override
  public ClassLoader getClassLoader() {
    return classLoader.get();
  }

  @Override
  public Properties getProperties() {
    return properties;
  }

  @Override
  @SuppressWarnings("unchecked")
  public synchronized <K, V, C extends Configuration<K, V>> Cache<K, V> createCache(String cacheName, C configuration) {
    requireOpen();
    Objects.requireNonNull(cacheName, "cacheName");
    Objects.requireNonNull(configuration, "configuration");
    if (caches.containsKey(cacheName)) {
      if (settings.caches().declared().contains(cacheName)) {
        throw declaredTwice(cacheName);
      }
      throw new CacheException("a cache named " + cacheName + " exists already in " + uri);
    }
    settings.caches().checkName(cacheName);
    HybridCacheConfiguration<K, V> config = copy(configuration);
    settings.caches().applyTo(cacheName, config);
    warnOfHibernateRegion(cacheName, config);
    java.util.concurrent.atomic.AtomicReference<HybridJCache<K, V>> made = new java.util.concurrent.atomic.AtomicReference<>();
    Store<K, V> store;
    Statistics statistics = new Statistics();
    HybridCache shared = null;
    Namespace namespace = null;
    if (config.isStoreByValue()) {
      SharedEngine.Lease l = lease();
      SharedEngine e = l.shared();
      shared = e.engine();
      // keys as standard streams: their bytes are what the engine finds them by, so they must not depend on the table
      Codec<K> keys = codec(config.getKeyCodec(), cacheName, "key", config.getKeyType(), null);
      Codec<V> values = codec(config.getValueCodec(), cacheName, "value", config.getValueType(), e.descriptors());
      if (settings.caches().get(cacheName, "max-entries") != null) {
        throw new IllegalArgumentException(ProviderProperties.CACHE_PREFIX + cacheName + ".max-entries applies only to a "
            + "store-by-reference cache (cache." + cacheName + ".store-by-reference=true); a store-by-value cache "
            + "shares the manager's dram-bytes and flash-bytes, was " + settings.caches().get(cacheName, "max-entries"));
      }
      namespace = namespaceOf(e.namespaces(), l, cacheName, settings.caches().startsEmpty(cacheName));
      capped(e, namespace, cacheName, statistics);
      store = new ValueStore<>(shared, e.namespaces(), namespace, keys, values,
          new Oversized(cacheName, statistics, shared.config()), loader());
    } else {
      store = new ReferenceStore<>(settings.caches().maxEntries(cacheName), System::nanoTime, () -> {
        HybridJCache<K, V> c = made.get();
        if (c != null) {
          c.evicted(false);
        }
      });
    }
    HybridJCache<K, V> cache = new HybridJCache<>(this, cacheName, config, store, shared, pool(), statistics);
    made.set(cache);
    caches.put(cacheName, cache);
    if (namespace != null) {
      SharedEngine.EvictionSink sink = sinkOf(namespace, new WeakReference<>(cache));
      sinks.put(cacheName, sink);
      resources.lease().shared().watch(sink);
    }
    return cache;
  }

  /**
   * Gives the engine the caps of cache {@code cacheName} ({@code cache.NAME.dram-bytes}, {@code flash-bytes}, or
   * {@code cache.default}'s), and its statistics the bytes it holds (-1 for a cache without caps).
   */
  private void capped(SharedEngine e, Namespace ns, String cacheName, Statistics statistics) {
    NamespaceGroups groups = e.groups();
    if (groups == null) {
      return;
    }
    long dram = settings.caches().budget(cacheName, "dram-bytes", settings.dramBytes());
    long flash = settings.caches().budget(cacheName, "flash-bytes", settings.flashBytes());
    groups.cap(ns, dram, flash);
    if (dram != Long.MAX_VALUE || flash != Long.MAX_VALUE) {
      HybridCache engine = e.engine();
      statistics.held(() -> engine.dramBytesOf(NamespaceGroups.groupOf(ns)),
          () -> engine.flashBytesOf(NamespaceGroups.groupOf(ns)));
    }
  }

  /**
   * WARNs of a Hibernate region configured so that a cached query result could be stale: the update-timestamps
   * region store-by-value (evictable; warm after a restart, or empty beside a warm query-results region), or
   * the query-results region warm (checked after a restart against timestamps that start empty).
   */
  private void warnOfHibernateRegion(String cacheName, CompleteConfiguration<?, ?> config) {
    HibernateRegion region = HibernateRegion.of(cacheName);
    if (region == HibernateRegion.UPDATE_TIMESTAMPS && config.isStoreByValue()) {
      LOG.warn("cache {} is Hibernate's update-timestamps region and is store-by-value: the engine may evict its "
          + "entries, and a lost timestamp lets a stale cached query result through; leave it store-by-reference "
          + "(the default: remove {}{}.store-by-reference=false)", cacheName, ProviderProperties.CACHE_PREFIX, cacheName);
    } else if (region == HibernateRegion.QUERY_RESULTS && config.isStoreByValue()
        && !settings.caches().startsEmpty(cacheName)) {
      LOG.warn("cache {} is Hibernate's query-results region and is warm: after a restart its results are checked "
          + "against update timestamps that start empty, so a result cached before rows changed can be served; "
          + "remove {}{}.warm=true or clear-on-start=false", cacheName, ProviderProperties.CACHE_PREFIX, cacheName);
    }
  }

  /**
   * What the engine tells of {@code cache}'s evictions. Static and weak: the engine is held by a static registry
   * and must reach neither the manager nor the cache (their configuration's types would pin the manager's class
   * loader for as long as the engine is open).
   */
  private static SharedEngine.EvictionSink sinkOf(Namespace ns, WeakReference<HybridJCache<?, ?>> cache) {
    return new SharedEngine.EvictionSink() {
      @Override
      public Namespace namespace() {
        return ns;
      }

      @Override
      public void evicted(boolean refused) {
        HybridJCache<?, ?> c = cache.get();
        if (c != null) {
          c.evicted(refused);
        }
      }
    };
  }

  /**
   * The refusal of {@code createCache} for a cache the file declares: a {@link CacheException} only, as for any
   * existing name. The manager stays open: Spring and Hibernate share it, and "try createCache, catch
   * CacheException, getCache" (or a racing creator) must not close every cache of both.
   */
  private CacheException declaredTwice(String cacheName) {
    return new CacheException("cache " + cacheName + " is declared in " + uri + " (" + ProviderProperties.CACHE_PREFIX
        + cacheName + ".* properties) and so exists already: declare a cache in the provider's file or list it in "
        + "spring.cache.cache-names (or create it in code), never both");
  }

  /**
   * The {@code role} ("key" or "value") codec of a cache: given in code, named by {@code cache.NAME.ROLE-codec},
   * else by type. One that serializes is checked against {@code serial-filter} ({@link SerialFilter#admit}).
   */
  private <T> Codec<T> codec(Codec<T> given, String cacheName, String role, Class<T> type,
      ClassDescriptors descriptors) {
    if (given != null) {
      return given;
    }
    String named = settings.caches().get(cacheName, role + "-codec");
    ClassLoader loader = loader();
    Codec<T> codec = named != null ? Codecs.named(named, loader, serialFilter, descriptors)
        : Codecs.forType(type, loader, serialFilter, descriptors);
    if (codec instanceof SerializingCodec) {
      String declared = role + "-type";
      serialFilter.admit(cacheName, settings.caches().get(cacheName, declared) != null
          ? ProviderProperties.CACHE_PREFIX + cacheName + "." + declared : "the " + role + " type", type);
    }
    return codec;
  }

  @SuppressWarnings("unchecked")
  private static <K, V> HybridCacheConfiguration<K, V> copy(Configuration<K, V> c) {
    if (c instanceof CompleteConfiguration) {
      return new HybridCacheConfiguration<>((CompleteConfiguration<K, V>) c);
    }
    HybridCacheConfiguration<K, V> m = new HybridCacheConfiguration<>();
    m.setTypes(c.getKeyType(), c.getValueType());
    m.setStoreByValue(c.isStoreByValue());
    return m;
  }

  private ClassLoader loader() {
    ClassLoader l = classLoader.get();
    return l != null ? l : HybridCacheManager.class.getClassLoader();
  }

  /**
   * The namespace of cache {@code cacheName} of this manager. A manager in slot 0 (the first open on its
   * directory) uses the cache's durable namespace, warm from earlier runs; another manager's namespace is
   * its own and starts empty (emptied if an earlier manager of that slot left entries). A cache that
   * {@link CacheSettings#startsEmpty starts empty} (created on demand, Hibernate's query-results region,
   * {@code clear-on-start}) gets a new epoch of its namespace.
   */
  private static Namespace namespaceOf(Namespaces namespaces, SharedEngine.Lease lease, String cacheName,
      boolean startsEmpty) {
    String name = lease.namespaceName(cacheName);
    Namespace earlier = lease.slot() == 0 && !startsEmpty ? null : namespaces.find(name);
    if (earlier != null) {
      namespaces.bump(earlier);
      return earlier;
    }
    return namespaces.of(name);
  }

  /** The names of its caches' MBeans ({@link ManagerResources#mbeanNames}). */
  java.util.Set<javax.management.ObjectName> mbeanNames() {
    return resources.mbeanNames();
  }

  private SharedEngine.Lease lease() {
    return resources.lease();
  }

  /** The namespace table of this manager's directory (tests: its write counts). */
  Namespaces namespaces() {
    return lease().shared().namespaces();
  }

  private java.util.concurrent.Executor pool() {
    return resources.pool(classLoader::get);
  }

  @Override
  @SuppressWarnings("unchecked")
  public <K, V> Cache<K, V> getCache(String cacheName, Class<K> keyType, Class<V> valueType) {
    requireOpen();
    Objects.requireNonNull(cacheName, "cacheName");
    Objects.requireNonNull(keyType, "keyType");
    Objects.requireNonNull(valueType, "valueType");
    HybridJCache<?, ?> cache = caches.get(cacheName);
    if (cache == null) {
      return null;
    }
    if (!keyType.equals(cache.keyType())) {
      throw new ClassCastException("cache " + cacheName + " has keys of " + cache.keyType() + ", not " + keyType);
    }
    if (!valueType.equals(cache.valueType())) {
      throw new ClassCastException("cache " + cacheName + " has values of " + cache.valueType() + ", not " + valueType);
    }
    return (Cache<K, V>) cache;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <K, V> Cache<K, V> getCache(String cacheName) {
    requireOpen();
    Objects.requireNonNull(cacheName, "cacheName");
    return (Cache<K, V>) caches.get(cacheName);
  }

  @Override
  public Iterable<String> getCacheNames() {
    requireOpen();
    return Collections.unmodifiableSet(new LinkedHashSet<>(caches.keySet()));
  }

  /**
   * Empties the cache (a new namespace epoch: no scan) and closes it. A cache this manager has not opened
   * but whose entries the directory holds from an earlier run is emptied too, so that creating it again
   * starts empty.
   */
  @Override
  public synchronized void destroyCache(String cacheName) {
    requireOpen();
    Objects.requireNonNull(cacheName, "cacheName");
    HybridJCache<?, ?> cache = caches.get(cacheName);
    if (cache != null) {
      cache.clear();
      cache.close();
    } else if (resources.leaseIfOpen() != null || Files.exists(settings.directory().resolve(Namespaces.FILE))) {
      SharedEngine.Lease l = lease();
      Namespace ns = l.shared().namespaces().find(l.namespaceName(cacheName));
      if (ns != null) {
        l.shared().namespaces().bump(ns);
      }
    }
  }

  @Override
  public void enableManagement(String cacheName, boolean enabled) {
    requireOpen();
    Objects.requireNonNull(cacheName, "cacheName");
    HybridJCache<?, ?> cache = caches.get(cacheName);
    if (cache != null) {
      cache.setManagementEnabled(enabled);
    }
  }

  @Override
  public void enableStatistics(String cacheName, boolean enabled) {
    requireOpen();
    Objects.requireNonNull(cacheName, "cacheName");
    HybridJCache<?, ?> cache = caches.get(cacheName);
    if (cache != null) {
      cache.setStatisticsEnabled(enabled);
    }
  }

  /** Called by a closing cache. */
  void release(HybridJCache<?, ?> cache) {
    if (caches.remove(cache.getName(), cache)) {
      SharedEngine.EvictionSink sink = sinks.remove(cache.getName());
      if (sink != null) {
        resources.lease().shared().unwatch(sink);
      }
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    provider.release(this);
    long drainDeadline = System.nanoTime() + settings.drainNanos();
    for (HybridJCache<?, ?> cache : caches.values()) {
      try {
        cache.close(drainDeadline);
      } catch (RuntimeException e) {
        LOG.warn("closing cache {} of {} failed", cache.getName(), uri, e);
      }
    }
    resources.close(drainDeadline);
    cleanable.clean(); // done: nothing left for the collector's clean-up
    if (shutdownHook != null && Thread.currentThread() != shutdownHook) {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException e) {
        // the JVM is shutting down
      }
    }
  }

  /** How long a cache's close waits for its asynchronous listeners (the manager's drain time). */
  long drainNanos() {
    return settings.drainNanos();
  }

  @Override
  public boolean isClosed() {
    return closed;
  }

  /** This manager, or its engine ({@link HybridCache}, shared by its store-by-value caches). */
  @Override
  public <T> T unwrap(Class<T> clazz) {
    if (clazz.isInstance(this)) {
      return clazz.cast(this);
    }
    if (clazz == HybridCache.class) {
      requireOpen();
      return clazz.cast(lease().shared().engine());
    }
    throw new IllegalArgumentException("a CacheManager does not unwrap to " + clazz.getName());
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException("CacheManager " + uri + " is closed");
    }
  }

  @Override
  public String toString() {
    return "HybridCacheManager{" + uri + ", " + settings + "}";
  }
}
