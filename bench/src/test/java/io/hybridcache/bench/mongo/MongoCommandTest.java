package io.hybridcache.bench.mongo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.hybridcache.bench.BenchMain;
import io.hybridcache.bench.StatsJson;
import java.nio.file.Path;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MongoCommandTest {
  @TempDir
  Path tmp;

  @Test
  void writesBsonAndCatalogueBytesOfBothModels() throws Exception {
    Path json = tmp.resolve("mongo.json");
    assertEquals(BenchMain.OK, BenchMain.execute("mongo", "--scale", "0.0005", "--json", json.toString()));
    JsonNode models = StatsJson.MAPPER.readTree(json.toFile()).get("models");
    assertEquals(2, models.size());
    for (JsonNode m : models) {
      long bson = m.get("bytes_bson").asLong();
      long catalog = m.get("bytes_catalog").asLong();
      assertTrue(catalog < bson * 0.7, m.get("model") + ": " + catalog + " vs " + bson);
      assertEquals(1.0 - (double) catalog / bson, m.get("saving_ratio").asDouble(), 1e-12);
    }
    assertEquals("normalized", models.get(0).get("model").asText());
    assertEquals(4, models.get(0).get("collections").size());
    assertEquals(1440, models.get(0).get("collections").get("store_sales").get("documents").asLong(),
        "Table 4's 2,880,404 x 0.0005");
    assertEquals("denormalized", models.get(1).get("model").asText());
    assertEquals(4, models.get(1).get("schemas").asLong(), "the fact and its three embedded dimensions");
    assertEquals(BenchMain.USAGE, BenchMain.execute("mongo", "--scale", "0"));
  }

  @Test
  void embedDocumentsReplacesForeignKeysByTheDimensionWithoutItsId() {
    TpcdsDocuments gen = new TpcdsDocuments(1, 0.0002);
    List<Document> dates = gen.dateDim();
    List<Document> items = gen.item();
    List<Document> customers = gen.customer();
    List<Document> sales = gen.storeSales(dates.size(), items.size(), customers.size());
    assertEquals(23 + 1, sales.get(0).size(), "23 columns and _id");
    assertEquals(22 + 1, items.get(0).size());
    assertEquals(18 + 1, customers.get(0).size());
    assertEquals(28 + 1, dates.get(0).size());
    Document f = TpcdsDocuments.denormalized(sales, dates, items, customers).get(0);
    Document item = f.get("ss_item_sk", Document.class);
    assertEquals(sales.get(0).getInteger("ss_item_sk"), item.getInteger("i_item_sk"));
    assertNull(item.get("_id"));
    assertEquals(sales.get(0).getInteger("ss_sold_date_sk"), f.get("ss_sold_date_sk", Document.class).getInteger("d_date_sk"));
    TpcdsDocuments again = new TpcdsDocuments(1, 0.0002);
    assertEquals(dates, again.dateDim(), "deterministic");
    assertEquals(items, again.item());
  }
}
