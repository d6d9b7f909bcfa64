package io.hybridcache.bench.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.bench.MapCache;
import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.HybridCache;
import java.io.PrintStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checks the probe's bookkeeping against the in-memory cache (figures themselves need the engine). */
class CacheProbeTest {
  @TempDir
  Path tmp;

  @Test
  void readAndInsertBookkeeping() throws Exception {
    java.util.Map<Path, MapCache> byDir = new java.util.HashMap<>();
    CacheProbe probe = new CacheProbe(c -> {
      // Reopening returns a cache with the same contents, as a warm restart would.
      MapCache fresh = new MapCache(c);
      MapCache old = byDir.put(c.directory(), fresh);
      if (old != null) {
        for (long i = 0; i < 1000; i++) {
          byte[] k = CacheProbe.key(i);
          old.closed.set(false);
          byte[] v = old.get(k);
          if (v != null) {
            fresh.put(k, v);
          }
        }
      }
      return fresh;
    }, new PrintStream(OutputStream.nullOutputStream()));
    CacheConfig cfg = CacheConfig.builder(tmp).dramBytes(CacheConfig.MIB).segmentBytes((int) (4 * CacheConfig.MIB))
        .flashBytes(64 * CacheConfig.MIB).build();
    try (HybridCache c = probe.fillAndReopen(cfg, 1000, 1024)) {
      CacheProbe.ReadResult r = probe.read(c, 1000, 1024, 2, Duration.ofMillis(50), Duration.ofMillis(200));
      assertTrue(r.gets() > 0);
      assertEquals(0.0, r.missShare());
      assertEquals(1.0, r.dramHitShare(), 0.01); // MapCache counts every hit as a DRAM hit
      assertEquals(0.0, r.flashHitsPerSec());
      assertTrue(r.cpuUsPerGet() > 0, "process CPU per get measured: " + r);
    }
    CacheProbe.InsertResult ins = probe.insert(cfg.toBuilder().directory(tmp.resolve("ins")).build(), 1, 1024,
        Duration.ofMillis(200));
    assertTrue(ins.puts() > 0);
    assertTrue(ins.caughtUp()); // nothing admitted, nothing to flush
    assertEquals(0.0, ins.valueMiBs()); // MapCache keeps everything "in DRAM": nothing reached flash
    assertTrue(ins.cpuCores() > 0 && ins.cpuNanosPerPut() > 0, "process CPU measured: " + ins);
  }
}
