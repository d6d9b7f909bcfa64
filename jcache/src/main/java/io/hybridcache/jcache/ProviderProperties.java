package io.hybridcache.jcache;

/**
 * Names of the provider's settings. A {@code CacheManager} reads them, most specific first (the first
 * source that sets a property wins): the {@code Properties} given to {@code getCacheManager} (code, e.g.
 * a Spring {@code JCachePropertiesCustomizer}); system properties named {@link #SYSTEM_PREFIX} + name
 * ({@code -Dhybridcache.jcache.directory=...}: one instance's own directory); environment variables named
 * {@link #ENVIRONMENT_PREFIX} + the name in upper case with {@code _} for {@code -}
 * ({@code HYBRIDCACHE_JCACHE_DIRECTORY}; the manager properties below only, not
 * {@code cache.*}); the properties file its URI names (a {@code file:} or {@code jar:} URI, or
 * {@code classpath:name.properties} resolved by the manager's class loader). Sizes are bytes ({@code 64m},
 * {@code 1g} and {@code 512k} are accepted too).
 */
public final class ProviderProperties {
  /** Prefix of the system properties: {@code hybridcache.jcache.dram-bytes} etc. */
  public static final String SYSTEM_PREFIX = "hybridcache.jcache.";
  /** Prefix of the environment variables: {@code HYBRIDCACHE_JCACHE_DRAM_BYTES} etc. */
  public static final String ENVIRONMENT_PREFIX = "HYBRIDCACHE_JCACHE_";
  /**
   * The manager's directory (the engine's files and the namespace table): persistent, warm after a
   * restart. Without it a manager gets a private directory (a new random name under {@link #ROOT}, 0700),
   * deleted at close: nothing persists, nothing is shared.
   */
  public static final String DIRECTORY = "directory";
  /** Where private manager directories are made when no {@link #DIRECTORY} is set; default {@code java.io.tmpdir}. */
  public static final String ROOT = "root";
  /** DRAM budget shared by the manager's caches (default 64 MiB, at least 1m). */
  public static final String DRAM_BYTES = "dram-bytes";
  /** Flash budget shared by the manager's caches (default 1 GiB, at least 6 segments of segment-bytes). */
  public static final String FLASH_BYTES = "flash-bytes";
  /** Flash segment size (default 64 MiB, or flash-bytes / 16 when that is smaller; a multiple of 4k from 64k to 128m). */
  public static final String SEGMENT_BYTES = "segment-bytes";
  /** Flash write buffer size (default 1 MiB, at most segment-bytes / 4; a multiple of 4k up to segment-bytes - 8k). */
  public static final String WRITE_BUFFER_BYTES = "write-buffer-bytes";
  /**
   * Share of flash-bytes for the small-object engine (default 0: off), as {@code CacheConfig.smallObjectShare}.
   */
  public static final String SMALL_OBJECT_SHARE = "small-object-share";
  /** Entries whose key + value fit go to the small-object engine (default 2048), as {@code CacheConfig.smallObjectMaxBytes}. */
  public static final String SMALL_OBJECT_MAX_BYTES = "small-object-max-bytes";
  /**
   * Share of the small-object engine's flash that is its log (default 0.25), as {@code
   * CacheConfig.smallObjectLogShare}: 0.1 for the least DRAM per object, 0.4 for the fewest flash writes.
   */
  public static final String SMALL_OBJECT_LOG_SHARE = "small-object-log-share";
  /** Direct I/O on the flash files (default true; false on tmpfs). */
  public static final String DIRECT_IO = "direct-io";
  /**
   * The JEP 290 filter pattern the Java-serialization codec deserializes through (default
   * {@link Codecs#DEFAULT_SERIAL_FILTER}: limits only), beside the deny-list of known gadget classes and the
   * JVM-wide {@code jdk.serialFilter} ({@link SerialFilter}). A pattern that names classes is an allow-list:
   * classes it does not name are refused. A declared key or value type it refuses fails the manager.
   */
  public static final String SERIAL_FILTER = "serial-filter";
  /**
   * The longest a manager's {@code close()} takes (default {@code 30s}, from {@code 1s} to {@code 10m}; a
   * duration with a unit: ms, s, m): queued asynchronous listener events and {@code loadAll} tasks get
   * min(5s, close-timeout), then the engine's flush and close get close-timeout (the engine's
   * {@code CacheConfig.closeTimeout}); so close returns within close-timeout + 5s, whatever a listener does.
   */
  public static final String CLOSE_TIMEOUT = "close-timeout";
  /**
   * {@code true} (default {@code false}): the manager registers a JVM shutdown hook that closes it (a clean
   * close: the next start on a configured directory is warm, not a crash recovery); {@code close()} removes it.
   */
  public static final String SHUTDOWN_HOOK = "shutdown-hook";
  /**
   * Per cache: {@code cache.NAME.key-codec} and {@code cache.NAME.value-codec}, one of {@code string},
   * {@code bytes}, {@code long}, {@code integer}, {@code serializable}, or the class name of a
   * {@code io.hybridcache.core.api.Codec} with a public no-argument constructor;
   * {@code cache.NAME.expire-after-write} or {@code expire-after-access} (e.g. {@code 10m}: for a cache
   * created with the default eternal policy), {@code cache.NAME.statistics} and {@code management}
   * ({@code true}/{@code false}); {@code cache.NAME.key-type} and {@code value-type} (class names);
   * {@code cache.NAME.store-by-reference} and {@code clear-on-start} ({@code true}/{@code false});
   * {@code cache.NAME.max-entries} (a store-by-reference cache's bound, default 100000); {@code cache.NAME.warm}
   * ({@code true}: the cache keeps its entries across restarts; a cache created on demand starts empty without
   * it). Every cache named by such a property, but {@code warm}, is created with the manager. See
   * {@code CacheSettings}.
   */
  public static final String CACHE_PREFIX = "cache.";
  /**
   * The version of what the manager's caches hold, e.g. the application's build version
   * ({@code cache-version=${project.version}} with Maven resource filtering): a manager opening its directory
   * with another value than the one recorded there starts every cache empty, old entries never read (no
   * scan: every cache gets a new namespace). Compared as text; not set is a value too (setting it or removing
   * it starts empty once).
   */
  public static final String CACHE_VERSION = "cache-version";
  /**
   * What an unclean stop keeps, as the engine's {@code CacheConfig.durability}: {@code PROCESS} (default: warm after
   * a process kill, cold after an OS crash or power loss), {@code POWER} (warm after either: each invalidation and
   * each write of the namespace table forced to the device) or {@code NONE} (warm after a clean close only).
   */
  public static final String DURABILITY = "durability";

  /** The manager (top-level) properties: those the environment can set too. */
  static final java.util.List<String> MANAGER_PROPERTIES = java.util.List.of(DIRECTORY, ROOT, DRAM_BYTES,
      FLASH_BYTES, SEGMENT_BYTES, WRITE_BUFFER_BYTES, SMALL_OBJECT_SHARE, SMALL_OBJECT_MAX_BYTES,
      SMALL_OBJECT_LOG_SHARE, DIRECT_IO, SERIAL_FILTER, CACHE_VERSION, CLOSE_TIMEOUT, SHUTDOWN_HOOK, DURABILITY);

  private ProviderProperties() {}
}
