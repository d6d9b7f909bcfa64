package io.hybridcache.spring.boot;

import io.hybridcache.jcache.ProviderProperties;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * The JCache provider's settings ({@code io.hybridcache.jcache.ProviderProperties}) bound from the application's
 * configuration under {@code hybridcache.jcache}: the same names as the provider file, in Spring's types. Sizes
 * are Spring data sizes ({@code 64MB}, {@code 1GB}; a bare number is bytes: the provider file's {@code 64m} is
 * not one), durations Spring durations ({@code 10m}, {@code 30s}, {@code PT10M}). A setting left unset is not
 * passed, so the provider's default (or a provider file named by {@code spring.cache.jcache.config}) applies.
 *
 * <p>Per cache: {@code hybridcache.jcache.cache.NAME.SETTING}. A cache name with a dot (every Hibernate region)
 * goes in brackets: {@code hybridcache.jcache.cache[com.example.Customer].warm=true} (YAML:
 * {@code "[com.example.Customer]": {warm: true}}). Unknown names fail the start ({@code ignoreUnknownFields =
 * false}), as the provider fails on an unknown property: a typo ({@code dram-byte}) or a dotted name without
 * brackets ({@code cache.com.example.Customer.warm}, which would bind a cache named {@code com}) is never
 * ignored silently.
 *
 * <p>{@link #toProviderProperties()} gives the {@link Properties} handed to the provider's
 * {@code getCacheManager}: the most specific of its sources, so they win over the provider file. Spring's own
 * sources (command line, system properties, the environment: {@code HYBRIDCACHE_JCACHE_DIRECTORY}, then
 * application.yml/properties) decide the value first, in Spring's order. Not thread-safe (a bound bean, read once
 * when the manager is made).
 */
@ConfigurationProperties(prefix = HybridCacheProperties.PREFIX, ignoreUnknownFields = false)
public class HybridCacheProperties {
  /** The prefix of these properties, the provider's system-property prefix without its final dot. */
  public static final String PREFIX = "hybridcache.jcache";

  /**
   * The manager's directory (the engine's files and the namespace table): persistent, warm after a restart.
   * Unset: a private directory under {@code root}, deleted when the manager closes (nothing persists).
   */
  private String directory;

  /** Where private manager directories are made when no directory is set (default: java.io.tmpdir). */
  private String root;

  /** DRAM budget shared by the manager's caches (default 64MB, at least 1MB). */
  private DataSize dramBytes;

  /** Flash budget shared by the manager's caches (default 1GB, at least 6 segments). */
  private DataSize flashBytes;

  /**
   * Flash segment size (a multiple of 4KB from 64KB to 128MB). Default: the log engine's share of flash-bytes
   * (flash-bytes less small-object-share of it) / 16, rounded down to 4KB, at least 64KB and at most 64MB.
   */
  private DataSize segmentBytes;

  /** Flash write buffer size (a multiple of 4KB; default 1MB, or segment-bytes / 4 rounded down to 4KB if smaller). */
  private DataSize writeBufferBytes;

  /** Direct I/O on the flash files (default true; false on tmpfs). */
  private Boolean directIo;

  /** Share of flash-bytes for the small-object engine (default 0: off). */
  private Double smallObjectShare;

  /** Entries whose key and value fit go to the small-object engine (default 2048 bytes). */
  private DataSize smallObjectMaxBytes;

  /** Share of the small-object engine's flash that is its log (default 0.25). */
  private Double smallObjectLogShare;

  /**
   * The JEP 290 filter Java-serialized values are read through (default: limits only). A pattern naming classes
   * is an allow-list, e.g. {@code com.example.model.*;java.base/*;!*}.
   */
  private String serialFilter;

  /**
   * The version of what the caches hold (e.g. the build's version): a manager opening its directory with another
   * value starts every cache empty.
   */
  private String cacheVersion;

  /** The longest a manager's close takes (default 30s, from 1s to 10m). */
  private Duration closeTimeout;

  /** Whether the manager registers a JVM shutdown hook that closes it (default false). */
  private Boolean shutdownHook;

  /**
   * What an unclean stop keeps: PROCESS (default: warm after a process kill), POWER (also after a power loss: each
   * invalidation and each clear forced to the device) or NONE (warm after a clean close only).
   */
  private String durability;

  /**
   * Per-cache settings by cache name (a name with a dot in brackets: cache[com.example.Customer]), cache.NAME.SETTING:
   * key-type, value-type, key-codec, value-codec, expire-after-write, expire-after-access, statistics, management,
   * store-by-reference, max-entries, clear-on-start, warm, dram-bytes, flash-bytes. cache[default]'s dram-bytes and
   * flash-bytes apply to every cache that sets none.
   */
  private Map<String, Cache> cache = new LinkedHashMap<>();

  /** One cache's settings ({@code hybridcache.jcache.cache.NAME.*}). */
  public static class Cache {
    /** The key class name (declares the cache; default java.lang.Object). */
    private String keyType;

