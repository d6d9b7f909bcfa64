package io.hybridcache.bench.smalldesign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

  /**
   * A Kangaroo with a high move threshold fills its sets slowly (few log objects move): after a short warm-up
   * its sets still hold fewer objects than at steady state, and its figures (miss ratio, DRAM per object)
   * are a transient. Such a row is flagged in the JSON and warned about, and one with an adequate warm-up is not.
   */
  @Test
  void aRowStillFillingAfterItsWarmUpIsFlaggedAndWarnedAbout() throws Exception {
    PrintStream old = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    Path json = dir.resolve("t.json");
    try {
      assertEquals(BenchMain.OK, BenchMain.execute("small-design", "--objects", "20000", "--designs", "kangaroo",
          "--distributions", "uniform", "--get-ratio", "1", "--log-shares", "0.1", "--thresholds", "2,10",
          "--warmup", "3", "--json", json.toString()));
    } finally {
      System.setErr(old);
    }
    JsonNode rows = StatsJson.MAPPER.readTree(json.toFile()).path("results");
    assertEquals(2, rows.size());
    assertEquals("kangaroo L=0.1 T=2", rows.get(0).path("label").asText());
    assertEquals(2, rows.get(0).path("threshold").asInt());
    assertTrue(rows.get(0).path("steady_state").asBoolean(), rows.get(0).toString());
    assertEquals("kangaroo L=0.1 T=10", rows.get(1).path("label").asText());
    assertFalse(rows.get(1).path("steady_state").asBoolean(), rows.get(1).toString());
    assertTrue(rows.get(1).path("fill_growth_per_n").asDouble() > 0.02, rows.get(1).toString());
    String text = err.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains("kangaroo L=0.1 T=10 uniform is not at steady state"), text);
    assertFalse(text.contains("kangaroo L=0.1 T=2 uniform is not at steady state"), text);
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
