package io.hybridcache.core.metrics;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.HybridCache;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Run by {@link WithoutMicrometerTest} on a class path without Micrometer: uses a cache (JMX on), then
 * touches the binder. Prints one line per step.
 */
final class WithoutMicrometerChild {
  private WithoutMicrometerChild() {}

  public static void main(String[] args) throws Exception {
    try {
      Class.forName("io.micrometer.core.instrument.MeterRegistry");
      System.out.println("micrometer present");
    } catch (ClassNotFoundException expected) {
      System.out.println("micrometer absent");
    }
    CacheConfig config = SmallCaches.small(Path.of(args[0])).name("no-micrometer").jmx(true).build();
    byte[] v = "v".getBytes(StandardCharsets.UTF_8);
    try (HybridCache cache = HybridCache.open(config)) {
      cache.put(v, v);
      System.out.println("get " + Arrays.equals(v, cache.get(v)) + ", hits " + cache.stats().dramHits());
    }
    try {
      Class.forName("io.hybridcache.core.metrics.HybridCacheMetrics");
      System.out.println("binder loaded");
    } catch (NoClassDefFoundError e) {
      System.out.println("binder: " + e.getClass().getSimpleName() + " " + e.getMessage());
    }
  }
}
