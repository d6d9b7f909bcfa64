package io.hybridcache.jcache;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.Durability;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import javax.cache.CacheException;

/**
 * The settings of one {@code CacheManager}, read in one place ({@link #resolve}) from the sources
 * {@link ProviderProperties} lists, and validated: an error names the property, its minimum or range
 * with its unit, and the value as given ({@code dram-bytes must be at least 1m, was 256k}). Immutable.
 *
 * <p>The directory: {@code directory} if set (persistent: what a restart finds warm); else a private
 * one, a new random name under {@code root} (default {@code java.io.tmpdir}), made 0700 and deleted when
 * the manager closes: without a configured directory nothing persists and nothing is shared, whatever
 * the URI (it is never named from the URI, so a Spring Boot jar's path in it does not matter).
 */
final class ManagerSettings {
  static final long DEFAULT_DRAM_BYTES = 64 * CacheConfig.MIB;
  static final long DEFAULT_FLASH_BYTES = CacheConfig.GIB;

  /** The name of a private directory: this and 24 hex digits. */
  static final String PRIVATE_PREFIX = "hybridcache-jcache-";

  private static final SecureRandom RANDOM = new SecureRandom();

  /** The URI of the manager these settings are for. */
  private final URI uri;
  private final Path directory;
  /** True if {@code directory} was configured; else the directory is private to this manager. */
  private final boolean persistent;
  private final long dramBytes;
  private final long flashBytes;
  private final long segmentBytes;
  private final long writeBufferBytes;
  private final boolean directIo;
  private final double smallObjectShare;
  private final long smallObjectMaxBytes;
  private final double smallObjectLogShare;
  private final String serialFilter;
  /** {@code cache-version}: another value than the directory's last starts every cache empty; null if not set. */
  private final String cacheVersion;
  private final CacheSettings cacheSettings;
  private final java.time.Duration closeTimeout;
  private final boolean shutdownHook;
  /** The engine's durability: {@code POWER} also forces each write of the namespace table ({@link Namespaces}). */
  private final Durability durability;
  /** The longest a close waits for listeners and the pool: min(5s, close-timeout). */
  static final java.time.Duration MAX_DRAIN = java.time.Duration.ofSeconds(5);

