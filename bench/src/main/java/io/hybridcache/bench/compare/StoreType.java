package io.hybridcache.bench.compare;

import java.lang.reflect.InvocationTargetException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The stores a comparison can run: ours and the peer libraries (Caffeine's CacheType enum in its
 * JMH suite is the model). Each names its {@link KvStore} class, loaded by name so that a peer's
 * library is touched only when that peer runs.
 */
public enum StoreType {
  HYBRIDCACHE("hybridcache", true, "HybridCacheStore",
      "this library as users run it: the default configuration (compact index, no JVM flags), its index's DRAM charged to the budget"),
  CAFFEINE("caffeine", false, "CaffeineStore", "Caffeine alone, on-heap, weighed in bytes"),
  OHC("ohc", false, "OhcStore", "OHC alone, off-heap"),
  CHRONICLE_MAP("chronicle-map", true, "ChronicleMapStore",
      "Chronicle Map persisted to a file (memory-mapped; the page cache is its DRAM)"),
  EHCACHE("ehcache", true, "EhcacheStore", "Ehcache 3: heap + off-heap + persistent disk tier"),
  MAPDB("mapdb", true, "MapDbStore", "MapDB file store, HTreeMap"),
  ROCKSDB("rocksdb", true, "RocksDbStore", "RocksDB (rocksdbjni): block cache, direct reads"),
  INFINISPAN("infinispan", true, "InfinispanStore", "Infinispan embedded, local, SoftIndexFileStore"),
  HYBRIDCACHE_JCACHE("hybridcache-jcache", true, "HybridJCacheStore",
      "this library through its JSR-107 provider (javax.cache.Cache<String, byte[]>, store-by-value; not in the default set)"),
  HYBRIDCACHE_CHRONICLE("hybridcache-chronicle", true, "HybridCacheChronicleStore",
      "this library with the optional Chronicle Map index (off heap, JVM flags; not in the default set)");

  private final String cliName;
  private final boolean diskBacked;
  private final String className;
  private final String description;

  StoreType(String cliName, boolean diskBacked, String simpleClassName, String description) {
    this.cliName = cliName;
    this.diskBacked = diskBacked;
    this.className = StoreType.class.getPackageName() + ".stores." + simpleClassName;
    this.description = description;
  }

  /** Whether the store opens Chronicle Map (the Chronicle peer, and ours with its Chronicle index): its JVM then needs {@code ChildJvm.CHRONICLE_FLAGS}. */
  public boolean opensChronicle() {
    return this == HYBRIDCACHE_CHRONICLE || this == CHRONICLE_MAP;
  }

  /** The name on the command line and in results. */
  public String cliName() {
    return cliName;
  }

  /** True if the store keeps data beyond its DRAM budget on disk. */
  public boolean diskBacked() {
    return diskBacked;
  }

  /**
   * True if the store never forgets a record it acknowledged (the disk-backed peers); false for
   * caches: DRAM-only ones, and ours, which may refuse an eviction to flash under a burst.
   */
  public boolean keepsEverything() {
    return diskBacked && !ours();
  }

  /** True for this library, called directly or through JCache (not a peer). */
  public boolean ours() {
    return this == HYBRIDCACHE || this == HYBRIDCACHE_JCACHE || this == HYBRIDCACHE_CHRONICLE;
  }

  /**
   * The stores a comparison runs when none are named: all but {@link #HYBRIDCACHE_JCACHE} and {@link
   * #HYBRIDCACHE_CHRONICLE} (variants of ours a user opts into).
   */
  public static List<StoreType> defaultSet() {
    return Arrays.stream(values()).filter(t -> t != HYBRIDCACHE_JCACHE && t != HYBRIDCACHE_CHRONICLE).toList();
  }

  public String description() {
    return description;
  }

  /** Opens this store with {@code settings}. */
  public KvStore open(StoreSettings settings) {
    try {
      return (KvStore) Class.forName(className).getConstructor(StoreSettings.class).newInstance(settings);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException("cannot open " + cliName + ": " + cause, cause);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("store " + cliName + " is not built into this jar (" + className + ")", e);
    }
  }

  /** The store named {@code name} (its {@link #cliName}, case-insensitive). */
  public static StoreType parse(String name) {
    String n = name.trim().toLowerCase(Locale.ROOT);
    for (StoreType t : values()) {
      if (t.cliName.equals(n)) {
        return t;
      }
    }
    throw new IllegalArgumentException("unknown store " + name + " (known: " + names() + ")");
  }

  /** All store names, comma-separated. */
  public static String names() {
    return Arrays.stream(values()).map(StoreType::cliName).collect(Collectors.joining(","));
  }
}
