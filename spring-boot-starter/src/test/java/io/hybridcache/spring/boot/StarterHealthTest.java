package io.hybridcache.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.HybridCache;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import javax.cache.Cache;
import javax.cache.CacheManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The actuator's {@code hybridcache} indicator: UP while the flash tier serves, OUT_OF_SERVICE with the fault in
 * its details once it is degraded. The fault is real: the segment files are truncated under the engine (as a
 * damaged or replaced disk would leave them), so flash reads fail and enough failures within the fault window
 * (8 in 60 s by default) take the tier out of service.
 */
class StarterHealthTest {
  @TempDir Path dir;

  @Test
  void aDegradedFlashTierIsOutOfService() {
    Path directory = dir.resolve("cache");
    StarterContexts.runner(directory, HybridCacheHealthAutoConfiguration.class)
        .withPropertyValues("hybridcache.jcache.cache.items.key-type=java.lang.Integer",
            "hybridcache.jcache.cache.items.value-type=java.lang.String")
        .run(context -> {
          assertNull(context.getStartupFailure());
          HealthIndicator indicator = context.getBean("hybridcacheHealthIndicator", HealthIndicator.class);
          Health up = indicator.health();
          assertEquals(Status.UP, up.getStatus(), up.toString());
          assertEquals(false, up.getDetails().get("degraded"));

          CacheManager manager = context.getBean(CacheManager.class);
          Cache<Integer, String> items = manager.getCache("items", Integer.class, String.class);
          String value = "v".repeat(1000);
          int n = 3000; // about 3 MB through a 1 MiB DRAM tier: most entries live only on flash
          for (int i = 0; i < n; i++) {
            items.put(i, value + i);
          }
          manager.unwrap(HybridCache.class).flush();
          assertTrue((long) indicator.health().getDetails().get("flashEntries") > n / 2, "most entries on flash");

          truncateSegments(directory);
          int misses = 0;
          for (int i = 0; i < n; i++) {
            if (items.get(i) == null) {
              misses++;
            }
          }
          Health degraded = indicator.health();
          assertEquals(Status.OUT_OF_SERVICE, degraded.getStatus(), degraded.toString());
          assertEquals(true, degraded.getDetails().get("degraded"));
          assertTrue((long) degraded.getDetails().get("ioErrors") >= 8, degraded.toString());
          assertTrue(degraded.getDetails().get("lastFault").toString().contains("segment"), degraded.toString());
          assertTrue(misses > n / 2, "reads of the damaged segments are misses, never errors: " + misses);
        });
  }

  /** Truncates every segment file of the engine under {@code directory} to 0 bytes (the engine keeps them open). */
  private static void truncateSegments(Path directory) throws IOException {
    List<Path> segments;
    try (Stream<Path> files = Files.walk(directory)) {
      segments = files.filter(f -> f.getFileName().toString().matches("slot-\\d+\\.seg")).toList();
    }
    assertTrue(segments.size() >= 8, "segments to damage: " + segments);
    for (Path segment : segments) {
      try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.WRITE)) {
        ch.truncate(0);
      }
    }
  }
}
