package io.hybridcache.spring.boot;

import io.hybridcache.jcache.HybridCacheStatisticsMXBean;
import io.hybridcache.jcache.HybridCachingProvider;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.boot.cache.metrics.JCacheCacheMeterBinderProvider;
import java.util.function.ToDoubleFunction;
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
 *   <li>{@code hybridcache.jcache.cache.hits{tier=dram|flash}}: hits of {@code get} and {@code getAll} by the tier
 *       that served them;
 *   <li>{@code hybridcache.jcache.cache.evictions}: the cache's entries the engine evicted from both tiers;
 *   <li>{@code hybridcache.jcache.cache.rejections}: the cache's entries the engine refused to keep (DRAM evictions
 *       flash did not take, writes not stored).
 * </ul>
 *
 * All are function counters over {@link HybridCacheStatisticsMXBean} (its {@code get...} figures: striped counts
 * the cache keeps on its hit and eviction paths). The last three are under {@code hybridcache.jcache.cache.} because
 * the manager's {@code hybridcache.jcache.evictions} and {@code rejections} ({@link HybridCacheEngineMeters}) carry
 * other tag keys ({@code uri}, {@code tier}, {@code reason}), and a registry such as Prometheus' requires one set
 * of tag keys per name. The cache's entries and bytes are not among them yet (the engine accounts neither per
 * cache). The engine's figures (hits and misses, entries and bytes per tier, rejections by reason, evictions by
 * tier, degraded) are per manager: {@link HybridCacheEngineMeters}. A cache of another provider gets Micrometer's
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
      Tags own = Tags.of(tags).and("cache", cache.getName());
      counter(registry, "hybridcache.jcache.undecodable", stats, HybridCacheStatisticsMXBean::getUndecodableValues,
          own, "Stored values that did not decode (read as a miss and removed)");
      counter(registry, "hybridcache.jcache.oversized", stats, HybridCacheStatisticsMXBean::getOversizedEntries,
          own, "Writes of entries the engine could not keep as asked (DRAM only, flash only or not stored)");
      String hits = "Hits of get and getAll by the tier that served them";
      counter(registry, "hybridcache.jcache.cache.hits", stats, HybridCacheStatisticsMXBean::getDramHits,
          own.and("tier", "dram"), hits);
      counter(registry, "hybridcache.jcache.cache.hits", stats, HybridCacheStatisticsMXBean::getFlashHits,
          own.and("tier", "flash"), hits);
      counter(registry, "hybridcache.jcache.cache.evictions", stats, HybridCacheStatisticsMXBean::getEvictedEntries,
          own, "The cache's entries the engine evicted from both tiers");
      counter(registry, "hybridcache.jcache.cache.rejections", stats, HybridCacheStatisticsMXBean::getRejectedEntries,
          own, "The cache's entries the engine refused to keep (DRAM evictions flash did not take, writes not stored)");
    };
  }

  private static void counter(MeterRegistry registry, String name, HybridCacheStatisticsMXBean stats,
      ToDoubleFunction<HybridCacheStatisticsMXBean> count, Tags tags, String description) {
    FunctionCounter.builder(name, stats, count).tags(tags).description(description).register(registry);
  }
}
