package io.hybridcache.core.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.RandomReject;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The binder's meters on a real cache and over made-up snapshots: names, tags, values, snapshot sharing. */
class HybridCacheMetricsTest {
  @TempDir Path dir;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** The value of the one meter {@code name} with {@code tags}. */
  static double value(MeterRegistry registry, String name, String... tags) {
    Meter m = registry.get(name).tags(tags).meter();
    return m.measure().iterator().next().getValue();
  }

  /** A binder over whatever {@code stats} holds, taking a fresh snapshot per read. */
  private static MeterRegistry bound(Supplier<CacheStats> stats, String... tags) {
    MeterRegistry registry = new SimpleMeterRegistry();
    new HybridCacheMetrics(stats, Supplier::get, "made-up", Tags.of(tags), Duration.ZERO, System::nanoTime)
        .bindTo(registry);
    return registry;
  }

  /** Stats with every field 0 (or false, or "") except {@code component}, set to {@code value}. */
  private static CacheStats onlyOne(int component, Object value) throws Exception {
    var cs = CacheStats.class.getRecordComponents();
    Object[] values = new Object[cs.length];
    Class<?>[] types = new Class<?>[cs.length];
    for (int i = 0; i < cs.length; i++) {
      types[i] = cs[i].getType();
      values[i] = types[i] == long.class ? (Object) 0L : types[i] == int.class ? (Object) 0
          : types[i] == boolean.class ? (Object) false
          : types[i] == io.hybridcache.core.api.SmallObjectStats.class ? io.hybridcache.core.api.SmallObjectStats.OFF : "";
    }
    values[component] = value;
    return CacheStats.class.getDeclaredConstructor(types).newInstance(values);
  }

  @Test
  void metersMatchStatsOnARealCacheWithHitsInBothTiersMissesAndRefusedEvictions() {
    CacheConfig config = SmallCaches.small(dir).dramBytes(CacheConfig.MIB).admission(new RandomReject(0.5)).build();
    MeterRegistry registry = new SimpleMeterRegistry();
    HybridCache cache = HybridCache.open(config); // the meters hold it weakly: referenced to the end
    try (cache) {
      new HybridCacheMetrics(cache, "rows", Tags.of("region", "eu"), Duration.ZERO).bindTo(registry);
      for (int i = 0; i < 3000; i++) {
        cache.put(bytes("k" + i), new byte[1000]); // 3 MB through a 1 MiB DRAM tier
      }
      cache.flush();
      for (int i = 0; i < 3100; i++) {
        cache.get(bytes("k" + i)); // DRAM hits, flash hits, misses (refused by admission, or never put)
      }
      for (int i = 0; i < 10; i++) {
        cache.remove(bytes("k" + i));
      }
      CacheStats s = cache.stats();
      assertTrue(s.dramHits() > 0 && s.flashHits() > 0 && s.misses() > 100 && s.admissionRejected() > 0, s::toString);
      assertMetersShow(registry, s);

      cache.put(bytes("one more"), new byte[10]);
      assertEquals(s.puts() + 1, value(registry, "cache.puts", "cache", "rows"), "max age 0: a fresh snapshot");
    }
    assertEquals(3001, value(registry, "cache.puts", "cache", "rows", "region", "eu"), "after close: final figures");
    Reference.reachabilityFence(cache);
  }

