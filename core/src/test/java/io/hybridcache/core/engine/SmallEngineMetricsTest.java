package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.RemovalCause;
import io.hybridcache.core.device.Device;
import io.hybridcache.core.device.FaultInjectingDevice;
import io.hybridcache.core.metrics.HybridCacheMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cache-wide figures and removal events with the small-object engine on (issue 34, item 9): what
 * src/site/metrics.md promises, "the cache-wide figures cover both engines", for page reads, buffer hits,
 * evictions, waits, damaged pages and out-of-memory misses.
 */
class SmallEngineMetricsTest {
  private static final int SMALL = SmallEngineWiringTest.SMALL;
  private static final int KEYS = 1000;

  @TempDir
  Path dir;

  private final AtomicReference<FaultInjectingDevice> device = new AtomicReference<>();

  private Engine openFaulty(CacheConfig c) {
    return TestCaches.openSmallFaulty(c, device);
  }

  private static void fill(Engine cache, int from, int to) {
    for (int i = from; i < to; i++) {
      cache.put(key(i), value(i, 1, SMALL));
    }
    cache.writeBackAndDropDram();
  }

  /** Reads every key, each a hit of its only version or a miss; returns the misses and empties DRAM. */
  private static int readAll(Engine cache) {
    return SmallEngineFaultTest.readAll(cache, 1);
  }

  @Test
  void pagesPerFlashHitCountsTheSmallEnginesPageReads() {
    try (Engine cache = TestCaches.open(SmallEngineWiringTest.config(dir).build())) {
      MeterRegistry registry = new SimpleMeterRegistry();
      new HybridCacheMetrics(cache, "c", Tags.empty(), Duration.ZERO).bindTo(registry);
      fill(cache, 0, KEYS);
      readAll(cache);
      CacheStats s = cache.stats();
      long smallReads = s.smallObjects().deviceReads();
      assertTrue(smallReads > 0 && s.flashHits() > s.bufferHits(), "an all-small workload read pages: " + s);
      assertEquals(smallReads, s.devicePagesRead(), "every small-engine read is one 4 KiB page (no log-engine reads)");
      assertTrue(s.pagesPerFlashHit() >= 1.0, "a flash hit from the device reads a page at least: " + s.pagesPerFlashHit());
      assertEquals(s.pagesPerFlashHit(), registry.get("hybridcache.flash.pages.per.hit").gauge().value(), 1e-9);
      assertEquals(s.devicePagesRead(), registry.get("hybridcache.flash.pages.read").functionCounter().count(), 1e-9);
    }
  }

  @Test
  void aHitInTheSmallLogsWriteBufferIsABufferHit() {
    try (Engine cache = TestCaches.open(SmallEngineWiringTest.config(dir).build())) {
      cache.put(key(1), value(1, 1, SMALL));
      cache.writeBackAndDropDram(); // in the small log's buffer, not written yet
      assertArrayEquals(value(1, 1, SMALL), cache.get(key(1)));
      CacheStats s = cache.stats();
      assertEquals(1, s.flashHits());
      assertEquals(0, s.deviceReads(), "served from DRAM's log buffer");
      assertEquals(1, s.bufferHits(), "a flash hit with no device read is a buffer hit: " + s);
    }
  }

