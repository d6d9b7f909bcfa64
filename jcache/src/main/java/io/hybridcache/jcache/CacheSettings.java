package io.hybridcache.jcache;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.expiry.Duration;
import javax.cache.expiry.EternalExpiryPolicy;
import javax.cache.expiry.ModifiedExpiryPolicy;
import javax.cache.expiry.TouchedExpiryPolicy;

/**
 * The per-cache provider properties ({@code cache.NAME.SETTING}) that configure a cache without code, for
 * frameworks that create caches with a plain {@code MutableConfiguration} (Spring's
 * {@code spring.cache.cache-names}, Hibernate's regions): {@code key-codec}, {@code value-codec},
 * {@code expire-after-write} and {@code expire-after-access} (a duration: {@code 500ms}, {@code 30s},
 * {@code 10m}, {@code 2h}, {@code 1d}), {@code statistics} and {@code management} ({@code true} or
 * {@code false}), {@code key-type} and {@code value-type} (class names, default {@code java.lang.Object}),
 * {@code store-by-reference} ({@code true}: a heap map, never on flash, gone at close) with {@code max-entries}
 * (its bound, default {@link #DEFAULT_MAX_ENTRIES}), {@code clear-on-start} ({@code true}: the cache starts
 * empty each time the manager creates it) and {@code warm} (whether a store-by-value cache keeps its entries
 * across restarts; {@code clear-on-start=true} is {@code warm=false}).
 * An expiry applies only to a configuration that left the default (eternal) policy. Every cache named by
 * such a property, but {@code warm}, is declared: the manager creates it when it is made ({@link #declared});
 * {@code warm} alone leaves the cache to be created on demand (by Spring's {@code cache-names}, by Hibernate).
 *
 * <p>Defaults ({@link #startsEmpty}, {@link #maxEntries}, {@link #applyTo}): a declared cache is warm, a cache
 * created on demand starts empty at each start (a Hibernate region created with a plain
 * {@code MutableConfiguration} could otherwise serve rows changed while the application was down); Hibernate's
 * update-timestamps region ({@link HibernateRegion}) is store-by-reference and unbounded, its query-results
 * region starts empty. An explicit setting wins over each default.
 * Immutable; validated when the manager is made (an error names the property and its value).
 */
final class CacheSettings {
  static final Set<String> NAMES = Set.of("key-codec", "value-codec", "expire-after-write", "expire-after-access",
      "statistics", "management", "key-type", "value-type", "store-by-reference", "clear-on-start", "warm",
      "max-entries", "dram-bytes", "flash-bytes");
  /** The cache name whose {@code dram-bytes} and {@code flash-bytes} apply to every cache that sets none. */
  static final String DEFAULT = "default";
  /** The settings that only cap a cache: they do not declare it (as {@code warm}). */
  private static final Set<String> NOT_DECLARING = Set.of("warm", "dram-bytes", "flash-bytes");
  /** The bound of a store-by-reference cache without {@code max-entries} (but the update-timestamps region). */
  static final int DEFAULT_MAX_ENTRIES = 100_000;

  private final Map<String, String> settings;

