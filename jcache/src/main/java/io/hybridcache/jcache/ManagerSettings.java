package io.hybridcache.jcache;

import io.hybridcache.core.api.CacheConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import javax.cache.CacheException;

/**
 * The settings of one {@code CacheManager}, read in one place ({@link #resolve}) from the sources
 * {@link ProviderProperties} lists, and validated: an error names the property and its value. Immutable.
 */
final class ManagerSettings {
  static final long DEFAULT_DRAM_BYTES = 64 * CacheConfig.MIB;
  static final long DEFAULT_FLASH_BYTES = CacheConfig.GIB;

  private final Path directory;
  private final long dramBytes;
  private final long flashBytes;
  private final long segmentBytes;
  private final long writeBufferBytes;
  private final boolean directIo;
  private final double smallObjectShare;
  private final long smallObjectMaxBytes;
  private final double smallObjectLogShare;
  private final String serialFilter;
  private final CacheSettings cacheSettings;

  private ManagerSettings(Properties p, URI uri) {
    Path root = Paths.get(p.getProperty(ProviderProperties.ROOT,
        Paths.get(System.getProperty("java.io.tmpdir"), "hybridcache-jcache").toString()));
    String dir = p.getProperty(ProviderProperties.DIRECTORY);
    this.directory = (dir != null ? Paths.get(dir) : root.resolve(directoryName(uri))).toAbsolutePath();
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
    this.serialFilter = p.getProperty(ProviderProperties.SERIAL_FILTER, Codecs.DEFAULT_SERIAL_FILTER);
    Map<String, String> perCache = new TreeMap<>();
    for (String name : p.stringPropertyNames()) {
      if (name.startsWith(ProviderProperties.CACHE_PREFIX)) {
        perCache.put(name.substring(ProviderProperties.CACHE_PREFIX.length()), p.getProperty(name).trim());
      }
    }
    this.cacheSettings = new CacheSettings(perCache);
    engineConfig(); // validates the budgets now, naming the bad one
  }

  /**
   * The settings for a manager of {@code uri}: {@code given} over the file the URI names over the
   * {@link ProviderProperties#SYSTEM_PREFIX} system properties.
   */
  static ManagerSettings resolve(URI uri, ClassLoader loader, Properties given) {
    Properties merged = new Properties();
    for (String name : System.getProperties().stringPropertyNames()) {
      if (name.startsWith(ProviderProperties.SYSTEM_PREFIX)) {
        merged.setProperty(name.substring(ProviderProperties.SYSTEM_PREFIX.length()), System.getProperty(name));
      }
    }
    merged.putAll(fileNamedBy(uri, loader));
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

  /** A file name for a URI: its safe characters, and a hash so that distinct URIs never share one. */
  static String directoryName(URI uri) {
    String s = uri.toString();
    String safe = s.replaceAll("[^A-Za-z0-9._-]", "_");
    if (safe.length() > 80) {
      safe = safe.substring(safe.length() - 80);
    }
    return safe + "-" + Integer.toHexString(s.hashCode());
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

  /** The engine configuration of these settings (validated by {@link CacheConfig.Builder#build()}). */
  CacheConfig engineConfig() {
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
        .jmx(false)
        .build();
  }

  Path directory() { return directory; }
  long dramBytes() { return dramBytes; }
  long flashBytes() { return flashBytes; }
  String serialFilter() { return serialFilter; }

  /** The per-cache settings ({@code cache.NAME.SETTING}). */
  CacheSettings caches() {
    return cacheSettings;
  }

  @Override
  public String toString() {
    return "ManagerSettings{directory=" + directory + ", dramBytes=" + dramBytes + ", flashBytes=" + flashBytes
        + ", segmentBytes=" + segmentBytes + ", directIo=" + directIo + "}";
  }
}