  private static void assertMetersShow(MeterRegistry registry, CacheStats s) {
    assertEquals(s.dramHits(), value(registry, "cache.gets", "result", "hit", "tier", "dram"));
    assertEquals(s.flashHits(), value(registry, "cache.gets", "result", "hit", "tier", "flash"));
    assertEquals(s.misses(), value(registry, "cache.gets", "result", "miss", "tier", "none"));
    assertEquals(s.gets(), registry.get("cache.gets").functionCounters().stream().mapToDouble(FunctionCounter::count)
        .sum(), "the three cache.gets series add up to all lookups");
    assertEquals(s.puts(), value(registry, "cache.puts"));
    assertEquals(s.removes(), value(registry, "cache.removals"));
    assertEquals(10, s.removes());
    assertEquals(s.admissionRejected() + s.queueRejected() + s.tooLargeRejected() + s.degradedRejected()
        + s.indexFullRejected() + s.capRejected(), value(registry, "cache.evictions", "tier", "dram"));
    assertEquals(s.reclaimEvicted(), value(registry, "cache.evictions", "tier", "flash"));
    assertEquals(s.dramEntries(), value(registry, "cache.size", "tier", "dram"));
    assertEquals(s.flashEntries(), value(registry, "cache.size", "tier", "flash"));
    assertEquals(s.admissionRejected(), value(registry, "hybridcache.flash.rejected", "reason", "admission"));
    assertEquals(s.deviceReads(), value(registry, "hybridcache.flash.reads"));
    assertEquals(s.devicePagesRead(), value(registry, "hybridcache.flash.pages.read"));
    assertEquals(s.pagesPerFlashHit(), value(registry, "hybridcache.flash.pages.per.hit"), 1e-12);
    assertEquals(s.flashLiveBytes(), value(registry, "hybridcache.live", "tier", "flash"));
    assertEquals(s.dramWeightedBytes(), value(registry, "hybridcache.live", "tier", "dram"));
    assertEquals(s.flushBytesWritten(), value(registry, "hybridcache.flash.written", "source", "flush"));
    assertEquals(s.appWriteAmplification(), value(registry, "hybridcache.flash.write.amplification"), 1e-12);
    assertEquals(s.sealedSegments(), value(registry, "hybridcache.flash.segments", "state", "sealed"));
    assertEquals(0, value(registry, "hybridcache.flash.degraded"));
  }

  @Test
  void everyNumericStatsFieldIsTheValueOfAMeter() throws Exception {
    Set<String> notMeters = Set.of(
        "gets", // the sum of the three cache.gets series
        "lastFault", // text: on JMX only
        "smallObjects"); // a record: its figures have meters of their own (FlashMeters, engine=small)
    var cs = CacheStats.class.getRecordComponents();
    List<String> missing = new ArrayList<>();
    for (int i = 0; i < cs.length; i++) {
      Class<?> t = cs[i].getType();
      if (notMeters.contains(cs[i].getName())) {
        continue;
      }
      long expected = 7001 + i;
      CacheStats s = onlyOne(i, t == long.class ? (Object) expected : t == int.class ? (Object) (int) expected : true);
      double want = t == boolean.class ? 1 : expected;
      MeterRegistry registry = bound(() -> s);
      boolean shown = registry.getMeters().stream()
          .anyMatch(m -> m.measure().iterator().next().getValue() == want);
      if (!shown) {
        missing.add(cs[i].getName());
      }
    }
    assertEquals(List.of(), missing, "CacheStats fields no meter shows");
  }

  /**
   * An eviction refused because its key group was at its flash cap left the cache as much as one refused for any
   * other reason: it is a {@code hybridcache.flash.rejected} of its own reason and a {@code cache.evictions{tier=dram}}.
   */
  @Test
  void anEvictionRefusedForAGroupsFlashCapIsARejectionAndADramEviction() throws Exception {
    var cs = CacheStats.class.getRecordComponents();
    int cap = 0;
    while (!cs[cap].getName().equals("capRejected")) {
      cap++;
    }
    CacheStats s = onlyOne(cap, 4242L);
    MeterRegistry registry = bound(() -> s);
    assertEquals(4242, value(registry, "hybridcache.flash.rejected", "reason", "cap"));
    assertEquals(4242, registry.get("hybridcache.flash.rejected").functionCounters().stream()
        .mapToDouble(FunctionCounter::count).sum(), "the reasons add up to the refusals");
    assertEquals(4242, value(registry, "cache.evictions", "tier", "dram"));
  }

