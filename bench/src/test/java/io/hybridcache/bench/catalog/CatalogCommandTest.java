package io.hybridcache.bench.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.hybridcache.bench.BenchMain;
import io.hybridcache.bench.StatsJson;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CatalogCommandTest {
  @TempDir Path tmp;

  @Test
  void writesTheFootprintOfEachDataSet() throws Exception {
    Path json = tmp.resolve("catalog.json");
    assertEquals(BenchMain.OK, BenchMain.execute("catalog", "--rows", "500", "--json", json.toString()));
    JsonNode sets = StatsJson.MAPPER.readTree(json.toFile()).get("data_sets");
    for (String name : new String[] {"ycsb", "paper", "tpcds_store_sales"}) {
      JsonNode s = sets.get(name);
      assertTrue(s.get("bytes_catalog").asLong() < s.get("bytes_inline").asLong(), name);
      double ratio = 1.0 - s.get("bytes_catalog").asDouble() / s.get("bytes_inline").asDouble();
      assertEquals(ratio, s.get("saving_ratio").asDouble(), 1e-12, name);
    }
    JsonNode ycsb = sets.get("ycsb");
    assertEquals(500L * 1082, ycsb.get("bytes_inline").asLong(), "RecordCodec's 1082 B per record");
    assertEquals(500L * 1012, ycsb.get("bytes_catalog_rows").asLong());
    assertEquals(1, ycsb.get("schemas").asLong());
    assertEquals(6, sets.get("paper").get("schemas").asLong(), "5..10 columns: six schemas");
    assertTrue(sets.get("tpcds_store_sales").has("bytes_text"));
  }

  @Test
  void storeSalesRowsHaveTheTwentyThreeRealColumns() {
    var row = DataSets.storeSales(new Random(1));
    assertEquals(23, row.size());
    assertTrue(row.has("ss_sold_date_sk") && row.has("ss_net_profit"));
    long date = Long.parseLong(new String(row.bytes("ss_sold_date_sk"), java.nio.charset.StandardCharsets.UTF_8));
    assertTrue(date >= 2450816 && date <= 2452642);
  }
}