    /** The value class name (declares the cache; default java.lang.Object). */
    private String valueType;

    /** string, bytes, long, integer, serializable, or the class name of an io.hybridcache.core.api.Codec. */
    private String keyCodec;

    /** string, bytes, long, integer, serializable, or the class name of an io.hybridcache.core.api.Codec. */
    private String valueCodec;

    /** Entries expire this long after they are written (default: eternal). */
    private Duration expireAfterWrite;

    /** Entries expire this long after they are last read or written (default: eternal). */
    private Duration expireAfterAccess;

    /** JCache statistics on (the CacheStatistics MXBean; Micrometer's JCache meters read them). */
    private Boolean statistics;

    /** JCache management on (the CacheConfiguration MXBean). */
    private Boolean management;

    /** Keep the cache on the heap, values by reference (never on flash, gone at close). */
    private Boolean storeByReference;

    /** A store-by-reference cache's bound in entries (default 100000). */
    private Long maxEntries;

    /** Start the cache empty at every start (the same as warm=false). */
    private Boolean clearOnStart;

    /**
     * Keep the cache's entries across restarts (a cache created on demand, such as a Hibernate region, starts
     * empty without it). Does not declare the cache (nor do dram-bytes and flash-bytes).
     */
    private Boolean warm;

    /**
     * The most of the manager's DRAM budget this cache may hold: bytes (64MB, 256k) or a share (25%); at most
     * dram-bytes. Under cache[default]: every cache that sets none. Does not declare the cache.
     */
    private String dramBytes;

    /**
     * The most of the manager's flash budget this cache may hold: bytes (1GB, 512m) or a share (25%); at most
     * flash-bytes. Under cache[default]: every cache that sets none. Does not declare the cache.
     */
    private String flashBytes;

    public String getKeyType() { return keyType; }
    public void setKeyType(String keyType) { this.keyType = keyType; }
    public String getValueType() { return valueType; }
    public void setValueType(String valueType) { this.valueType = valueType; }
    public String getKeyCodec() { return keyCodec; }
    public void setKeyCodec(String keyCodec) { this.keyCodec = keyCodec; }
    public String getValueCodec() { return valueCodec; }
    public void setValueCodec(String valueCodec) { this.valueCodec = valueCodec; }
    public Duration getExpireAfterWrite() { return expireAfterWrite; }
    public void setExpireAfterWrite(Duration expireAfterWrite) { this.expireAfterWrite = expireAfterWrite; }
    public Duration getExpireAfterAccess() { return expireAfterAccess; }
    public void setExpireAfterAccess(Duration expireAfterAccess) { this.expireAfterAccess = expireAfterAccess; }
    public Boolean getStatistics() { return statistics; }
    public void setStatistics(Boolean statistics) { this.statistics = statistics; }
    public Boolean getManagement() { return management; }
    public void setManagement(Boolean management) { this.management = management; }
    public Boolean getStoreByReference() { return storeByReference; }
    public void setStoreByReference(Boolean storeByReference) { this.storeByReference = storeByReference; }
    public Long getMaxEntries() { return maxEntries; }
    public void setMaxEntries(Long maxEntries) { this.maxEntries = maxEntries; }
    public Boolean getClearOnStart() { return clearOnStart; }
    public void setClearOnStart(Boolean clearOnStart) { this.clearOnStart = clearOnStart; }
    public Boolean getWarm() { return warm; }
    public void setWarm(Boolean warm) { this.warm = warm; }
    public String getDramBytes() { return dramBytes; }
    public void setDramBytes(String dramBytes) { this.dramBytes = dramBytes; }
    public String getFlashBytes() { return flashBytes; }
    public void setFlashBytes(String flashBytes) { this.flashBytes = flashBytes; }

    /** Puts this cache's settings that are set into {@code p} as {@code cache.NAME.SETTING}. */
    void addTo(Properties p, String name) {
      String prefix = ProviderProperties.CACHE_PREFIX + name + ".";
      put(p, prefix + "key-type", keyType);
      put(p, prefix + "value-type", valueType);
      put(p, prefix + "key-codec", keyCodec);
      put(p, prefix + "value-codec", valueCodec);
      put(p, prefix + "expire-after-write", duration(expireAfterWrite));
      put(p, prefix + "expire-after-access", duration(expireAfterAccess));
      put(p, prefix + "statistics", statistics);
      put(p, prefix + "management", management);
      put(p, prefix + "store-by-reference", storeByReference);
      put(p, prefix + "max-entries", maxEntries);
      put(p, prefix + "clear-on-start", clearOnStart);
      put(p, prefix + "warm", warm);
      put(p, prefix + "dram-bytes", budget(dramBytes));
      put(p, prefix + "flash-bytes", budget(flashBytes));
    }