  @Test
  void namesAndTagsAreMicrometersCacheMetersWithATierTag() {
    MeterRegistry registry = new SimpleMeterRegistry();
    CacheStats zero;
    try (HybridCache cache = HybridCache.open(SmallCaches.small(dir).build())) {
      HybridCacheMetrics.monitor(registry, cache, "users", "app", "shop");
      zero = cache.stats();
    }
    Map<String, Set<String>> cacheMeters = new TreeMap<>();
    Map<String, Set<Set<String>>> tagKeys = new HashMap<>();
    for (Meter m : registry.getMeters()) {
      Meter.Id id = m.getId();
      assertEquals("users", id.getTag("cache"), id::toString);
      assertEquals("shop", id.getTag("app"), id::toString);
      assertTrue(id.getName().startsWith("cache.") || id.getName().startsWith("hybridcache."), id::toString);
      tagKeys.computeIfAbsent(id.getName(), k -> new HashSet<>())
          .add(id.getTags().stream().map(Tag::getKey).collect(Collectors.toSet()));
      if (id.getName().startsWith("cache.")) {
        cacheMeters.computeIfAbsent(id.getName(), k -> new TreeSet<>()).add(id.getTags().stream()
            .filter(t -> !Set.of("cache", "app").contains(t.getKey())).map(t -> t.getKey() + "=" + t.getValue())
            .collect(Collectors.joining(",")));
      }
    }
    assertEquals(Map.of(
        "cache.gets", Set.of("result=hit,tier=dram", "result=hit,tier=flash", "result=miss,tier=none"),
        "cache.puts", Set.of(""),
        "cache.removals", Set.of(""),
        "cache.evictions", Set.of("tier=dram", "tier=flash"),
        "cache.size", Set.of("tier=dram", "tier=flash")), cacheMeters);
    tagKeys.forEach((name, keys) -> assertEquals(1, keys.size(), name + ": one set of tag keys (Prometheus)"));
    assertTrue(registry.get("cache.gets").meters().stream().allMatch(m -> m instanceof FunctionCounter));
    assertTrue(registry.get("cache.size").meters().stream().allMatch(m -> m instanceof Gauge));
    assertEquals("bytes", registry.get("hybridcache.live").meters().iterator().next().getId().getBaseUnit());
    assertEquals(zero.freeSegments(), value(registry, "hybridcache.flash.segments", "state", "free"));
    assertEquals(32, zero.freeSegments(), "8 MiB of 256 KiB segments");
  }

  @Test
  void aScrapeReadsOneSnapshotUntilItIsAsOldAsTheMaxAge() {
    AtomicInteger snapshots = new AtomicInteger();
    AtomicReference<CacheStats> current = new AtomicReference<>();
    AtomicLong nanos = new AtomicLong(1_000);
    Supplier<CacheStats> stats = () -> {
      snapshots.incrementAndGet();
      return current.get();
    };
    setPuts(current, 5);
    MeterRegistry registry = new SimpleMeterRegistry();
    new HybridCacheMetrics(stats, Supplier::get, "c", Tags.empty(), Duration.ofNanos(100), nanos::get)
        .bindTo(registry);
    int meters = registry.getMeters().size();
    assertTrue(meters > 40, "meters: " + meters);
    registry.getMeters().forEach(m -> m.measure().forEach(x -> x.getValue())); // one scrape
    assertEquals(1, snapshots.get(), "one snapshot for " + meters + " meters");

    setPuts(current, 6);
    nanos.addAndGet(99);
    assertEquals(5, value(registry, "cache.puts"), "99 ns old: still the first snapshot");
    assertEquals(1, snapshots.get());
    nanos.addAndGet(1);
    assertEquals(6, value(registry, "cache.puts"), "100 ns old: replaced");
    assertEquals(2, snapshots.get());
  }

  private static void setPuts(AtomicReference<CacheStats> current, long puts) {
    try {
      current.set(onlyOne(8, puts));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void badArgumentsAreRefusedNamingTheValue() {
    Supplier<CacheStats> none = () -> null;
    IllegalArgumentException blank = assertThrows(IllegalArgumentException.class,
        () -> new HybridCacheMetrics(none, Supplier::get, " ", Tags.empty(), Duration.ZERO, System::nanoTime));
    assertEquals("cacheName must not be blank, was \" \"", blank.getMessage());
    IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
        () -> new HybridCacheMetrics(none, Supplier::get, "c", Tags.empty(), Duration.ofMillis(-5), System::nanoTime));
    assertEquals("snapshotMaxAge must be >= 0, was PT-0.005S", negative.getMessage());
    assertThrows(NullPointerException.class, () -> new HybridCacheMetrics(null, "c", Tags.empty()));
  }
}
