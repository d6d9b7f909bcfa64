package io.hybridcache.spring.boot;

import io.hybridcache.jcache.HybridCacheCounts;
import io.hybridcache.jcache.HybridCacheStatisticsMXBean;
import io.hybridcache.jcache.HybridCachingProvider;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
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
 *       flash did not take, writes not stored);
 *   <li>{@code hybridcache.jcache.background.failures}: Throwables on the provider's background threads no caller
 *       hears of (asynchronous listeners that threw or whose events the closing pool refused, {@code loadAll}
 *       failures with no completion listener, completion listeners that threw);
 *   <li>{@code hybridcache.jcache.held.bytes}, tagged {@code tier} {@code dram} or {@code flash}: the bytes a
 *       cache with a cap ({@code cache[NAME].dram-bytes} or {@code flash-bytes}, or {@code cache[default]}'s)
 *       holds now in each tier ({@link HybridCacheStatisticsMXBean#getDramBytesHeld()}, {@link
 *       HybridCacheStatisticsMXBean#getFlashBytesHeld()}); none for a cache without a cap (the engine counts
 *       nothing for it).
 * </ul>
 *
 * All but the last are function counters over {@link HybridCacheCounts} (the totals of
 * {@link HybridCacheStatisticsMXBean}'s own figures: striped counts the cache keeps on its hit and eviction paths,
 * which the MXBean's {@code clear()} does not reset, so a counter never goes back); the held bytes are gauges. The hits, evictions and
 * rejections are under {@code hybridcache.jcache.cache.} because the manager's {@code hybridcache.jcache.evictions}
 * and {@code rejections} ({@link HybridCacheEngineMeters}) carry other tag keys ({@code uri}, {@code tier},
 * {@code reason}), and a registry such as Prometheus' requires one set of tag keys per name. A cache's entries are
 * not among them yet, nor the bytes of a cache without a cap (the engine accounts neither per cache). The
 * engine's figures (hits and misses, entries and bytes per tier, rejections by reason, evictions by tier, degraded)
 * are per manager: {@link HybridCacheEngineMeters}. A cache of another provider gets Micrometer's meters only.
 * Spring Boot makes its own provider only when none of this type exists, so this one replaces it. Stateless.
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
    HybridCacheCounts totals = nativeCache.unwrap(HybridCacheCounts.class);
    return registry -> {
      jcache.bindTo(registry);
      Tags own = Tags.of(tags).and("cache", cache.getName());
      counter(registry, "hybridcache.jcache.undecodable", totals, HybridCacheCounts::undecodableValues,
          own, "Stored values that did not decode (read as a miss and removed)");
      counter(registry, "hybridcache.jcache.oversized", totals, HybridCacheCounts::oversizedEntries,
          own, "Writes of entries the engine could not keep as asked (DRAM only, flash only or not stored)");
      String hits = "Hits of get and getAll by the tier that served them";
      counter(registry, "hybridcache.jcache.cache.hits", totals, HybridCacheCounts::dramHits,
          own.and("tier", "dram"), hits);
      counter(registry, "hybridcache.jcache.cache.hits", totals, HybridCacheCounts::flashHits,
          own.and("tier", "flash"), hits);
      counter(registry, "hybridcache.jcache.cache.evictions", totals, HybridCacheCounts::evictedEntries,
          own, "The cache's entries the engine evicted from both tiers");
      counter(registry, "hybridcache.jcache.cache.rejections", totals, HybridCacheCounts::rejectedEntries,
          own, "The cache's entries the engine refused to keep (DRAM evictions flash did not take, writes not stored)");
      counter(registry, "hybridcache.jcache.background.failures", totals, HybridCacheCounts::backgroundFailures, own, "Throwables on background threads no caller hears of"
              + " (asynchronous listeners, loadAll with no completion listener)");
      if (stats.getDramBytesHeld() >= 0) { // a cache with a cap: the engine counts its bytes
        held(registry, stats, HybridCacheStatisticsMXBean::getDramBytesHeld, own.and("tier", "dram"));
        held(registry, stats, HybridCacheStatisticsMXBean::getFlashBytesHeld, own.and("tier", "flash"));
      }
    };
  }

  private static void held(MeterRegistry registry, HybridCacheStatisticsMXBean stats,
      ToDoubleFunction<HybridCacheStatisticsMXBean> bytes, Tags tags) {
    Gauge.builder("hybridcache.jcache.held.bytes", stats, bytes).tags(tags).baseUnit("bytes")
        .description("Bytes a cache with a cap holds now in the tier (flash: superseded entries included until reclaimed)")
        .register(registry);
  }

  private static void counter(MeterRegistry registry, String name, HybridCacheCounts totals,
      ToDoubleFunction<HybridCacheCounts> count, Tags tags, String description) {
    FunctionCounter.builder(name, totals, count).tags(tags).description(description).register(registry);
  }
}