  @Test
  void smallEngineDropsAreToldAsEvictedAndCountedAsFlashEvictions() {
    Set<String> told = ConcurrentHashMap.newKeySet();
    AtomicInteger events = new AtomicInteger();
    CacheConfig c = SmallEngineWiringTest.config(dir).removalExecutor(Runnable::run)
        .removalListener((k, v, cause) -> {
          if (cause == RemovalCause.EVICTED) {
            events.incrementAndGet();
            told.add(new String(k, java.nio.charset.StandardCharsets.UTF_8));
          }
        }).build();
    int keys = 20_000; // distinct, never read: nothing readmitted, nothing shadowed, nothing back in DRAM
    try (Engine cache = TestCaches.open(c)) {
      MeterRegistry registry = new SimpleMeterRegistry();
      new HybridCacheMetrics(cache, "c", Tags.empty(), Duration.ZERO).bindTo(registry);
      for (int i = 0; i < keys; i++) {
        cache.put(key(i), value(i, 1, SMALL));
      }
      cache.smallTier().stopReclaimingAndWait(); // no background drop from here on
      int gone = 0;
      for (int i = 0; i < keys; i++) {
        if (!cache.containsKey(key(i))) {
          gone++;
          assertTrue(told.contains("key-" + i), "key " + i + " left the cache untold");
        }
      }
      CacheStats s = cache.stats();
      assertEquals(0, s.smallObjects().faults(), "no fault: every loss is an eviction");
      assertTrue(s.smallObjects().logObjectsDropped() > 0 && s.smallObjects().setRewrites() > 0, "drops ran: " + s);
      assertEquals(gone, told.size(), "only keys that left were told");
      assertEquals(gone, events.get(), "each once");
      long refused = s.admissionRejected() + s.queueRejected() + s.tooLargeRejected() + s.degradedRejected()
          + s.indexFullRejected();
      assertEquals(gone - refused, s.reclaimEvicted(), "the small engine's drops are flash evictions: " + s);
      assertEquals(s.reclaimEvicted(), registry.get("cache.evictions").tags("tier", "flash").functionCounter().count(),
          1e-9);
    }
  }

  /**
   * A removal listener on the evicting thread (a direct executor) that calls the cache back, here a remove
   * of a key the small engine holds: the engine tells its evictions once its log's I/O lock is released,
   * so the remove does not wait for the reclaim that is telling it (before: it waited its second out, then
   * emptied the engine as a fault, the review's finding on item 9).
   */
  @Test
  void aListenerOnTheEvictingThreadMayCallTheCacheBack() {
    java.util.concurrent.atomic.AtomicReference<Engine> ref = new java.util.concurrent.atomic.AtomicReference<>();
    AtomicInteger callbacks = new AtomicInteger();
    int held = 1_000_000; // keys the small engine holds, removed by the listener
    CacheConfig c = SmallEngineWiringTest.config(dir).removalExecutor(Runnable::run)
        .removalListener((k, v, cause) -> {
          if (cause == RemovalCause.EVICTED && Thread.currentThread().getName().startsWith("hybridcache-small-")
              && callbacks.get() < 20) {
            ref.get().remove(key(held + callbacks.getAndIncrement() % 10));
          }
        }).build();
    try (Engine cache = TestCaches.open(c)) {
      ref.set(cache);
      for (int i = 0; i < 10; i++) {
        cache.put(key(held + i), value(held + i, 1, SMALL));
      }
      cache.writeBackAndDropDram();
      for (int i = 0; i < 20_000 && callbacks.get() < 20; i++) {
        cache.put(key(i), value(i, 1, SMALL));
      }
      cache.smallTier().stopReclaimingAndWait();
      assertTrue(callbacks.get() > 0, "the listener ran on the small engine's threads");
      assertEquals(0, cache.stats().smallObjects().faults(), "no remove timed out: " + cache.stats().smallObjects());
      assertEquals(0, cache.stats().smallObjects().resets(), "never emptied");
    }
  }

  @Test
  void smallEngineWaitsAreCascadeWaitsAndATimeoutIsReported() throws Exception {
    CacheConfig c = SmallEngineWiringTest.config(dir).cascadeWait(Duration.ofMillis(200)).build();
    Engine cache = openFaulty(c);
    try {
      device.get().holdWrites(); // the reclaimer's flush hangs in the device, holding the log's I/O lock
      int i = 0;
      while (cache.counters().queueRejected.sum() + cache.smallTier().refusals() == 0 && i < 100_000) {
        cache.put(key(i), value(i, 1, SMALL));
        i++;
      }
      assertTrue(device.get().awaitHeldWrite(30, TimeUnit.SECONDS), "the flush reached the device");
      assertTrue(cache.smallTier().refusals() > 0, "an eviction waited for the log's room in vain");
      long waits = cache.stats().cascadeWaits();
      assertTrue(waits >= 1, "the eviction's wait for the log's buffer is a cascade wait: " + cache.stats());
      assertEquals(1, cache.smallTier().stallReports(), "its timeout is reported (once: the engine is stalled)");
      cache.remove(key(0)); // waits for the I/O lock the hung flush holds, then empties the engine
      assertEquals(waits + 1, cache.stats().cascadeWaits(), "the remove's wait for the log's I/O is one too");
      assertEquals(2, cache.smallTier().stallTimeouts(), "both waits timed out");
    } finally {
      device.get().releaseWrites();
      cache.close();
    }
  }

