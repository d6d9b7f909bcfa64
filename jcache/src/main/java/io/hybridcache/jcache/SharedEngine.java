package io.hybridcache.jcache;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.device.AtomicFile;
import io.hybridcache.core.device.DirectoryLock;
import io.hybridcache.core.device.FileModes;
import io.hybridcache.core.device.TrustedDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.cache.CacheException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One engine and namespace table per manager directory in this JVM, shared by every {@code CacheManager}
 * on that directory (one per class loader of the same URI) and closed when the last lets go. The engine
 * opens on the first {@link #acquire}: a manager whose caches are all store-by-reference never opens one.
 *
 * <p>Only managers of one URI share an engine: a manager of another URI on an open engine's directory fails.
 *
 * <p>Each manager holding the engine has a slot: the lowest free one, 0 for the first. Slot 0's caches use
 * the directory's durable namespaces (the cache's name: what a restart finds warm); a manager of another
 * slot (the same URI with another class loader, open at the same time) gets namespaces of its own for its
 * caches ({@link #namespaceName}), so caches of different managers are distinct, as JSR-107 asks.
 *
 * <p>The directory: a configured one is made 0700 if absent, and refused if it exists and belongs to
 * another user or its group or others may write it ({@code TrustedDirectory}; its mode is not changed, so a
 * group read a backup agent needs stays); a private one must be new. Then the
 * process takes the directory's {@code LOCK} (before the namespace table is read), so a second process on it
 * fails, told that each process needs its own directory. The namespace table is read after the engine opens
 * ({@link Namespaces#open}: checked against the mark the engine's directory keeps, {@link EngineMark}, and the
 * {@code cache-version}). A private directory is deleted at the last release: the mark, the engine's own
 * files ({@code HybridCache.deleteFiles}), the namespace table, the class descriptors ({@link ClassDescriptors}),
 * the lock. Before making one, the private
 * directories beside it that processes killed with them open left behind are deleted ({@link AbandonedDirectories}).
 *
 * <p>Concurrency: the registry, the reference counts and the slots are guarded by the class lock.
 */
final class SharedEngine {
  private static final Logger LOG = LoggerFactory.getLogger(SharedEngine.class);
  private static final Map<Path, SharedEngine> OPEN = new HashMap<>();
  /** Directories whose engine the last release is closing (and unlocking). */
  private static final java.util.Set<Path> CLOSING = new java.util.HashSet<>();

  private final Path directory;
  /** The URI of the managers on it: a manager of another URI is refused ({@link #requireSameUri}). */
  private final java.net.URI uri;
  private final boolean persistent;
  private final DirectoryLock lock;
  private final HybridCache engine;
  private final Namespaces namespaces;
  /** The compact serialization's class descriptors (values only). */
  private final ClassDescriptors descriptors;
  /** Per namespace id: what to tell when the engine evicts one of its entries (a cache's statistics). */
  private final ConcurrentHashMap<Integer, EvictionSink> sinks;
  /** The per-cache caps the engine enforces ({@code cache.NAME.dram-bytes|flash-bytes}), or null if none is set. */
  private final NamespaceGroups groups;
  private int references;
  private final BitSet slots = new BitSet();
  /** Tests: wraps each engine opened from now on (an instrumented engine that counts its calls); identity. */
  static volatile java.util.function.UnaryOperator<HybridCache> openedEngine = java.util.function.UnaryOperator.identity();

  /** A cache told of its entries the engine evicted from both tiers. */
  interface EvictionSink {
    Namespace namespace();

    /** One of the namespace's entries left both tiers; {@code refused}: a DRAM eviction flash did not take. */
    void evicted(boolean refused);
  }

  private SharedEngine(Path directory, java.net.URI uri, boolean persistent, DirectoryLock lock, HybridCache engine,
      Namespaces namespaces, ClassDescriptors descriptors, ConcurrentHashMap<Integer, EvictionSink> sinks,
      NamespaceGroups groups) {
    this.groups = groups;
    this.descriptors = descriptors;
    this.directory = directory;
    this.uri = uri;
    this.persistent = persistent;
    this.lock = lock;
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
  /** True while an engine is open on manager directory {@code dir}, or its last release is closing it (tests). */
  static synchronized boolean isOpen(Path dir) {
    return OPEN.containsKey(dir) || CLOSING.contains(dir);
  }

  static synchronized Lease acquire(ManagerSettings settings) {
    Path dir = settings.directory();
    SharedEngine shared = OPEN.get(dir);
    if (shared != null) {
      shared.requireSameUri(settings.uri());
    } else {
      if (!settings.persistent()) {
        AbandonedDirectories.sweep(dir);
      }
      DirectoryLock lock = lockDirectory(dir, settings.persistent());
      try {
        ConcurrentHashMap<Integer, EvictionSink> sinks = new ConcurrentHashMap<>();
        NamespaceGroups groups = settings.caches().hasBudgets() ? new NamespaceGroups() : null;
        CacheConfig config = settings.engineConfig().toBuilder()
            .keyGroups(groups) // none without a per-cache budget: the engine counts nothing
            .evictionHook(hookOf(sinks)) // by key only: no value, no device read, no task per entry
            .evictionKeyBytes(CacheConfig.MAX_EVICTION_KEY_BYTES) // a namespace prefix (two varints) fits
            .build();
        boolean engineExisted = Files.exists(config.directory());
        HybridCache engine;
        try {
          engine = openedEngine.apply(HybridCache.open(config));
        } catch (RuntimeException e) {
          throw new CacheException("cannot open the engine of CacheManager directory " + dir + ": " + e.getMessage(), e);
        }
        Namespaces namespaces;
        try {
          namespaces = Namespaces.open(dir, config.directory(), settings.cacheVersion(), engineExisted,
              config.durability() == io.hybridcache.core.api.Durability.POWER, engine::clear);
        } catch (RuntimeException | Error e) {
          try {
            engine.close();
          } catch (RuntimeException suppressed) {
            e.addSuppressed(suppressed);
          }
          throw e;
        }
        ClassDescriptors descriptors;
        try {
          descriptors = ClassDescriptors.open(dir);
        } catch (IOException | RuntimeException e) {
          try {
            engine.close();
          } catch (RuntimeException suppressed) {
            e.addSuppressed(suppressed);
          }
          throw new CacheException("cannot read " + dir.resolve(ClassDescriptors.FILE) + " (the class descriptors of"
              + " its serialized values): " + e.getMessage(), e);
        }
        shared = new SharedEngine(dir, settings.uri(), settings.persistent(), lock, engine, namespaces,
            descriptors, sinks, groups);
      } catch (RuntimeException | Error e) {
        unlock(dir, settings.persistent(), lock, e);
        throw e;
      }
      OPEN.put(dir, shared);
    }
    shared.references++;
    int slot = shared.slots.nextClearBit(0);
    shared.slots.set(slot);
    return new Lease(shared, slot);
  }

  /**
   * Refuses a manager of another URI than the one this engine is open for: its caches would silently become
   * another manager's second slot (empty at every start, its budgets ignored). A directory given by a system
   * property or the environment is what usually does it: those apply to every manager of the JVM.
   */
  private void requireSameUri(java.net.URI other) {
    if (!uri.equals(other)) {
      throw new CacheException("CacheManager " + other + " resolves to the directory " + directory + ", which the open "
          + "CacheManager " + uri + " uses already: two managers of different URIs cannot share a directory (the "
          + "second's caches would start empty at every start and its budgets be ignored). The -D"
          + ProviderProperties.SYSTEM_PREFIX + "* system properties and " + ProviderProperties.ENVIRONMENT_PREFIX
          + "* environment variables apply to every manager of the JVM: set directory in each URI's file or in "
          + "the Properties given to getCacheManager instead");
    }
  }

  /**
   * Makes (or checks) {@code dir} and takes its lock: a configured directory is made 0700 if absent, else
   * must be trusted; a private one must be new.
   */
  private static DirectoryLock lockDirectory(Path dir, boolean persistent) {
    Set<PosixFilePermission> mode = PosixFilePermissions.fromString("rwx------");
    try {
      Files.createDirectories(dir.getParent());
      boolean made = FileModes.createDirectory(dir, mode);
      if (!made && !persistent) {
        throw new IOException("the private directory " + dir + " exists already: not made by this manager");
      }
      if (!made && FileModes.supported(dir)) {
        TrustedDirectory.check(dir, mode); // no group or other write; a mode we did not set is left as it is
      }
    } catch (IOException e) {
      throw new CacheException("cannot use the CacheManager directory " + dir + ": " + e.getMessage(), e);
    }
    try {
      return DirectoryLock.acquire(dir, FileModes.supported(dir) ? PosixFilePermissions.fromString("rw-------") : null);
    } catch (IOException e) {
      throw new CacheException("cannot open the CacheManager directory " + dir + ": " + e.getMessage()
          + "; each process needs its own directory (give each instance of an application its own, e.g. "
          + "-D" + ProviderProperties.SYSTEM_PREFIX + ProviderProperties.DIRECTORY + "=... or "
          + ProviderProperties.ENVIRONMENT_PREFIX + "DIRECTORY; without one a manager gets a private directory)",
          e);
    }
  }

  /** Releases the lock of {@code dir}, deleting first what a private directory holds. */
  static void unlock(Path dir, boolean persistent, DirectoryLock lock, Throwable failure) {
    try {
      if (!persistent) {
        EngineMark.delete(dir.resolve("engine"));
        HybridCache.deleteFiles(dir.resolve("engine"));
        Files.deleteIfExists(dir.resolve(Namespaces.FILE));
        Files.deleteIfExists(dir.resolve(Namespaces.FILE + AtomicFile.TEMP_SUFFIX));
        ClassDescriptors.delete(dir);
        Files.deleteIfExists(dir.resolve(DirectoryLock.FILE)); // no one can open it: the lock is held
      }
    } catch (IOException | RuntimeException e) {
      if (failure != null) {
        failure.addSuppressed(e);
      } else {
        LOG.warn("cannot delete the private CacheManager directory {}; delete it by hand", dir, e);
      }
    } finally {
      try {
        lock.close();
        if (!persistent) {
          Files.deleteIfExists(dir); // fails, leaving it, if anything not made by the cache is in it
        }
      } catch (IOException e) {
        if (failure != null) {
          failure.addSuppressed(e);
        } else {
          LOG.warn("cannot release or delete the CacheManager directory {}", dir, e);
        }
      }
    }
  }

  /**
   * Lets go of this engine; the last release closes it (a clean close: the next open of a persistent
   * directory is warm) and deletes a private directory.
   */
  private void release(int slot) {
    synchronized (SharedEngine.class) {
      slots.clear(slot);
      if (--references > 0) {
        return;
      }
      OPEN.remove(directory);
      CLOSING.add(directory);
    }
    try {
      if (persistent) {
        namespaces.syncAtClose(); // before the engine's clean close, which makes it warm after a power loss
      }
      engine.close();
    } finally {
      closeDescriptors();
      try {
        unlock(directory, persistent, lock, null);
      } finally {
        synchronized (SharedEngine.class) {
          CLOSING.remove(directory);
        }
      }
    }
  }

  /** The engine's eviction hook: each eviction, and each refusal, told to the sink of the key's namespace. */
  private static io.hybridcache.core.api.EvictionHook hookOf(Map<Integer, EvictionSink> sinks) {
    return new io.hybridcache.core.api.EvictionHook() {
      @Override
      public void evicted(byte[] key) {
        SharedEngine.evicted(sinks, key, false);
      }

      @Override
      public void refused(byte[] key) {
        SharedEngine.evicted(sinks, key, true);
      }
    };
  }

  /**
   * Counts an eviction (a refusal if {@code refused}) for the cache whose current namespace epoch {@code key} (the
   * whole key, or its first {@link CacheConfig#MAX_EVICTION_KEY_BYTES} bytes) is of. Runs on the evicting thread,
   * maybe inside the DRAM tier's atomic removal: a varint parse, a map lookup, counters.
   */
  private static void evicted(Map<Integer, EvictionSink> sinks, byte[] key, boolean refused) {
    if (sinks.isEmpty()) {
      return;
    }
    int[] ns = Namespace.idAndEpoch(key);
    EvictionSink sink = ns == null ? null : sinks.get(ns[0]);
    if (sink != null && sink.namespace().epoch() == ns[1]) {
      sink.evicted(refused);
    }
  }

  /** Tells {@code sink} of its namespace's evictions until {@link #unwatch}. */
  void watch(EvictionSink sink) {
    sinks.put(sink.namespace().id(), sink);
  }

  void unwatch(EvictionSink sink) {
    sinks.remove(sink.namespace().id(), sink);
  }

  private void closeDescriptors() {
    if (descriptors != null) {
      try {
        descriptors.close();
      } catch (IOException e) {
        LOG.warn("cannot close {} of {}", ClassDescriptors.FILE, directory, e);
      }
    }
  }

  /** The compact serialization's class descriptors of this directory. */
  ClassDescriptors descriptors() {
    return descriptors;
  }

  HybridCache engine() { return engine; }
  /** The per-cache caps, or null if the manager's settings set none. */
  NamespaceGroups groups() { return groups; }
  Namespaces namespaces() { return namespaces; }
}
