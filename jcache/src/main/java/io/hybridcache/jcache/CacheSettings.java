package io.hybridcache.jcache;

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
 * {@code store-by-reference} ({@code true}: a heap map, never evicted, never on flash, gone at close: e.g.
 * Hibernate's update-timestamps region) and {@code clear-on-start} ({@code true}: the cache starts empty each
 * time the manager creates it, e.g. Hibernate's query-results region, whose entries are only as good as the
 * timestamps region).
 * An expiry applies only to a configuration that left the default (eternal) policy. Every cache named by
 * such a property is declared: the manager creates it when it is made ({@link #declared}).
 * Immutable; validated when the manager is made (an error names the property and its value).
 */
final class CacheSettings {
  static final Set<String> NAMES = Set.of("key-codec", "value-codec", "expire-after-write", "expire-after-access",
      "statistics", "management", "key-type", "value-type", "store-by-reference", "clear-on-start");

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
          || setting.equals("clear-on-start")) {
        bool(key, e.getValue());
      }
    }
    this.settings = Map.copyOf(settings);
  }

  /** The names of the caches these settings declare (each named by at least one {@code cache.NAME.SETTING}), sorted. */
  Set<String> declared() {
    Set<String> names = new TreeSet<>();
    for (String key : settings.keySet()) {
      names.add(key.substring(0, key.lastIndexOf('.')));
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
      return Class.forName(name, false, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      throw new IllegalArgumentException(ProviderProperties.CACHE_PREFIX + cacheName + "." + setting
          + " must name a class the CacheManager's class loader can load, was " + name, e);
    }
  }

  /** {@code cache.NAME.SETTING}, or null. */
  String get(String cacheName, String setting) {
    return settings.get(cacheName + "." + setting);
  }

  /** Applies the expiry, statistics and management settings of {@code cacheName} to {@code config}. */
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
    }
    String management = get(cacheName, "management");
    if (management != null) {
      config.setManagementEnabled(bool(cacheName + ".management", management));
    }
  }

  /** {@code cache.NAME.clear-on-start}: whether {@code cacheName} starts empty each time it is created. */
  boolean clearOnStart(String cacheName) {
    String v = get(cacheName, "clear-on-start");
    return v != null && bool(cacheName + ".clear-on-start", v);
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

  private static boolean bool(String key, String value) {
    String v = value.trim();
    if (!v.equals("true") && !v.equals("false")) {
      throw new IllegalArgumentException(ProviderProperties.CACHE_PREFIX + key + " must be true or false, was " + value);
    }
    return Boolean.parseBoolean(v);
  }
}