  private ManagerSettings(Properties p, URI uri) {
    requireKnown(p);
    this.uri = uri;
    String dir = nonBlank(p, ProviderProperties.DIRECTORY); // blank (an empty variable or placeholder): unset
    this.persistent = dir != null;
    this.directory = (persistent ? Paths.get(dir.trim()) : privateDirectory(p)).toAbsolutePath();
    this.dramBytes = size(p, ProviderProperties.DRAM_BYTES, DEFAULT_DRAM_BYTES);
    this.flashBytes = size(p, ProviderProperties.FLASH_BYTES, DEFAULT_FLASH_BYTES);
    this.smallObjectShare = share(p, ProviderProperties.SMALL_OBJECT_SHARE, 0);
    this.smallObjectLogShare = share(p, ProviderProperties.SMALL_OBJECT_LOG_SHARE,
        CacheConfig.DEFAULT_SMALL_OBJECT_LOG_SHARE);
    long logBytes = flashBytes - (long) (flashBytes * Math.max(0, Math.min(1, smallObjectShare))); // the log engine's
    this.segmentBytes = size(p, ProviderProperties.SEGMENT_BYTES,
        Math.min(64 * CacheConfig.MIB, Math.max(64 * CacheConfig.KIB, logBytes / 16 / 4096 * 4096)));
    this.writeBufferBytes = size(p, ProviderProperties.WRITE_BUFFER_BYTES,
        Math.min(CacheConfig.MIB, segmentBytes / 4 / 4096 * 4096));
    this.smallObjectMaxBytes = size(p, ProviderProperties.SMALL_OBJECT_MAX_BYTES,
        CacheConfig.DEFAULT_SMALL_OBJECT_MAX_BYTES);
    String io = p.getProperty(ProviderProperties.DIRECT_IO, "true").trim();
    if (!io.equals("true") && !io.equals("false")) {
      throw new IllegalArgumentException(ProviderProperties.DIRECT_IO + " must be true or false, was " + io);
    }
    this.directIo = Boolean.parseBoolean(io);
    this.closeTimeout = closeTimeout(p.getProperty(ProviderProperties.CLOSE_TIMEOUT, "30s"));
    String hook = p.getProperty(ProviderProperties.SHUTDOWN_HOOK, "false").trim();
    if (!hook.equals("true") && !hook.equals("false")) {
      throw new IllegalArgumentException(ProviderProperties.SHUTDOWN_HOOK + " must be true or false, was " + hook);
    }
    this.shutdownHook = Boolean.parseBoolean(hook);
    this.durability = durability(p.getProperty(ProviderProperties.DURABILITY, "PROCESS"));
    this.serialFilter = p.getProperty(ProviderProperties.SERIAL_FILTER, Codecs.DEFAULT_SERIAL_FILTER);
    String version = p.getProperty(ProviderProperties.CACHE_VERSION);
    this.cacheVersion = version == null || version.isBlank() ? null : version.trim();
    Map<String, String> perCache = new TreeMap<>();
    for (String name : p.stringPropertyNames()) {
      if (name.startsWith(ProviderProperties.CACHE_PREFIX)) {
        perCache.put(name.substring(ProviderProperties.CACHE_PREFIX.length()), p.getProperty(name).trim());
      }
    }
    this.cacheSettings = new CacheSettings(perCache);
    if (cacheSettings.hasBudgets() && smallObjectShare > 0) {
      throw new IllegalArgumentException("cache.NAME.dram-bytes and cache.NAME.flash-bytes cannot be combined with "
          + ProviderProperties.SMALL_OBJECT_SHARE + " above 0 (the small-object engine keeps no per-cache count), was "
          + ProviderProperties.SMALL_OBJECT_SHARE + "=" + smallObjectShare);
    }
    SizeRules.check(p, dramBytes, flashBytes, segmentBytes, writeBufferBytes, smallObjectShare);
    cacheSettings.checkBudgets(dramBytes, flashBytes, segmentBytes); // after the segment size is known good
    cacheSettings.declared().forEach(cacheSettings::checkName);
    engineConfig(); // validates the rest now, naming the bad one
  }

  /**
   * Refuses a name that is neither a manager property nor a {@code cache.NAME.SETTING}: a typo must not be
   * ignored silently. Applies to what the file, the code's {@code Properties} and the {@code hybridcache.jcache.*}
   * system properties set (the environment is read by known names only).
   */
  /**
   * Fails on a name that is ours but unknown (a typo): one without a dot, or one of ours not in the list.
   * A dotted name of another namespace ({@code javax.cache.*}, {@code hibernate.*}: the spec lets a caller
   * pass any properties to {@code getCacheManager}) is not ours and is ignored.
   */
  private static void requireKnown(Properties p) {
    for (String name : new java.util.TreeSet<>(p.stringPropertyNames())) {
      boolean ours = name.indexOf('.') < 0;
      if (ours && !ProviderProperties.MANAGER_PROPERTIES.contains(name)) {
        throw new IllegalArgumentException("unknown CacheManager property " + name + " (was " + p.getProperty(name)
            + "); the known ones are " + String.join(", ", ProviderProperties.MANAGER_PROPERTIES) + " and "
            + ProviderProperties.CACHE_PREFIX + "NAME.SETTING");
      }
    }
  }

  private static java.time.Duration closeTimeout(String v) {
    java.time.Duration d;
    try {
      javax.cache.expiry.Duration j = CacheSettings.duration(ProviderProperties.CLOSE_TIMEOUT, v);
      d = java.time.Duration.ofMillis(j.getTimeUnit().toMillis(j.getDurationAmount()));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(ProviderProperties.CLOSE_TIMEOUT
          + " must be a duration with a unit (ms, s, m), was " + v, e);
    }
    if (d.compareTo(java.time.Duration.ofSeconds(1)) < 0 || d.compareTo(java.time.Duration.ofMinutes(10)) > 0) {
      throw new IllegalArgumentException(ProviderProperties.CLOSE_TIMEOUT + " must be from 1s to 10m, was " + v);
    }
    return d;
  }

