package io.hybridcache.spring.boot;

import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.function.ToDoubleFunction;
import javax.cache.CacheManager;

/**
 * Micrometer meters of a hybridcache JCache manager's engine, the DRAM and flash tiers its caches share, tagged
 * {@code uri} (the manager's URI). Names are under {@code hybridcache.jcache.}, apart from Micrometer's
 * {@code cache.*} (which Spring Boot's JCache binder registers per cache with other tag keys, and a registry
 * such as Prometheus' requires one set of tag keys per name):
 *
 * <ul>
 *   <li>{@code hybridcache.jcache.gets{result=hit,tier=dram|flash}}, {@code {result=miss,tier=none}}: lookups
 *       by the tier that served them (function counters);
 *   <li>{@code hybridcache.jcache.size{tier=dram|flash}}: entries per tier (an entry promoted from flash counts in
 *       both); {@code hybridcache.jcache.bytes{tier=dram|flash}}: the bytes DRAM accounts for, and live bytes on
 *       flash (gauges);
 *   <li>{@code hybridcache.jcache.evictions{tier=dram}}: DRAM evictions that left the cache because flash refused
 *       them ({@link CacheStats#refusedEvictions()}: the sum of the rejections over their reasons),
 *       {@code {tier=flash}}: live entries reclaim dropped for room (an eviction from DRAM to flash is none);
 *   <li>{@code hybridcache.jcache.rejections{reason=admission|queue|too_large|degraded|index_full|cap}}: DRAM
 *       evictions not written to flash, by reason ({@code cap}: the evicted entry's cache was at its own
 *       {@code flash-bytes} cap); the reason values are core's {@code hybridcache.flash.rejected}'s;
 *   <li>{@code hybridcache.jcache.degraded}: 1 while the flash tier is out of service, else 0.
 * </ul>
 *
 * These figures are the engine's, for all its caches; per cache, hits by tier, evictions and rejections are
 * {@link HybridCacheMeterBinderProvider}'s ({@code hybridcache.jcache.cache.*}), as are the bytes a cache with a cap
 * holds ({@code hybridcache.jcache.held.bytes{tier=dram|flash}}); entries, and the bytes of a cache without a cap,
 * are not kept per cache. Each read takes a fresh {@link HybridCache#stats()}
 * snapshot (a scrape reads a few dozen adders per meter); after the manager closes the meters read NaN. The
 * meters hold the manager weakly, as Micrometer's do. Only a manager of this provider is metered
 * ({@link HybridCacheMetricsAutoConfiguration}); a read of a manager that does not unwrap to its engine is NaN.
 * Thread-safe: stateless.
 */
public class HybridCacheEngineMeters implements MeterBinder {
  private final CacheManager manager;

  public HybridCacheEngineMeters(CacheManager manager) {
    this.manager = manager;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    String gets = "Lookups of the manager's caches by the tier that served them";
    counter(registry, "hybridcache.jcache.gets", gets, CacheStats::dramHits, "result", "hit", "tier", "dram");
    counter(registry, "hybridcache.jcache.gets", gets, CacheStats::flashHits, "result", "hit", "tier", "flash");
    counter(registry, "hybridcache.jcache.gets", gets, CacheStats::misses, "result", "miss", "tier", "none");
    gauge(registry, "hybridcache.jcache.size", "Entries in a tier", null, CacheStats::dramEntries, "tier", "dram");
    gauge(registry, "hybridcache.jcache.size", "Entries in a tier", null, CacheStats::flashEntries, "tier", "flash");
    String bytes = "Bytes DRAM accounts for (dram) and live bytes on flash (flash)";
    gauge(registry, "hybridcache.jcache.bytes", bytes, BaseUnits.BYTES, CacheStats::dramWeightedBytes, "tier", "dram");
    gauge(registry, "hybridcache.jcache.bytes", bytes, BaseUnits.BYTES, CacheStats::flashLiveBytes, "tier", "flash");
    String evictions = "Entries that left the caches: DRAM evictions flash refused (dram), live entries reclaim dropped"
        + " (flash)";
    counter(registry, "hybridcache.jcache.evictions", evictions, CacheStats::refusedEvictions, "tier", "dram");
    counter(registry, "hybridcache.jcache.evictions", evictions, CacheStats::reclaimEvicted, "tier", "flash");
    String rejections = "DRAM evictions not written to flash, by reason";
    counter(registry, "hybridcache.jcache.rejections", rejections, CacheStats::admissionRejected, "reason", "admission");
    counter(registry, "hybridcache.jcache.rejections", rejections, CacheStats::queueRejected, "reason", "queue");
    counter(registry, "hybridcache.jcache.rejections", rejections, CacheStats::tooLargeRejected, "reason", "too_large");
    counter(registry, "hybridcache.jcache.rejections", rejections, CacheStats::degradedRejected, "reason", "degraded");
    counter(registry, "hybridcache.jcache.rejections", rejections, CacheStats::indexFullRejected, "reason", "index_full");
    counter(registry, "hybridcache.jcache.rejections", rejections, CacheStats::capRejected, "reason", "cap");
    gauge(registry, "hybridcache.jcache.degraded", "1 while the flash tier is out of service, else 0", null,
        s -> s.degraded() ? 1 : 0);
  }

  private void counter(MeterRegistry registry, String name, String description, ToDoubleFunction<CacheStats> f,
      String... tags) {
    FunctionCounter.builder(name, manager, m -> read(m, f)).description(description).tags(tags)
        .tag("uri", String.valueOf(manager.getURI())).register(registry);
  }

  private void gauge(MeterRegistry registry, String name, String description, String baseUnit,
      ToDoubleFunction<CacheStats> f, String... tags) {
    Gauge.builder(name, manager, m -> read(m, f)).description(description).baseUnit(baseUnit).tags(tags)
        .tag("uri", String.valueOf(manager.getURI())).register(registry);
  }

  /**
   * {@code f} of a fresh snapshot of {@code m}'s engine; NaN once {@code m} is closed, or if {@code m} will not give
   * its engine (a scrape never throws: Micrometer would log it on every scrape and drop the whole scrape in some
   * registries).
   */
  private static double read(CacheManager m, ToDoubleFunction<CacheStats> f) {
    if (m.isClosed()) {
      return Double.NaN;
    }
    try {
      return f.applyAsDouble(m.unwrap(HybridCache.class).stats());
    } catch (RuntimeException closedMeanwhileOrNotOurs) {
      return Double.NaN;
    }
  }
}
