package io.hybridcache.mongo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.model.Updates;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.api.LifetimeClass;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's Mongo bridge example, line for line (on mongo-java-server and a temporary directory). */
class ReadmeExampleTest {
  @TempDir
  Path tmp;

  @Test
  void theReadmeExampleRuns() {
    MongoServer server = new MongoServer(new MemoryBackend());
    String uri = server.bindAndGetConnectionString();
    try {
      CollectionStats s;
      LifetimeClass lc;
      try (MongoClient client = MongoClients.create(uri);
           MongoBridge bridge = MongoBridge.open(CacheConfig.builder(tmp.resolve("docs")).indexType(IndexType.HEAP)
                   .directIo(false).jmx(false).build(),
               BridgeConfig.builder().ttl(Duration.ofMinutes(30)).build())) {
        CachedCollection<Document> orders = bridge.collection(client.getDatabase("shop").getCollection("orders"));
        orders.insertOne(new Document("_id", 7).append("total", 12.5));
        Document o = orders.findById(7);
        assertEquals(12.5, o.getDouble("total"));
        Map<Object, Document> some = orders.findByIds(List.of(7, 8, 9));
        assertEquals(List.of(7), List.copyOf(some.keySet()));
        assertEquals(13.0, orders.replaceOne(7, new Document("total", 13.0)).getDouble("total"));
        assertEquals(14.0, orders.updateOne(7, Updates.inc("total", 1.0)).getDouble("total"));
        orders.invalidate(7);
        assertTrue(orders.deleteOne(7));
        assertNull(orders.findById(7));
        s = orders.stats();
        lc = orders.lifetimeClass();
      }
      assertEquals(1, s.cacheHits(), "findByIds found 7 in the cache");
      assertEquals("mongo:shop.orders", lc.name());
      assertTrue(lc.id() >= 16);
    } finally {
      server.shutdownNow();
    }
  }
}