  private static Durability durability(String v) {
    try {
      return Durability.valueOf(v.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(ProviderProperties.DURABILITY + " must be PROCESS, POWER or NONE, was " + v, e);
    }
  }

  /** A new random name under {@code root} (default java.io.tmpdir): never named from the URI. */
  private static Path privateDirectory(Properties p) {
    String root = nonBlank(p, ProviderProperties.ROOT);
    byte[] id = new byte[12];
    RANDOM.nextBytes(id);
    return Paths.get(root != null ? root.trim() : System.getProperty("java.io.tmpdir"))
        .resolve(PRIVATE_PREFIX + HexFormat.of().formatHex(id));
  }

  /** Property {@code name}, or null if it is not set or blank (an empty environment variable or placeholder). */
  private static String nonBlank(Properties p, String name) {
    String v = p.getProperty(name);
    return v == null || v.isBlank() ? null : v;
  }

  /**
   * The settings for a manager of {@code uri}, most specific first: {@code given} (code), then the
   * {@link ProviderProperties#SYSTEM_PREFIX} system properties, then the
   * {@link ProviderProperties#ENVIRONMENT_PREFIX} environment, then the file the URI names.
   */
  static ManagerSettings resolve(URI uri, ClassLoader loader, Properties given) {
    return resolve(uri, loader, given, System.getProperties(), System.getenv());
  }

  static ManagerSettings resolve(URI uri, ClassLoader loader, Properties given, Properties system,
      Map<String, String> environment) {
    Properties merged = fileNamedBy(uri, loader);
    for (String name : ProviderProperties.MANAGER_PROPERTIES) {
      String v = environment.get(ProviderProperties.ENVIRONMENT_PREFIX + name.toUpperCase(Locale.ROOT).replace('-', '_'));
      if (v != null) {
        merged.setProperty(name, v);
      }
    }
    for (String name : system.stringPropertyNames()) {
      if (name.startsWith(ProviderProperties.SYSTEM_PREFIX)) {
        merged.setProperty(name.substring(ProviderProperties.SYSTEM_PREFIX.length()), system.getProperty(name));
      }
    }
    if (given != null) {
      for (String name : given.stringPropertyNames()) {
        merged.setProperty(name, given.getProperty(name));
      }
    }
    return new ManagerSettings(merged, uri);
  }

  /** The properties file a {@code file:}, {@code jar:} or {@code classpath:} URI names; empty for any other URI. */
  private static Properties fileNamedBy(URI uri, ClassLoader loader) {
    Properties p = new Properties();
    String scheme = uri.getScheme();
    try {
      if ("file".equals(scheme)) {
        try (InputStream in = Files.newInputStream(Paths.get(uri))) {
          p.load(in);
        }
      } else if ("jar".equals(scheme)) { // a resource in a jar (Spring's spring.cache.jcache.config=classpath:...)
        try (InputStream in = uri.toURL().openStream()) {
          p.load(in);
        }
      } else if ("classpath".equals(scheme)) {
        String resource = uri.getSchemeSpecificPart().replaceFirst("^/", "");
        try (InputStream in = loader.getResourceAsStream(resource)) {
          if (in == null) {
            throw new CacheException("no resource " + resource + " for CacheManager URI " + uri);
          }
          p.load(in);
        }
      }
    } catch (IOException e) {
      throw new CacheException("cannot read the properties of CacheManager URI " + uri, e);
    }
    return p;
  }

  /** A share (CacheConfig validates the range it takes), {@code fallback} if not given. */
  private static double share(Properties p, String name, double fallback) {
    String v = p.getProperty(name);
    if (v == null) {
      return fallback;
    }
    try {
      return Double.parseDouble(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a number, was " + v, e);
    }
  }

  private static long size(Properties p, String name, long fallback) {
    String v = p.getProperty(name);
    if (v == null) {
      return fallback;
    }
    String t = v.trim().toLowerCase(Locale.ROOT);
    long unit = 1;
    if (t.endsWith("k") || t.endsWith("m") || t.endsWith("g")) {
      unit = t.endsWith("k") ? CacheConfig.KIB : t.endsWith("m") ? CacheConfig.MIB : CacheConfig.GIB;
      t = t.substring(0, t.length() - 1);
    }
    try {
      long n = Long.parseLong(t);
      if (n <= 0) {
        throw new NumberFormatException();
      }
      return Math.multiplyExact(n, unit);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(name + " must be a positive size in bytes (or with k, m, g), was " + v, e);
    }
  }

  /**
   * The engine configuration of these settings (validated by {@link CacheConfig.Builder#build()}; its
   * error names the property as the file spells it).
   */
  CacheConfig engineConfig() {
    try {
      return engineConfigBuilder().build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(SizeRules.propertyNames(e.getMessage()), e);
    }
  }

  private CacheConfig.Builder engineConfigBuilder() {
    return CacheConfig.builder(directory.resolve("engine"))
        .name("jcache")
        .dramBytes(dramBytes)
        .flashBytes(flashBytes)
        .segmentBytes(segmentBytes)
        .writeBufferBytes(writeBufferBytes)
        .directIo(directIo)
        .smallObjectShare(smallObjectShare)
        .smallObjectMaxBytes((int) Math.min(Integer.MAX_VALUE, smallObjectMaxBytes))
        .smallObjectLogShare(smallObjectLogShare)
        .closeTimeout(closeTimeout)
        .durability(durability)
        .jmx(false);
  }

  /** The {@code cache-version} (trimmed), or null if not set. */
  String cacheVersion() { return cacheVersion; }
  URI uri() { return uri; }
  Path directory() { return directory; }
  /** True if the directory was configured (persistent); false: private to the manager, deleted at close. */
  boolean persistent() { return persistent; }
  long dramBytes() { return dramBytes; }
  long flashBytes() { return flashBytes; }
  String serialFilter() { return serialFilter; }
  boolean shutdownHook() { return shutdownHook; }
  Durability durability() { return durability; }
  /** How long a close waits for asynchronous listeners and the pool: min(5s, close-timeout), in nanoseconds. */
  long drainNanos() { return Math.min(MAX_DRAIN.toNanos(), closeTimeout.toNanos()); }

  /** The per-cache settings ({@code cache.NAME.SETTING}). */
  CacheSettings caches() {
    return cacheSettings;
  }

  /** The effective settings, for the INFO line of a manager's open. */
  String describe() {
    return "directory " + directory + (persistent ? " (persistent)" : " (private to this manager, deleted at close: "
        + "persistence is off; set directory to keep entries across restarts)") + ", dram-bytes "
        + SizeRules.format(dramBytes) + ", flash-bytes " + SizeRules.format(flashBytes) + ", segment-bytes "
        + SizeRules.format(segmentBytes) + ", write-buffer-bytes " + SizeRules.format(writeBufferBytes)
        + ", direct-io " + directIo + ", small-object-share " + smallObjectShare + ", serial-filter "
        + (serialFilter.equals(Codecs.DEFAULT_SERIAL_FILTER) ? "limits only (no allow-list)" : serialFilter)
        + ", cache-version " + (cacheVersion == null ? "not set" : cacheVersion)
        + ", close-timeout " + closeTimeout.toMillis() + "ms, shutdown-hook " + shutdownHook + ", durability " + durability
        + ", declared caches " + cacheSettings.declared();
  }

  @Override
  public String toString() {
    return "ManagerSettings{directory=" + directory + ", dramBytes=" + dramBytes + ", flashBytes=" + flashBytes
        + ", segmentBytes=" + segmentBytes + ", directIo=" + directIo + "}";
  }
}
