package io.hybridcache.bench.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.hybridcache.bench.BenchMain;
import io.hybridcache.bench.StatsJson;
import io.hybridcache.bench.ftl.TraceReplayTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlacementCommandTest {
  @TempDir
  Path dir;

  @Test
  void replaysATraceForEveryMapperAndWritesJsonAndChart() throws Exception {
    Path trace = dir.resolve("trace.csv");
    Files.write(trace, TraceReplayTest.twoClassLog());
    Path json = dir.resolve("out.json");
    Path png = dir.resolve("waf.png");
    assertEquals(BenchMain.OK, BenchMain.execute("placement", "--trace", trace.toString(), "--json", json.toString(),
        "--chart", png.toString()));
    JsonNode out = StatsJson.MAPPER.readTree(json.toFile());
    assertTrue(out.path("validation").path("u0.90").path("fifo").asDouble() > 4.9);
    Set<String> mappers = new HashSet<>();
    for (JsonNode r : out.path("results")) {
      for (String k : new String[] {"mapper", "utilization", "device_waf", "app_wa", "total_wa"}) {
        assertTrue(r.has(k), k + " in " + r);
      }
      assertTrue(r.path("device_waf").asDouble() >= 1.0);
      mappers.add(r.path("mapper").asText());
    }
    assertEquals(Set.of("single", "static", "dsm", "filestream", "oracle"), mappers);
    assertEquals(5 * 2, out.path("results").size(), "five placements at two utilizations");
    assertEquals(5 * 2, out.path("sensitivity").size(), "and at two more erase block sizes");
    assertTrue(Files.size(png) > 1000);
  }
}
