package io.hybridcache.spring.boot;

import io.hybridcache.jcache.HybridCacheStatisticsMXBean;
import io.hybridcache.jcache.HybridCachingProvider;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.boot.cache.metrics.JCacheCacheMeterBinderProvider;
import org.springframework.cache.jcache.JCacheCache;

/**
 * Spring Boot's JCache meter binder provider, extended for hybridcache's caches: each cache Spring Boot binds
 * ({@code CacheMetricsRegistrar}: the caches Spring's manager knows at start, and any bound later through the
 * registrar) gets Micrometer's own JCache meters ({@code cache.gets}, {@code cache.puts}, {@code cache.removals},
 * {@code cache.evictions}: the JCache statistics, so only with {@code cache.NAME.statistics=true}) and beside
 * them, with the same tags ({@code cache}, {@code cache.manager}, {@code name}), what only this provider counts
 * per cache, counted whether statistics are on or not:
 *
 * <ul>
 *   <li>{@code hybridcache.jcache.undecodable}: stored values that no longer decoded (read as a miss and removed);
 *   <li>{@code hybridcache.jcache.oversized}: writes of entries the engine could not keep as asked;
 *   <li>{@code hybridcache.jcache.held.bytes}, tagged {@code tier} {@code dram} or {@code flash}: the bytes a
 *       cache with a cap ({@code cache[NAME].dram-bytes} or {@code flash-bytes}, or {@code cache[default]}'s)
 *       holds now in each tier ({@link HybridCacheStatisticsMXBean#getDramBytesHeld()}, {@link
 *       HybridCacheStatisticsMXBean#getFlashBytesHeld()}); none for a cache without a cap (the engine counts
 *       nothing for it).
 * </ul>
 *
 * The engine's tier figures (DRAM and flash hits, entries and bytes per tier, rejections, evictions, degraded)
 * are per manager, not per cache: {@link HybridCacheEngineMeters}. A cache of another provider gets Micrometer's
 * meters only. Spring Boot makes its own provider only when none of this type exists, so this one replaces it.
 * Stateless.
 */
public class HybridCacheMeterBinderProvider extends JCacheCacheMeterBinderProvider {
  @Override
  public MeterBinder getMeterBinder(JCacheCache cache, Iterable<Tag> tags) {
    MeterBinder jcache = super.getMeterBinder(cache, tags);
    javax.cache.Cache<Object, Object> nativeCache = cache.getNativeCache();
    if (!(nativeCache.getCacheManager().getCachingProvider() instanceof HybridCachingProvider)) {
      return jcache;
    }
    HybridCacheStatisticsMXBean stats = nativeCache.unwrap(HybridCacheStatisticsMXBean.class);
    return registry -> {
      jcache.bindTo(registry);
      FunctionCounter.builder("hybridcache.jcache.undecodable", stats, HybridCacheStatisticsMXBean::getUndecodableValues)
          .tags(tags).tag("cache", cache.getName())
          .description("Stored values that did not decode (read as a miss and removed)").register(registry);
      FunctionCounter.builder("hybridcache.jcache.oversized", stats, HybridCacheStatisticsMXBean::getOversizedEntries)
          .tags(tags).tag("cache", cache.getName())
          .description("Writes of entries the engine could not keep as asked (DRAM only, flash only or not stored)")
          .register(registry);
      if (stats.getDramBytesHeld() >= 0) { // a cache with a cap: the engine counts its bytes
        held(registry, cache, tags, "dram", stats, HybridCacheStatisticsMXBean::getDramBytesHeld);
        held(registry, cache, tags, "flash", stats, HybridCacheStatisticsMXBean::getFlashBytesHeld);
      }
    };
  }

  private static void held(io.micrometer.core.instrument.MeterRegistry registry, JCacheCache cache,
      Iterable<Tag> tags, String tier, HybridCacheStatisticsMXBean stats,
      java.util.function.ToDoubleFunction<HybridCacheStatisticsMXBean> bytes) {
    Gauge.builder("hybridcache.jcache.held.bytes", stats, bytes).tags(tags).tag("cache", cache.getName())
        .tag("tier", tier).baseUnit("bytes")
        .description("Bytes a cache with a cap holds now in the tier (flash: superseded entries included until reclaimed)")
        .register(registry);
  }
}