  @Test
  void pagesOfAnEarlierEpochAreNotDamaged() {
    try (Engine cache = TestCaches.open(SmallEngineWiringTest.config(dir).build())) {
      fill(cache, 0, KEYS);
      long rewrites = cache.stats().smallObjects().setRewrites();
      assertTrue(rewrites > 0, "sets written in the first epoch");
      cache.clear(); // a new epoch over the same slots
      fill(cache, KEYS, 2 * KEYS);
      assertTrue(cache.stats().smallObjects().setRewrites() > rewrites, "sets rewritten over the old epoch's pages");
      assertEquals(0, cache.stats().smallObjects().damagedPages(), "a page of an earlier epoch is empty, not damaged");
    }
  }

  /**
   * The rewrite path's own check (a set rewrite reads the page it merges into): a page of the region's epoch
   * that fails verification is damaged, counted; the same slot's page of an earlier epoch is empty, not counted.
   */
  @Test
  void aRewriteCountsADamagedPageOfItsEpochOnly() throws Exception {
    io.hybridcache.core.device.MemoryDevice dev = new io.hybridcache.core.device.MemoryDevice(1, 4096); // one set
    SmallSets first = new SmallSets(dev, 0, 1, SmallSets.Options.DEFAULT);
    assertTrue(first.put(key(1), value(1, 1, SMALL), 1, 0));
    java.nio.ByteBuffer page = Device.allocateAligned(4096);
    dev.read(0, 0, page);
    page.put(4000, (byte) (page.get(4000) ^ 1)); // a flipped bit in the tail: the CRC fails, the header stands
    dev.write(0, 0, page.flip());
    assertTrue(first.put(key(2), value(2, 1, SMALL), 2, 0), "the rewrite starts from an empty page");
    assertEquals(1, first.stats().damagedPages(), "a damaged page of this epoch");

    SmallSets next = new SmallSets(dev, 0, 1, SmallSets.Options.DEFAULT); // a new epoch (clear, cold open)
    assertTrue(next.put(key(3), value(3, 1, SMALL), 3, 0));
    assertEquals(0, next.stats().damagedPages(), "the earlier epoch's intact page is empty, not damaged");
  }

  @Test
  void anOutOfMemoryErrorReadingALogPageIsAnOutOfMemoryMiss() {
    Engine cache = openFaulty(SmallEngineWiringTest.config(dir).build());
    try {
      fill(cache, 0, KEYS);
      cache.smallTier().stopReclaimingAndWait();
      int baseline = readAll(cache);
      assertTrue(baseline < KEYS / 2, baseline + " misses without a fault");
      CacheStats before = cache.stats();
      device.get().throwOnReads(new OutOfMemoryError("Cannot reserve 8192 bytes of direct buffer memory (injected)"));
      int misses = readAll(cache);
      CacheStats s = cache.stats();
      assertTrue(misses >= KEYS - SmallLog.OBJECTS_PER_PAGE, misses + " misses: only the log's DRAM page serves");
      assertTrue(s.outOfMemoryMisses() >= misses - baseline - SmallLog.OBJECTS_PER_PAGE,
          "counted as out-of-memory misses: " + s);
      assertEquals(before.smallObjects().ioErrors(), s.smallObjects().ioErrors(), "no I/O error: " + s.smallObjects());
      assertEquals(0, s.smallObjects().faults(), "memory is not the engine's fault: nothing emptied");
      device.get().heal();
      assertEquals(baseline, readAll(cache), "the pages stay: reads hit again");
    } finally {
      cache.close();
    }
  }
}
