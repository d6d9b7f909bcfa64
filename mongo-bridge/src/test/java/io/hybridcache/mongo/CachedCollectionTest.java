package io.hybridcache.mongo;

import static com.mongodb.client.model.Filters.eq;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.LifetimeClass;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.types.Binary;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Read-through, batching, write-through and invalidation, TTL and lifetime classes against a real
 * wire-protocol server (mongo-java-server in process; FerretDB in the end-to-end script).
 */
class CachedCollectionTest {
  @TempDir
  Path dir;
  BridgeFixture f;

  @BeforeEach
  void start() throws Exception {
    f = BridgeFixture.start(dir);
  }

  @AfterEach
  void stop() throws Exception {
    f.close();
  }

  private static Document doc(int id, String name) {
    return new Document("_id", id).append("name", name).append("qty", id * 10L).append("tags", List.of("a", "b"))
        .append("address", new Document("city", "c" + id).append("zip", id));
  }

  private byte[] direct(MongoCollection<?> c, Object id) {
    return RandomBson.bytes(c.withDocumentClass(RawBsonDocument.class).find(eq("_id", id)).first());
  }

  @Test
  void findByIdReadsMongoOnceThenServesTheCacheWithTheExactDocument() {
    MongoCollection<Document> c = f.collection("items");
    c.insertOne(doc(1, "one"));
    CachedCollection<RawBsonDocument> cached = f.bridge.collection(f.db.getCollection("items", RawBsonDocument.class));
    long finds = f.commands("find");
    RawBsonDocument first = cached.findById(1);
    assertEquals(finds + 1, f.commands("find"));
    RawBsonDocument second = cached.findById(1L); // 1L and 1 are one _id for MongoDB, and one key
    assertEquals(finds + 1, f.commands("find"), "the second read is a cache hit");
    assertArrayEquals(direct(c, 1), RandomBson.bytes(first));
    assertArrayEquals(direct(c, 1), RandomBson.bytes(second));
    assertNull(cached.findById(2));
    CollectionStats s = cached.stats();
    assertEquals(3, s.reads());
    assertEquals(1, s.cacheHits());
    assertEquals(2, s.queries());
    assertEquals(1, s.fills());
  }