  /** @param settings {@code NAME.SETTING} to value */
  CacheSettings(Map<String, String> settings) {
    for (Map.Entry<String, String> e : settings.entrySet()) {
      String key = e.getKey();
      int dot = key.lastIndexOf('.');
      String setting = dot < 0 ? key : key.substring(dot + 1);
      if (dot <= 0 || !NAMES.contains(setting)) {
        throw new IllegalArgumentException(ProviderProperties.CACHE_PREFIX + key + " is not a cache setting (one of "
            + new java.util.TreeSet<>(NAMES) + " after cache.NAME.), was " + e.getValue());
      }
      if (setting.startsWith("expire-")) {
        duration(key, e.getValue());
      } else if (setting.equals("statistics") || setting.equals("management") || setting.equals("store-by-reference")
          || setting.equals("clear-on-start") || setting.equals("warm")) {
        bool(key, e.getValue());
      } else if (setting.equals("max-entries")) {
        positiveLong(key, e.getValue());
      } else if (setting.endsWith("-bytes")) {
        budget(key, e.getValue(), Long.MAX_VALUE, null);
      }
    }
    this.settings = Map.copyOf(settings);
    for (String key : settings.keySet()) {
      if (key.endsWith(".warm")) {
        String cacheName = key.substring(0, key.length() - ".warm".length());
        String clear = get(cacheName, "clear-on-start");
        if (clear != null && bool(cacheName + ".clear-on-start", clear) == bool(key, settings.get(key))) {
          throw new IllegalArgumentException(ProviderProperties.CACHE_PREFIX + key + " and "
              + ProviderProperties.CACHE_PREFIX + cacheName + ".clear-on-start disagree (clear-on-start=true is "
              + "warm=false): set one, was " + settings.get(key) + " and " + clear);
        }
      }
    }
  }

  /** The names of the caches these settings declare (each named by at least one {@code cache.NAME.SETTING}), sorted. */
  Set<String> declared() {
    Set<String> names = new TreeSet<>();
    for (String key : settings.keySet()) {
      if (!NOT_DECLARING.contains(key.substring(key.lastIndexOf('.') + 1))) {
        names.add(key.substring(0, key.lastIndexOf('.')));
      }
    }
    return names;
  }

  /**
   * The configuration of declared cache {@code cacheName}: its key and value types (loaded by
   * {@code loader}; {@code Object} if not set), then {@link #applyTo}. Codecs are chosen when it is created.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  HybridCacheConfiguration<Object, Object> declaredConfiguration(String cacheName, ClassLoader loader) {
    HybridCacheConfiguration config = new HybridCacheConfiguration<>();
    config.setTypes(type(cacheName, "key-type", loader), type(cacheName, "value-type", loader));
    applyTo(cacheName, config);
    return config;
  }

  private Class<?> type(String cacheName, String setting, ClassLoader loader) {
    String name = get(cacheName, setting);
    if (name == null) {
      return Object.class;
    }
    try {
      return ContextFirstClassLoader.forName(name, false, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      throw new IllegalArgumentException(ProviderProperties.CACHE_PREFIX + cacheName + "." + setting
          + " must name a class the CacheManager's class loader can load, was " + name, e);
    }
  }

  /** {@code cache.NAME.SETTING}, or null. */
  String get(String cacheName, String setting) {
    return settings.get(cacheName + "." + setting);
  }

  /**
   * Applies the expiry, statistics, management and store-by-reference settings of {@code cacheName} to
   * {@code config}; Hibernate's update-timestamps region is store-by-reference unless {@code store-by-reference} says.
   */
  void applyTo(String cacheName, MutableConfiguration<?, ?> config) {
    String write = get(cacheName, "expire-after-write");
    String access = get(cacheName, "expire-after-access");
    if ((write != null || access != null)
        && config.getExpiryPolicyFactory().create() instanceof EternalExpiryPolicy) {
      config.setExpiryPolicyFactory(access != null
          ? TouchedExpiryPolicy.factoryOf(duration(cacheName + ".expire-after-access", access))
          : ModifiedExpiryPolicy.factoryOf(duration(cacheName + ".expire-after-write", write)));
    }
    String stats = get(cacheName, "statistics");
    if (stats != null) {
      config.setStatisticsEnabled(bool(cacheName + ".statistics", stats));
    }
    String byReference = get(cacheName, "store-by-reference");
    if (byReference != null) {
      config.setStoreByValue(!bool(cacheName + ".store-by-reference", byReference));
    } else if (HibernateRegion.of(cacheName) == HibernateRegion.UPDATE_TIMESTAMPS) {
      config.setStoreByValue(false); // never evicted, never stale after a restart
    }
    String management = get(cacheName, "management");
    if (management != null) {
      config.setManagementEnabled(bool(cacheName + ".management", management));
    }
  }

