package io.hybridcache.bench.mongo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.hybridcache.bench.StatsJson;
import io.hybridcache.bench.ycsb.HybridCacheDB;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/** Both YCSB bindings against an in-process mongo-java-server: same operations, same answers. */
class MongoYcsbDBTest {
  @TempDir
  Path tmp;

  private static Map<String, ByteIterator> fields(String... kv) {
    Map<String, ByteIterator> m = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], new StringByteIterator(kv[i + 1]));
    }
    return m;
  }

  private static void exercise(DB db) {
    assertEquals(Status.OK, db.insert("usertable", "user1", fields("field0", "a", "field1", "b")));
    assertEquals(Status.OK, db.insert("usertable", "user2", fields("field0", "c", "field1", "d")));
    Map<String, ByteIterator> got = new HashMap<>();
    assertEquals(Status.OK, db.read("usertable", "user1", Set.of("field1"), got));
    assertEquals(Set.of("field1"), got.keySet());
    assertArrayEquals("b".getBytes(StandardCharsets.UTF_8), got.get("field1").toArray());
    assertEquals(Status.OK, db.update("usertable", "user1", fields("field1", "z")));
    got.clear();
    assertEquals(Status.OK, db.read("usertable", "user1", null, got));
    assertEquals(Set.of("field0", "field1"), got.keySet());
    assertArrayEquals("z".getBytes(StandardCharsets.UTF_8), got.get("field1").toArray());
    Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
    assertEquals(Status.OK, db.scan("usertable", "user1", 10, null, rows));
    assertEquals(2, rows.size());
    assertEquals(Status.OK, db.delete("usertable", "user2"));
    assertEquals(Status.NOT_FOUND, db.read("usertable", "user2", null, new HashMap<>()));
    assertEquals(Status.NOT_FOUND, db.update("usertable", "user2", fields("field0", "x")));
  }

  @Test
  void directAndBridgedBindingsAgree() throws Exception {
    try (MongoTarget server = MongoTarget.open(null)) {
      assertTrue(server.serverName().startsWith("mongo-java-server 1.47.0"), server.serverName());
      Properties p = new Properties();
      p.setProperty(MongoYcsbDB.URL, server.uri().replace("/ycsb", "/direct"));
      DB direct = new MongoYcsbDB.Direct();
      direct.setProperties(p);
      direct.init();
      exercise(direct);
      direct.cleanup();

      Properties b = new Properties();
      b.setProperty(MongoYcsbDB.URL, server.uri());
      b.setProperty(HybridCacheDB.DIR, tmp.resolve("cache").toString());
      b.setProperty(HybridCacheDB.INDEX, "heap");
      b.setProperty(HybridCacheDB.DIRECT_IO, "false");
      b.setProperty(HybridCacheDB.JMX, "false");
      b.setProperty(HybridCacheDB.FLASH_BYTES, "16MiB");
      b.setProperty(HybridCacheDB.SEGMENT_BYTES, "2MiB");
      b.setProperty(HybridCacheDB.STATS_FILE, tmp.resolve("stats.json").toString());
      DB bridged = new MongoYcsbDB.Bridge();
      bridged.setProperties(b);
      bridged.init();
      exercise(bridged);
      assertEquals(Status.OK, bridged.read("usertable", "user1", null, new HashMap<>())); // a cache hit
      bridged.cleanup();
      JsonNode stats = StatsJson.MAPPER.readTree(tmp.resolve("stats.json").toFile());
      JsonNode bridge = stats.get("bridge_collections").get("usertable");
      assertTrue(bridge.get("cacheHits").asLong() >= 1, bridge.toString());
      assertEquals(0, stats.get("binding_errors").asLong());
    }
  }
}