  @Test
  void findByIdsFetchesAllMissesWithOneInQuery() {
    MongoCollection<Document> c = f.collection("batch");
    List<Document> docs = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      docs.add(doc(i, "n" + i));
    }
    c.insertMany(docs);
    CachedCollection<Document> cached = f.bridge.collection(c);
    for (int i = 0; i < 10; i++) {
      cached.findById(i); // 10 in the cache
    }
    long finds = f.commands("find");
    List<Object> ids = new ArrayList<>();
    for (int i = 39; i >= 0; i--) {
      ids.add(i);
    }
    ids.add(1000); // absent
    ids.add(5L); // the same document as 5
    Map<Object, Document> got = cached.findByIds(ids);
    assertEquals(finds + 1, f.commands("find"), "one $in query for the 30 misses");
    assertEquals(41, got.size());
    assertEquals(List.copyOf(ids).subList(0, 40), new ArrayList<>(got.keySet()).subList(0, 40), "the caller's order");
    assertEquals("n5", got.get(5L).getString("name"));
    for (int i = 0; i < 40; i++) {
      assertEquals(docs.get(i), got.get(i));
    }
    cached.findByIds(ids);
    assertEquals(finds + 2, f.commands("find"), "only the absent id is asked for again");
    assertEquals(30 + 1, cached.stats().fetched() - 10 + 1);
  }

  @Test
  void writesGoToMongoFirstThenTheCacheHoldsMongosDocument() {
    MongoCollection<Document> c = f.collection("writes");
    CachedCollection<Document> cached = f.bridge.collection(c);
    // _id last in the caller's document: MongoDB (and so the cache) keeps it first
    cached.insertOne(new Document("name", "x").append("n", 1).append("_id", "k1"));
    assertEquals("x", c.find(eq("_id", "k1")).first().getString("name"));
    long finds = f.commands("find");
    assertEquals("x", cached.findById("k1").getString("name"));
    assertEquals(finds + 1, f.commands("find"), "an insert invalidates: the first read fills the server's bytes");
    assertCacheEqualsMongo(c, "k1");

    Document replaced = cached.replaceOne("k1", new Document("name", "y").append("extra", List.of(1, 2)));
    assertEquals("y", replaced.getString("name"));
    assertEquals("y", c.find(eq("_id", "k1")).first().getString("name"));
    assertCacheEqualsMongo(c, "k1");

    Document updated = cached.updateOne("k1", Updates.combine(Updates.set("name", "z"), Updates.inc("n", 5)));
    assertEquals(5, updated.getInteger("n"));
    assertEquals("z", c.find(eq("_id", "k1")).first().getString("name"));
    assertCacheEqualsMongo(c, "k1");
    assertNull(cached.updateOne("absent", Updates.set("a", 1)));
    assertNull(cached.replaceOne("absent", new Document("a", 1)));

    assertTrue(cached.deleteOne("k1"));
    assertNull(c.find(eq("_id", "k1")).first());
    finds = f.commands("find");
    assertNull(cached.findById("k1"));
    assertEquals(finds + 1, f.commands("find"), "deleted: a miss that asks MongoDB");
    CollectionStats s = cached.stats();
    assertEquals(2, s.writesStored());
    assertTrue(s.invalidations() >= 3);
  }

  private void assertCacheEqualsMongo(MongoCollection<Document> c, Object id) {
    CachedCollection<RawBsonDocument> raw = f.bridge.collection(c.withDocumentClass(RawBsonDocument.class));
    long finds = f.commands("find");
    byte[] cachedBytes = RandomBson.bytes(raw.findById(id));
    assertEquals(finds, f.commands("find"), "served by the cache");
    assertArrayEquals(direct(c, id), cachedBytes);
  }

  @Test
  void writesThatBypassTheBridgeAreSeenAfterInvalidate() {
    MongoCollection<Document> c = f.collection("bypass");
    CachedCollection<Document> cached = f.bridge.collection(c);
    cached.insertOne(doc(1, "old"));
    assertEquals("old", cached.findById(1).getString("name")); // now cached
    c.updateOne(eq("_id", 1), Updates.set("name", "new"));
    assertEquals("old", cached.findById(1).getString("name"), "the cache cannot know of a write it did not see");
    cached.invalidate(1);
    assertEquals("new", cached.findById(1).getString("name"));
  }

  @Test
  void ttlExpiresCachedDocuments() throws Exception {
    MongoCollection<Document> c = f.collection("ttl");
    CachedCollection<Document> cached = f.bridge.collection(c, Duration.ofMillis(300));
    assertEquals(Duration.ofMillis(300), cached.ttl());
    cached.insertOne(doc(1, "a"));
    long t0 = System.currentTimeMillis();
    cached.findById(1); // fills, expiring 300 ms after t0 at the earliest
    long finds = f.commands("find");
    cached.findById(1);
    long t2 = System.currentTimeMillis(); // every fill so far expires by t2 + 300 ms
    if (t2 - t0 < 300) {
      assertEquals(finds, f.commands("find"), "cached until the TTL");
    }
    long afterSecond = f.commands("find"); // on a slow machine the second read may have expired and refilled
    while (System.currentTimeMillis() - t2 <= 350) {
      Thread.sleep(20); // waiting for the clock to pass the latest expiry, not for another thread
    }
    cached.findById(1);
    assertEquals(afterSecond + 1, f.commands("find"), "expired: read from MongoDB again");
  }

  @Test
  void eachCollectionIsItsOwnLifetimeClassStableAcrossReopen() {
    CachedCollection<Document> a = f.cached("orders");
    CachedCollection<Document> b = f.cached("customers");
    LifetimeClass la = a.lifetimeClass();
    assertTrue(la.id() >= MongoBridge.FIRST_LIFETIME_CLASS);
    assertNotEquals(la.id(), b.lifetimeClass().id());
    assertEquals("mongo:" + f.db.getName() + ".orders", la.name());
    assertEquals(la, f.cached("orders").lifetimeClass(), "the same collection, the same class");
  }

  @Test
  void aCacheValueThatDoesNotDecodeIsDroppedAndReadFromMongo() {
    MongoCollection<Document> c = f.collection("corrupt");
    CachedCollection<Document> cached = f.bridge.collection(c);
    cached.insertOne(doc(1, "a"));
    long id = f.bridge.collectionId(c.getNamespace().getFullName());
    f.cache.put(IdKeys.key(id, new org.bson.BsonInt32(1)), new byte[] {0x10, 0x01, (byte) 0xEE});
    assertEquals(doc(1, "a"), cached.findById(1));
    assertEquals(1, cached.stats().corruptValues());
    assertEquals(doc(1, "a"), cached.findById(1));
  }

  @Test
  void documentsSurviveARestartOnFlash() throws Exception {
    MongoCollection<Document> c = f.collection("flash");
    List<Document> docs = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      docs.add(new Document("_id", i).append("payload", new Binary(new byte[6000])).append("i", i));
    }
    c.insertMany(docs);
    Path cacheDir = dir.resolve("restart");
    try (MongoBridge b = MongoBridge.open(BridgeFixture.smallCache(cacheDir).flashBytes(32L * 64 * 1024).build(),
        BridgeConfig.defaults())) {
      CachedCollection<Document> cached = b.collection(c);
      for (int i = 0; i < 150; i++) {
        cached.findById(i); // 900 KB of documents fill a 1 MiB DRAM tier
      }
    }
    try (MongoBridge b = MongoBridge.open(BridgeFixture.smallCache(cacheDir).flashBytes(32L * 64 * 1024).build(),
        BridgeConfig.defaults())) {
      CachedCollection<Document> cached = b.collection(c);
      long finds = f.commands("find");
      for (int i = 0; i < 150; i++) {
        assertEquals(docs.get(i), cached.findById(i));
      }
      CacheStats s = b.cache().stats();
      assertEquals(finds, f.commands("find"), "all served by the reopened cache");
      assertEquals(150, s.flashHits(), "from flash: a clean close wrote DRAM out");
    }
  }
}