  /**
   * Whether store-by-value cache {@code cacheName} starts empty each time the manager creates it: as
   * {@code warm} or {@code clear-on-start} say; else true for Hibernate's query-results region and for a
   * cache created on demand (not {@link #declared}), false for a declared one.
   */
  boolean startsEmpty(String cacheName) {
    String warm = get(cacheName, "warm");
    if (warm != null) {
      return !bool(cacheName + ".warm", warm);
    }
    String clear = get(cacheName, "clear-on-start");
    if (clear != null) {
      return bool(cacheName + ".clear-on-start", clear);
    }
    return HibernateRegion.of(cacheName) == HibernateRegion.QUERY_RESULTS || !declared().contains(cacheName);
  }

  /**
   * The bound of store-by-reference cache {@code cacheName}: {@code max-entries}; else none
   * ({@code Long.MAX_VALUE}) for Hibernate's update-timestamps region, {@link #DEFAULT_MAX_ENTRIES} for others.
   */
  long maxEntries(String cacheName) {
    String v = get(cacheName, "max-entries");
    if (v != null) {
      return positiveLong(cacheName + ".max-entries", v);
    }
    return HibernateRegion.of(cacheName) == HibernateRegion.UPDATE_TIMESTAMPS ? Long.MAX_VALUE : DEFAULT_MAX_ENTRIES;
  }

  /** True if some cache, or {@code cache.default}, has a {@code dram-bytes} or {@code flash-bytes}. */
  boolean hasBudgets() {
    for (String key : settings.keySet()) {
      if (key.endsWith(".dram-bytes") || key.endsWith(".flash-bytes")) {
        return true;
      }
    }
    return false;
  }

  /**
   * The cap {@code setting} ({@code dram-bytes} or {@code flash-bytes}) of cache {@code cacheName}: its own,
   * else {@code cache.default}'s, else none ({@link Long#MAX_VALUE}); a share ({@code 25%}) of
   * {@code managerBytes}.
   */
  long budget(String cacheName, String setting, long managerBytes) {
    String own = get(cacheName, setting);
    String name = own != null ? cacheName : DEFAULT;
    String v = own != null ? own : get(DEFAULT, setting);
    return v == null ? Long.MAX_VALUE : budget(name + "." + setting, v, managerBytes, setting);
  }

  /**
   * Refuses a cache named {@code default} while {@code cache.default.dram-bytes} or {@code flash-bytes} is set:
   * those are the caps of every cache without its own, and would read as that cache's own.
   */
  void checkName(String cacheName) {
    if (!DEFAULT.equals(cacheName)) {
      return;
    }
    for (String setting : List.of("dram-bytes", "flash-bytes")) {
      if (get(DEFAULT, setting) != null) {
        throw new IllegalArgumentException("a cache named " + DEFAULT + " cannot be made while "
            + ProviderProperties.CACHE_PREFIX + DEFAULT + "." + setting + " is set: that is the cap of every cache "
            + "without its own, not of a cache named " + DEFAULT + "; name the cache otherwise");
      }
    }
  }

  /**
   * Checks every {@code dram-bytes} and {@code flash-bytes} against the manager's budgets: a cap cannot exceed
   * them, and a flash cap must hold two segments of {@code segmentBytes} ({@link #MIN_FLASH_CAP_SEGMENTS}).
   */
  void checkBudgets(long dramBytes, long flashBytes, long segmentBytes) {
    for (Map.Entry<String, String> e : settings.entrySet()) {
      String key = e.getKey();
      if (key.endsWith(".dram-bytes")) {
        budget(key, e.getValue(), dramBytes, ProviderProperties.DRAM_BYTES);
      } else if (key.endsWith(".flash-bytes")) {
        long cap = budget(key, e.getValue(), flashBytes, ProviderProperties.FLASH_BYTES);
        long min = MIN_FLASH_CAP_SEGMENTS * segmentBytes;
        if (cap < min) {
          throw new IllegalArgumentException(ProviderProperties.CACHE_PREFIX + key + " must be at least "
              + SizeRules.format(min) + " (" + MIN_FLASH_CAP_SEGMENTS + " segments of " + ProviderProperties.SEGMENT_BYTES
              + " " + SizeRules.format(segmentBytes) + ": reclaim frees only full segments, and a cache's bytes can "
              + "fill the two being written; a smaller segment-bytes allows a smaller cap), was " + e.getValue());
        }
      }
    }
  }

