package io.hybridcache.jcache;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.RemovalCause;
import io.hybridcache.core.device.FileModes;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.cache.CacheException;

/**
 * One engine and namespace table per manager directory in this JVM, shared by every {@code CacheManager}
 * on that directory (one per class loader of the same URI) and closed when the last lets go. The engine
 * opens on the first {@link #acquire}: a manager whose caches are all store-by-reference never opens one.
 *
 * <p>Concurrency: the registry and the reference counts are guarded by the class lock.
 */
final class SharedEngine {
  private static final Map<Path, SharedEngine> OPEN = new HashMap<>();

  private final Path directory;
  private final HybridCache engine;
  private final Namespaces namespaces;
  /** Per namespace id: what to tell when the engine evicts one of its entries (a cache's statistics). */
  private final ConcurrentHashMap<Integer, EvictionSink> sinks;
  private int references;

  /** A cache told of its entries the engine evicted from both tiers. */
  interface EvictionSink {
    Namespace namespace();

    void evicted();
  }

  private SharedEngine(Path directory, HybridCache engine, Namespaces namespaces,
      ConcurrentHashMap<Integer, EvictionSink> sinks) {
    this.directory = directory;
    this.engine = engine;
    this.namespaces = namespaces;
    this.sinks = sinks;
  }

  /** The engine of {@code settings}' directory, opened (warm if it was used before) if none is open. */
  static synchronized SharedEngine acquire(ManagerSettings settings) {
    Path dir = settings.directory();
    SharedEngine shared = OPEN.get(dir);
    if (shared == null) {
      try {
        java.nio.file.Files.createDirectories(dir.getParent());
        FileModes.createDirectory(dir, PosixFilePermissions.fromString("rwx------"));
      } catch (IOException e) {
        throw new CacheException("cannot create the CacheManager directory " + dir, e);
      }
      ConcurrentHashMap<Integer, EvictionSink> sinks = new ConcurrentHashMap<>();
      CacheConfig config = settings.engineConfig().toBuilder()
          .removalListener((key, value, cause) -> {
            if (cause == RemovalCause.EVICTED) {
              evicted(sinks, key);
            }
          })
          .build();
      Namespaces namespaces = new Namespaces(dir);
      shared = new SharedEngine(dir, HybridCache.open(config), namespaces, sinks);
      OPEN.put(dir, shared);
    }
    shared.references++;
    return shared;
  }

  /** Lets go of this engine; the last release closes it (a clean close: the next open is warm). */
  void release() {
    synchronized (SharedEngine.class) {
      if (--references > 0) {
        return;
      }
      OPEN.remove(directory);
    }
    engine.close();
  }

  /** Counts an eviction for the cache whose current namespace epoch {@code key} is of. */
  private static void evicted(Map<Integer, EvictionSink> sinks, byte[] key) {
    int[] ns = Namespace.idAndEpoch(key);
    EvictionSink sink = ns == null ? null : sinks.get(ns[0]);
    if (sink != null && sink.namespace().epoch() == ns[1]) {
      sink.evicted();
    }
  }

  /** Tells {@code sink} of its namespace's evictions until {@link #unwatch}. */
  void watch(EvictionSink sink) {
    sinks.put(sink.namespace().id(), sink);
  }

  void unwatch(EvictionSink sink) {
    sinks.remove(sink.namespace().id(), sink);
  }

  HybridCache engine() { return engine; }
  Namespaces namespaces() { return namespaces; }
}