    /**
     * A cap as the provider reads it: a size in Spring's units (64MB, 2TB, 512B, 1024) in bytes, as the manager's
     * {@link DataSize} budgets are; a share (25%) or the provider's own form (64m, 256k) as given (a bad value too:
     * the provider's error names it).
     */
    private static String budget(String v) {
      if (v == null) {
        return null;
      }
      String t = v.trim();
      if (t.endsWith("%")) {
        return t;
      }
      try {
        return Long.toString(DataSize.parse(t.toUpperCase(java.util.Locale.ROOT)).toBytes());
      } catch (IllegalArgumentException e) {
        return t;
      }
    }
  }

  /**
   * The provider properties these settings make: each setting that is set, under the provider's name
   * ({@code dram-bytes}, {@code cache.NAME.warm}), sizes in bytes and durations in milliseconds.
   */
  public Properties toProviderProperties() {
    Properties p = new Properties();
    put(p, ProviderProperties.DIRECTORY, directory);
    put(p, ProviderProperties.ROOT, root);
    put(p, ProviderProperties.DRAM_BYTES, bytes(dramBytes));
    put(p, ProviderProperties.FLASH_BYTES, bytes(flashBytes));
    put(p, ProviderProperties.SEGMENT_BYTES, bytes(segmentBytes));
    put(p, ProviderProperties.WRITE_BUFFER_BYTES, bytes(writeBufferBytes));
    put(p, ProviderProperties.DIRECT_IO, directIo);
    put(p, ProviderProperties.SMALL_OBJECT_SHARE, smallObjectShare);
    put(p, ProviderProperties.SMALL_OBJECT_MAX_BYTES, bytes(smallObjectMaxBytes));
    put(p, ProviderProperties.SMALL_OBJECT_LOG_SHARE, smallObjectLogShare);
    put(p, ProviderProperties.SERIAL_FILTER, serialFilter);
    put(p, ProviderProperties.CACHE_VERSION, cacheVersion);
    put(p, ProviderProperties.CLOSE_TIMEOUT, duration(closeTimeout));
    put(p, ProviderProperties.SHUTDOWN_HOOK, shutdownHook);
    put(p, ProviderProperties.DURABILITY, durability);
    cache.forEach((name, settings) -> settings.addTo(p, name));
    return p;
  }

  private static void put(Properties p, String name, Object value) {
    if (value != null) {
      p.setProperty(name, value.toString());
    }
  }

  /** Bytes as the provider reads them (a bare number); null if unset. */
  private static String bytes(DataSize size) {
    return size == null ? null : Long.toString(size.toBytes());
  }

  /** A duration as the provider reads it (milliseconds with their unit); null if unset. */
  private static String duration(Duration d) {
    return d == null ? null : d.toMillis() + "ms";
  }

  public String getDirectory() { return directory; }
  public void setDirectory(String directory) { this.directory = directory; }
  public String getRoot() { return root; }
  public void setRoot(String root) { this.root = root; }
  public DataSize getDramBytes() { return dramBytes; }
  public void setDramBytes(DataSize dramBytes) { this.dramBytes = dramBytes; }
  public DataSize getFlashBytes() { return flashBytes; }
  public void setFlashBytes(DataSize flashBytes) { this.flashBytes = flashBytes; }
  public DataSize getSegmentBytes() { return segmentBytes; }
  public void setSegmentBytes(DataSize segmentBytes) { this.segmentBytes = segmentBytes; }
  public DataSize getWriteBufferBytes() { return writeBufferBytes; }
  public void setWriteBufferBytes(DataSize writeBufferBytes) { this.writeBufferBytes = writeBufferBytes; }
  public Boolean getDirectIo() { return directIo; }
  public void setDirectIo(Boolean directIo) { this.directIo = directIo; }
  public Double getSmallObjectShare() { return smallObjectShare; }
  public void setSmallObjectShare(Double smallObjectShare) { this.smallObjectShare = smallObjectShare; }
  public DataSize getSmallObjectMaxBytes() { return smallObjectMaxBytes; }
  public void setSmallObjectMaxBytes(DataSize smallObjectMaxBytes) { this.smallObjectMaxBytes = smallObjectMaxBytes; }
  public Double getSmallObjectLogShare() { return smallObjectLogShare; }
  public void setSmallObjectLogShare(Double smallObjectLogShare) { this.smallObjectLogShare = smallObjectLogShare; }
  public String getSerialFilter() { return serialFilter; }
  public void setSerialFilter(String serialFilter) { this.serialFilter = serialFilter; }
  public String getCacheVersion() { return cacheVersion; }
  public void setCacheVersion(String cacheVersion) { this.cacheVersion = cacheVersion; }
  public Duration getCloseTimeout() { return closeTimeout; }
  public void setCloseTimeout(Duration closeTimeout) { this.closeTimeout = closeTimeout; }
  public Boolean getShutdownHook() { return shutdownHook; }
  public void setShutdownHook(Boolean shutdownHook) { this.shutdownHook = shutdownHook; }
  public String getDurability() { return durability; }
  public void setDurability(String durability) { this.durability = durability; }
  public Map<String, Cache> getCache() { return cache; }
  public void setCache(Map<String, Cache> cache) { this.cache = cache; }
}