  /**
   * The fewest segments a flash cap holds: a capped cache's bytes can sit in the two segments being written (the
   * one DRAM evictions fill, the one reclaim moves entries into), which reclaim never takes; over a cap of two
   * segments some of them are in a full segment, which a reclaim for the cache frees.
   */
  static final long MIN_FLASH_CAP_SEGMENTS = 2;

  /**
   * A cap in bytes ({@code 64m}, with k, m, g or none) or a share of {@code managerBytes} ({@code 25%}, above 0
   * and at most 100); with {@code managerProperty} it must not exceed {@code managerBytes}.
   */
  private static long budget(String key, String value, long managerBytes, String managerProperty) {
    String t = value.trim().toLowerCase(Locale.ROOT);
    long bytes;
    try {
      if (t.endsWith("%")) {
        double share = Double.parseDouble(t.substring(0, t.length() - 1));
        if (!(share > 0 && share <= 100)) {
          throw new NumberFormatException();
        }
        bytes = managerBytes == Long.MAX_VALUE ? 1 : Math.max(1, (long) (managerBytes * share / 100));
      } else {
        long unit = t.endsWith("k") ? 1024L : t.endsWith("m") ? 1024L * 1024 : t.endsWith("g") ? 1024L * 1024 * 1024 : 1;
        long n = Long.parseLong(unit == 1 ? t : t.substring(0, t.length() - 1));
        if (n <= 0) {
          throw new NumberFormatException();
        }
        bytes = Math.multiplyExact(n, unit);
      }
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(ProviderProperties.CACHE_PREFIX + key
          + " must be a positive size in bytes (or with k, m, g) or a share of the manager's budget (25%), was "
          + value, e);
    }
    if (managerProperty != null && bytes > managerBytes) {
      throw new IllegalArgumentException(ProviderProperties.CACHE_PREFIX + key + " cannot exceed the manager's "
          + managerProperty + " (" + SizeRules.format(managerBytes) + "), was " + value);
    }
    return bytes;
  }

  static Duration duration(String key, String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    TimeUnit unit;
    String number;
    if (v.endsWith("ms")) {
      unit = TimeUnit.MILLISECONDS;
      number = v.substring(0, v.length() - 2);
    } else {
      unit = v.endsWith("s") ? TimeUnit.SECONDS : v.endsWith("m") ? TimeUnit.MINUTES
          : v.endsWith("h") ? TimeUnit.HOURS : v.endsWith("d") ? TimeUnit.DAYS : null;
      number = v.isEmpty() ? "" : v.substring(0, v.length() - 1);
    }
    try {
      long n = Long.parseLong(number);
      if (unit == null || n <= 0) {
        throw new NumberFormatException();
      }
      return new Duration(unit, n);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(ProviderProperties.CACHE_PREFIX + key
          + " must be a positive duration with a unit (ms, s, m, h, d), was " + value, e);
    }
  }

  private static long positiveLong(String key, String value) {
    try {
      long n = Long.parseLong(value.trim());
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw new IllegalArgumentException(ProviderProperties.CACHE_PREFIX + key + " must be a positive number of entries, was "
        + value);
  }

  private static boolean bool(String key, String value) {
    String v = value.trim();
    if (!v.equals("true") && !v.equals("false")) {
      throw new IllegalArgumentException(ProviderProperties.CACHE_PREFIX + key + " must be true or false, was " + value);
    }
    return Boolean.parseBoolean(v);
  }
}
