package io.hybridcache.core.metrics;

import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Publishes a {@link HybridCache}'s {@link CacheStats} to Micrometer, under the names Micrometer's own
 * cache binders use ({@code CaffeineCacheMetrics}, {@code CacheMeterBinder}) so that existing cache
 * dashboards work, with a {@code tier} tag saying which tier:
 *
 * <ul>
 *   <li>{@code cache.gets{result=hit,tier=dram}}, {@code {result=hit,tier=flash}}, {@code
 *       {result=miss,tier=none}} (function counters; summed over {@code tier} they are Micrometer's
 *       {@code cache.gets{result=hit|miss}});
 *   <li>{@code cache.puts}, {@code cache.removals} (function counters);
 *   <li>{@code cache.evictions{tier=dram}}: DRAM evictions that left the cache because flash refused
 *       them ({@link CacheStats#refusedEvictions()}, the sum of {@code hybridcache.flash.rejected} over its reasons); {@code {tier=flash}}: live entries reclaim
 *       dropped. An eviction from DRAM to flash is no eviction from the cache;
 *   <li>{@code cache.size{tier=dram|flash}}: entries per tier (gauges; an entry promoted from flash
 *       counts in both);
 * </ul>
 *
 * plus the flash tier's own figures under {@code hybridcache.*} (src/site/metrics.md lists them). Every meter is
 * tagged {@code cache=NAME} and with the caller's tags; a meter name has the same tag keys wherever it
 * appears, as Prometheus requires. The text {@link CacheStats#lastFault()} is on JMX only.
 *
 * <p>Scrapes read one shared snapshot: {@link HybridCache#stats()} is taken at most once per
 * {@code snapshotMaxAge} (default {@link #DEFAULT_SNAPSHOT_MAX_AGE}) by all of this binder's meters.
 * The meters hold the cache weakly, as Micrometer's binders do: keep a reference to the cache. After
 * {@link HybridCache#close()} they report the final figures.
 *
 * <p>Micrometer is an optional dependency of the library: only this package uses it, and it is loaded
 * only when this class is. Thread-safe: immutable; {@link #bindTo} may be called for several registries.
 */
// "exports": Micrometer's types in this API are not re-exported (requires static): a module that binds
// meters names a MeterRegistry, so it requires micrometer.core itself
@SuppressWarnings("exports")
public final class HybridCacheMetrics implements MeterBinder {
  /** How long by default one stats snapshot serves the meters of a binder. */
  public static final Duration DEFAULT_SNAPSHOT_MAX_AGE = Duration.ofSeconds(1);

  private final StatsMeters<?> meters;

  /** Meters for {@code cache}, tagged {@code cache=cacheName} and {@code tags}. */
  public HybridCacheMetrics(HybridCache cache, String cacheName, Iterable<Tag> tags) {
    this(cache, cacheName, tags, DEFAULT_SNAPSHOT_MAX_AGE);
  }

  /**
   * As {@link #HybridCacheMetrics(HybridCache, String, Iterable)}, taking a new snapshot for a read at
   * least {@code snapshotMaxAge} after the last ({@link Duration#ZERO}: one per meter read).
   */
  public HybridCacheMetrics(HybridCache cache, String cacheName, Iterable<Tag> tags, Duration snapshotMaxAge) {
    this(Objects.requireNonNull(cache, "cache"), HybridCache::stats, cacheName, tags, snapshotMaxAge, System::nanoTime);
  }

  /** Over any {@code source} of stats, with a clock (tests). */
  <T> HybridCacheMetrics(T source, Function<T, CacheStats> statsOf, String cacheName, Iterable<Tag> tags,
      Duration snapshotMaxAge, LongSupplier nanoTime) {
    Objects.requireNonNull(cacheName, "cacheName");
    if (cacheName.isBlank()) {
      throw new IllegalArgumentException("cacheName must not be blank, was \"" + cacheName + "\"");
    }
    Objects.requireNonNull(snapshotMaxAge, "snapshotMaxAge");
    if (snapshotMaxAge.isNegative()) {
      throw new IllegalArgumentException("snapshotMaxAge must be >= 0, was " + snapshotMaxAge);
    }
    long maxAgeNanos;
    try {
      maxAgeNanos = snapshotMaxAge.toNanos();
    } catch (ArithmeticException tooLong) { // beyond 292 years: the first snapshot serves for ever
      maxAgeNanos = Long.MAX_VALUE;
    }
    this.meters = new StatsMeters<>(source, new StatsSnapshot<>(statsOf, maxAgeNanos, nanoTime),
        Tags.concat(Objects.requireNonNull(tags, "tags"), "cache", cacheName));
  }

  /**
   * Binds meters for {@code cache} to {@code registry}, tagged {@code cache=cacheName} and the
   * key-value pairs {@code tags}; returns {@code cache}.
   */
  public static HybridCache monitor(MeterRegistry registry, HybridCache cache, String cacheName, String... tags) {
    return monitor(registry, cache, cacheName, Tags.of(tags));
  }

  /** As {@link #monitor(MeterRegistry, HybridCache, String, String...)} with {@code tags}. */
  public static HybridCache monitor(MeterRegistry registry, HybridCache cache, String cacheName, Iterable<Tag> tags) {
    new HybridCacheMetrics(cache, cacheName, tags).bindTo(registry);
    return cache;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    StatsMeters<?> m = meters;
    String gets = "The number of times cache lookup methods have returned a cached (hit) or uncached (miss) value;"
        + " tier: the tier that served the hit";
    m.counter(registry, "cache.gets", gets, null, CacheStats::dramHits, "result", "hit", "tier", "dram");
    m.counter(registry, "cache.gets", gets, null, CacheStats::flashHits, "result", "hit", "tier", "flash");
    m.counter(registry, "cache.gets", gets, null, CacheStats::misses, "result", "miss", "tier", "none");
    m.counter(registry, "cache.puts", "The number of entries added to the cache", null, CacheStats::puts);
    m.counter(registry, "cache.removals", "The number of entries removed by the caller", null, CacheStats::removes);
    String evictions = "Entries that left the cache: DRAM evictions flash refused (dram), live entries reclaim dropped"
        + " (flash)";
    m.counter(registry, "cache.evictions", evictions, null, CacheStats::refusedEvictions, "tier", "dram");
    m.counter(registry, "cache.evictions", evictions, null, CacheStats::reclaimEvicted, "tier", "flash");
    String size = "The number of entries in a tier of this cache";
    m.gauge(registry, "cache.size", size, null, CacheStats::dramEntries, "tier", "dram");
    m.gauge(registry, "cache.size", size, null, CacheStats::flashEntries, "tier", "flash");
    FlashMeters.bind(m, registry);
  }
}
