package io.hybridcache.jcache;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.RemovalCause;
import io.hybridcache.core.device.FileModes;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.cache.CacheException;

/**
 * One engine and namespace table per manager directory in this JVM, shared by every {@code CacheManager}
 * on that directory (one per class loader of the same URI) and closed when the last lets go. The engine
 * opens on the first {@link #acquire}: a manager whose caches are all store-by-reference never opens one.
 *
 * <p>Each manager holding the engine has a slot: the lowest free one, 0 for the first. Slot 0's caches use
 * the directory's durable namespaces (the cache's name: what a restart finds warm); a manager of another
 * slot (the same URI with another class loader, open at the same time) gets namespaces of its own for its
 * caches ({@link #namespaceName}), so caches of different managers are distinct, as JSR-107 asks.
 *
 * <p>Concurrency: the registry, the reference counts and the slots are guarded by the class lock.
 */
final class SharedEngine {
  private static final Map<Path, SharedEngine> OPEN = new HashMap<>();

  private final Path directory;
  private final HybridCache engine;
  private final Namespaces namespaces;
  /** Per namespace id: what to tell when the engine evicts one of its entries (a cache's statistics). */
  private final ConcurrentHashMap<Integer, EvictionSink> sinks;
  private int references;
  private final BitSet slots = new BitSet();

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

  /** A manager's hold on a shared engine: the engine and the manager's slot. */
  record Lease(SharedEngine shared, int slot) {
    /** The namespace name of cache {@code cacheName} for this lease's manager. */
    String namespaceName(String cacheName) {
      return SharedEngine.namespaceName(cacheName, slot);
    }

    /** Lets go of the engine and the slot; the last release closes the engine. */
    void release() {
      shared.release(slot);
    }
  }

  /**
   * The namespace name of cache {@code cacheName} of the manager in {@code slot}: the name itself for slot 0,
   * else the name, a NUL and the slot (no cache name of slot 0 can be one of these).
   */
  static String namespaceName(String cacheName, int slot) {
    return slot == 0 ? cacheName : cacheName + '\0' + slot;
  }

  /**
   * The engine of {@code settings}' directory, opened (warm if it was used before) if none is open, and a
   * slot for the caller.
   */
  static synchronized Lease acquire(ManagerSettings settings) {
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
    int slot = shared.slots.nextClearBit(0);
    shared.slots.set(slot);
    return new Lease(shared, slot);
  }

  /** Lets go of this engine; the last release closes it (a clean close: the next open is warm). */
  private void release(int slot) {
    synchronized (SharedEngine.class) {
      slots.clear(slot);
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
