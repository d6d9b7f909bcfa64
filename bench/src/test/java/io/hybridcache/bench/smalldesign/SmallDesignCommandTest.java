package io.hybridcache.bench.smalldesign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.hybridcache.bench.BenchMain;
import io.hybridcache.bench.StatsJson;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SmallDesignCommandTest {
  @TempDir
  Path dir;

  @Test
  void writesARowPerDesignPointWithEveryFigure() throws Exception {
    Path json = dir.resolve("sd.json");
    assertEquals(BenchMain.OK, BenchMain.execute("small-design", "--objects", "20000", "--groups", "32",
        "--bits", "12", "--log-shares", "0.25", "--distributions", "uniform", "--json", json.toString()));
    JsonNode out = StatsJson.MAPPER.readTree(json.toFile());
    assertEquals(20000, out.path("settings").path("objects").asInt());
    // kangaroo 1 + nemo 2 filters (+ 2 derived on-flash rows) + pagelog 2 filters
    assertEquals(7, out.path("results").size());
    for (JsonNode r : out.path("results")) {
      for (String k : new String[] {"app_wa", "fill_at_flush", "reads_per_flash_hit", "reads_per_absent_lookup",
          "miss_ratio", "dram_bytes_per_flash_object"}) {
        assertTrue(r.has(k), k + " in " + r);
      }
      assertTrue(r.path("dram_bits_per_flash_object").has("buffer_amortised"));
      assertTrue(r.path("conservation_holds").asBoolean());
    }
  }

  @Test
  void aBadValueIsAUsageErrorNamingIt() {
    PrintStream old = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      assertEquals(BenchMain.USAGE, BenchMain.execute("small-design", "--fill", "1.5"));
      assertEquals(BenchMain.USAGE, BenchMain.execute("small-design", "--designs", "fairywren"));
    } finally {
      System.setErr(old);
    }
    String text = err.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains("--fill must be in (0, 1], was 1.5"), text);
    assertTrue(text.contains("was fairywren"), text);
  }
}
