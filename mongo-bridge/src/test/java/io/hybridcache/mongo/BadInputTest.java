package io.hybridcache.mongo;

import static com.mongodb.client.model.Filters.eq;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import java.nio.file.Path;
import java.util.List;
import org.bson.Document;
import org.bson.types.Binary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Documents without _id, oversized documents, and MongoDB going away and coming back. */
class BadInputTest {
  @TempDir
  Path dir;

  @Test
  void aDocumentWithoutIdIsRefusedBeforeAnythingIsSent() throws Exception {
    try (BridgeFixture f = BridgeFixture.start(dir)) {
      CachedCollection<Document> c = f.cached("noid");
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> c.insertOne(new Document("name", "x")));
      assertTrue(e.getMessage().contains("without _id"), e.getMessage());
      assertEquals(0, f.commands("insert"));
      assertThrows(IllegalArgumentException.class, () -> c.findById(null));
      assertThrows(IllegalArgumentException.class, () -> c.replaceOne(1, new Document("_id", 2)));
    }
  }

  @Test
  void aDocumentOverMongosSixteenMibIsRefusedBeforeAnythingIsSent() throws Exception {
    try (BridgeFixture f = BridgeFixture.start(dir)) {
      CachedCollection<Document> c = f.cached("big");
      Document big = new Document("_id", 1).append("blob", new Binary(new byte[16 * 1024 * 1024]));
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.insertOne(big));
      assertTrue(e.getMessage().contains("16777216"), e.getMessage());
      assertEquals(0, f.commands("insert"));
    }
  }

  @Test
  void aDocumentTooLargeForTheCacheIsServedButNeverCached() throws Exception {
    try (BridgeFixture f = BridgeFixture.start(dir)) {
      CachedCollection<Document> c = f.cached("large");
      // the fixture's 32 KiB write buffer caps a cache value just below 32 KiB
      assertEquals(32 * 1024 - 40, c.maxCachedBytes());
      Document large = new Document("_id", 1).append("blob", new Binary(new byte[40_000]));
      c.insertOne(large);
      long finds = f.commands("find");
      assertEquals(large, c.findById(1));
      assertEquals(large, c.findById(1));
      assertEquals(finds + 2, f.commands("find"), "each read goes to MongoDB");
      assertEquals(2, c.stats().notCached(), c.stats().toString());
    }
  }

  @Test
  void aCatalogueThatCannotTakeNewSchemasLeavesDocumentsServedButNotCached() throws Exception {
    try (BridgeFixture f = BridgeFixture.start(dir)) {
      CachedCollection<Document> c = f.cached("nocatalog");
      f.collection("nocatalog").insertOne(new Document("_id", 1).append("brand_new_field", 1));
      f.catalog.close(); // idFor now fails: a new schema cannot be made durable
      assertEquals(1, c.findById(1).getInteger("brand_new_field"));
      assertEquals(1, c.stats().notCached());
      assertEquals(0, c.stats().fills());
    }
  }

  @Test
  void mongoUnreachableIsAClearErrorWhileTheCacheServesWhatItHolds() throws Exception {
    try (BridgeFixture f = BridgeFixture.inProcess(dir, BridgeConfig.defaults())) {
      MongoCollection<Document> raw = f.collection("down");
      CachedCollection<Document> c = f.bridge.collection(raw);
      for (int i = 0; i < 3; i++) {
        c.insertOne(new Document("_id", i).append("v", i).append("tags", List.of("x")));
        c.findById(i); // cached
      }
      raw.insertOne(new Document("_id", 99).append("v", 99)); // in MongoDB, not in the cache
      f.stopServer();

      for (int i = 0; i < 3; i++) {
        assertEquals(i, c.findById(i).getInteger("v"), "cached documents are still served");
      }
      MongoUnavailableException miss = assertThrows(MongoUnavailableException.class, () -> c.findById(99));
      assertTrue(miss.getMessage().contains("unreachable") && miss.getMessage().contains(raw.getNamespace().getFullName()),
          miss.getMessage());
      assertThrows(MongoUnavailableException.class, () -> c.findByIds(List.of(0, 99)));
      MongoUnavailableException write = assertThrows(MongoUnavailableException.class,
          () -> c.updateOne(1, Updates.set("v", 100)));
      assertTrue(write.getCause() != null);
      // the failed write may or may not have been applied: its key is no longer served from the cache
      assertThrows(MongoUnavailableException.class, () -> c.findById(1));
      assertEquals(0, c.findById(0).getInteger("v"));
      assertEquals(2, c.findById(2).getInteger("v"));

      f.restartServer();
      for (int i : new int[] {0, 1, 2, 99}) {
        assertEquals(raw.find(eq("_id", i)).first(), c.findById(i), "after recovery the cache agrees with MongoDB");
      }
      assertTrue(c.stats().mongoErrors() >= 4);
    }
  }
}
