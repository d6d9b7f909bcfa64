package io.hybridcache.bench.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.StatsJson;
import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.IndexType;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tiny-object test of {@code limits --small-objects}: its sizing, and on the real engine (a small
 * cache, a short read) that the filler moves the read keys into set pages, so the reads it measures are
 * set-page reads of the small-object engine, one device read per hit. Bookkeeping only: no timing.
 */
class SmallObjectReadsTest {
  @TempDir
  Path tmp;

  @Test
  void sizingLeavesRoomInTheSetsAndOverflowsTheLog() {
    SmallObjectReads.Sizing s = SmallObjectReads.size(160 * CacheConfig.MIB, 0.9, 100);
    long pages = 144 * CacheConfig.MIB / 4096;
    long setRoom = (pages - pages / 4) * 35; // (4096 - 32) / (7 + 8 + 100) = 35 objects of 100 B per page
    long logRoom = pages / 4 * 32; // a log page holds at most 32 objects
    assertEquals(setRoom * SmallObjectReads.READ_FILL, s.readKeys(), 1.0);
    assertTrue(s.fillerKeys() > logRoom, "the filler pushes every read key out of the log: " + s);
    assertTrue(s.readKeys() + s.fillerKeys() < 0.8 * setRoom, "the sets keep room: " + s);
    CacheConfig c = SmallObjectReads.config(tmp, s, IndexType.HEAP); // the --quick default builds
    assertTrue(c.smallObjectsEnabled() && c.isSmallObject(8, 100) && !c.isSmallObject(8, 4096));
  }

  @Test
  void readsOfTheFilledCacheAreSetPageReadsOfTheSmallEngine() throws Exception {
    SmallObjectReads.Sizing s = SmallObjectReads.size(32 * CacheConfig.MIB, 0.5, 100);
    CacheProbe probe = new CacheProbe(HybridCache::open, new PrintStream(OutputStream.nullOutputStream()));
    try (HybridCache c = probe.fill(SmallObjectReads.config(tmp, s, IndexType.HEAP), s.readKeys(), s.fillerKeys(),
        100)) {
      CacheProbe.ReadResult r = probe.read(c, s.readKeys(), 100, 2, Duration.ofMillis(50), Duration.ofMillis(300));
      SmallObjectReads.Split split = r.small();
      assertTrue(split.hits() > 0, "the small engine served: " + split);
      // every flash hit is the small engine's; the snapshots count its hits and the cache's while gets run
      assertEquals(1.0, split.smallHitShare(), 0.01, "the small engine's share of flash hits");
      assertTrue(split.setHitShare() > 0.9, "set pages serve nearly all: " + split);
      assertTrue(split.deviceReadsPerHit() > 0.95 && split.deviceReadsPerHit() < 1.1,
          "one device read per hit (a tag that matches another key's log object costs one more): " + split);
      assertTrue(r.missShare() < 0.1, "the sets kept the read keys: " + r);
      assertEquals(split.setPageReads() + split.logPageReads(), split.deviceReadsPerHit() * split.hits(), 1e-6);
      ObjectNode out = StatsJson.MAPPER.createObjectNode();
      SmallObjectReads.putSizing(out, s);
      SmallObjectReads.putJson(out, "4", r);
      for (String k : List.of("tiny_read_keys", "tiny_filler_keys", "cache_flash_read_iops_tiny_4",
          "device_reads_per_flash_hit_tiny_4", "tiny_set_hit_share_4", "tiny_log_hit_share_4",
          "tiny_small_engine_device_reads_per_hit_4")) {
        assertTrue(out.hasNonNull(k), k + " in " + out);
      }
    }
  }
}
