package io.hybridcache.bench.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.hybridcache.bench.MapCache;
import io.hybridcache.bench.StatsJson;
import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.api.MapperKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

class HybridCacheDBTest {
  @TempDir
  Path tmp;
  private final List<MapCache> opened = new ArrayList<>();
  private Function<CacheConfig, HybridCache> saved;

  @BeforeEach
  void swapOpener() {
    saved = HybridCacheDB.opener;
    HybridCacheDB.opener = c -> {
      MapCache m = new MapCache(c);
      opened.add(m);
      return m;
    };
  }

  @AfterEach
  void restoreOpener() {
    HybridCacheDB.opener = saved;
  }

  private HybridCacheDB db(Properties p) throws DBException {
    HybridCacheDB db = new HybridCacheDB();
    db.setProperties(p);
    db.init();
    return db;
  }

  private Properties props() {
    Properties p = new Properties();
    p.setProperty(HybridCacheDB.DIR, tmp.resolve("cache").toString());
    p.setProperty(HybridCacheDB.STATS_FILE, tmp.resolve("stats.json").toString());
    p.setProperty("recordcount", "10"); // YCSB properties without the prefix are ignored
    return p;
  }

  private static Map<String, ByteIterator> fields(String... kv) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return StringByteIterator.getByteIteratorMap(m);
  }

  @ParameterizedTest
  @ValueSource(strings = {"raw", "catalog"})
  void crudAndMerge(String codec) throws Exception {
    Properties p = props();
    p.setProperty(HybridCacheDB.CODEC, codec);
    HybridCacheDB db = db(p);
    assertEquals(Status.OK, db.insert("usertable", "user1", fields("field0", "a", "field1", "b")));
    byte[] stored = opened.get(0).get(HybridCacheDB.key("usertable", "user1"));
    assertEquals(codec.equals("raw") ? RecordCodec.FORMAT_VERSION : 0x10, stored[0],
        "raw records start with their version, catalogue rows with the row header");
    assertEquals(codec.equals("raw") ? 1 + 1 + 2 * (1 + 6 + 1 + 1) : 1 + 1 + 2 * (1 + 1), stored.length);
    Map<String, ByteIterator> r = new HashMap<>();
    assertEquals(Status.OK, db.read("usertable", "user1", null, r));
    assertEquals(Map.of("field0", "a", "field1", "b"), StringByteIterator.getStringMap(r));

    assertEquals(Status.OK, db.update("usertable", "user1", fields("field1", "B", "field2", "c")));
    r.clear();
    assertEquals(Status.OK, db.read("usertable", "user1", Set.of("field1", "field2"), r));
    assertEquals(Map.of("field1", "B", "field2", "c"), StringByteIterator.getStringMap(r));

    assertEquals(Status.OK, db.update("usertable", "user2", fields("field9", "z")));
    r.clear();
    assertEquals(Status.OK, db.read("usertable", "user2", null, r));
    assertEquals(Map.of("field9", "z"), StringByteIterator.getStringMap(r));

    assertEquals(Status.NOT_FOUND, db.read("usertable", "nobody", null, new HashMap<>()));
    assertEquals(Status.NOT_FOUND, db.read("othertable", "user1", null, new HashMap<>()));
    assertEquals(Status.OK, db.delete("usertable", "user1"));
    assertEquals(Status.NOT_FOUND, db.delete("usertable", "user1"));
    assertEquals(Status.NOT_IMPLEMENTED, db.scan("usertable", "user1", 10, null, new Vector<>()));
    db.cleanup();
    JsonNode j = StatsJson.MAPPER.readTree(tmp.resolve("stats.json").toFile());
    assertEquals(codec, j.get("codec").asText());
    assertEquals(codec.equals("catalog"), j.has("catalog_schemas"));
    if (codec.equals("catalog")) {
      assertEquals(3, j.get("catalog_schemas").asLong(), "{field0,field1}, {field0,field1,field2} after the merge, {field9}");
    }
  }

  @Test
  void oneSharedCacheClosedByTheLastCleanupWhichWritesStats() throws Exception {
    Properties p = props();
    HybridCacheDB a = db(p);
    HybridCacheDB b = db(p);
    assertEquals(1, opened.size());
    a.insert("usertable", "k", fields("f", "v"));
    b.read("usertable", "k", null, new HashMap<>());
    a.cleanup();
    a.cleanup(); // idempotent per instance
    assertFalse(opened.get(0).closed.get());
    assertFalse(Files.exists(tmp.resolve("stats.json")));
    b.cleanup();
    assertTrue(opened.get(0).closed.get());

    JsonNode j = StatsJson.MAPPER.readTree(tmp.resolve("stats.json").toFile());
    assertEquals(1, j.get("gets").asLong());
    assertEquals(1.0, j.get("hit_ratio_dram").asDouble());
    assertTrue(j.has("device_reads_per_flash_hit"));
    assertEquals("after_close", j.get("snapshot").asText()); // MapCache still answers stats() once closed
    CacheStats s = StatsJson.read(tmp.resolve("stats.json"));
    assertEquals(1, s.puts());

    HybridCacheDB c = db(p); // a later init opens a new cache
    assertEquals(2, opened.size());
    c.cleanup();
  }

  @Test
  void configFromProperties() throws Exception {
    Properties p = props();
    p.setProperty(HybridCacheDB.DRAM_BYTES, "16MiB");
    p.setProperty(HybridCacheDB.FLASH_BYTES, "512m");
    p.setProperty(HybridCacheDB.SEGMENT_BYTES, "16777216");
    p.setProperty(HybridCacheDB.WRITE_BUFFER_BYTES, "256k");
    p.setProperty(HybridCacheDB.DIRECT_IO, "false");
    p.setProperty(HybridCacheDB.INDEX, "heap");
    p.setProperty(HybridCacheDB.CASCADE_WAIT_MS, "50");
    CacheConfig c = HybridCacheDB.configFrom(p);
    assertEquals(Duration.ofMillis(50), c.cascadeWait());
    assertEquals(8, c.writeBuffersTotal(), "derived: a sixteenth of 16 MiB is 4 of 256 KiB, two classes' 4 at least");
    p.setProperty(HybridCacheDB.WRITE_BUFFERS_TOTAL, "16");
    assertEquals(16, HybridCacheDB.configFrom(p).writeBuffersTotal());
    p.remove(HybridCacheDB.WRITE_BUFFERS_TOTAL);
    assertEquals(16L << 20, c.dramBytes());
    assertEquals(512L << 20, c.flashBytes());
    assertEquals(16 << 20, c.segmentBytes());
    assertEquals(0, c.smallObjectShare(), "the small-object engine is off unless asked for");
    p.setProperty(HybridCacheDB.SMALL_OBJECT_SHARE, "0.25");
    p.setProperty(HybridCacheDB.SMALL_OBJECT_MAX_BYTES, "1k");
    p.setProperty(HybridCacheDB.SMALL_OBJECT_LOG_SHARE, "0.4");
    CacheConfig small = HybridCacheDB.configFrom(p);
    assertEquals(0.25, small.smallObjectShare());
    assertEquals(0.4, small.smallObjectLogShare());
    assertEquals(1024, small.smallObjectMaxBytes());
    assertEquals(24, small.segmentCount(), "the log engine keeps 384 MiB of the 512");
    assertEquals(256 << 10, c.writeBufferBytes());
    assertFalse(c.directIo());
    assertSame(IndexType.HEAP, c.indexType());

    p.setProperty("hybridcache.dram.byts", "1");
    assertThrows(IllegalArgumentException.class, () -> HybridCacheDB.configFrom(p));
    DBException e = assertThrows(DBException.class, () -> db(p));
    assertTrue(e.getMessage().contains("hybridcache.dram.byts"), e.getMessage());
    assertTrue(opened.isEmpty());
  }

  @Test
  void preloadInsertsTheWorkloadsRecordsBeforeTheFirstInitReturnsAndWritesItsStats() throws Exception {
    Properties p = props();
    p.setProperty("workload", "site.ycsb.workloads.CoreWorkload");
    p.setProperty("recordcount", "50");
    p.setProperty("fieldcount", "1");
    p.setProperty("fieldlength", "10");
    site.ycsb.measurements.Measurements.setProperties(p); // YCSB's Client does this before any DB
    p.setProperty(HybridCacheDB.PRELOAD, "true");
    p.setProperty(HybridCacheDB.PRELOAD_STATS_FILE, tmp.resolve("preload.json").toString());
    HybridCacheDB a = db(p);
    assertEquals(50, opened.get(0).size(), "every record of recordcount is in the cache");
    Map<String, ByteIterator> r = new HashMap<>();
    assertEquals(Status.OK, a.read("usertable", "user" + site.ycsb.Utils.hash(7), null, r));
    assertEquals(Set.of("field0"), r.keySet());
    assertEquals(50, StatsJson.read(tmp.resolve("preload.json")).puts());
    HybridCacheDB b = db(p); // a second client thread shares the loaded cache: no second preload
    assertEquals(1, opened.size());
    assertEquals(50, opened.get(0).size());
    a.cleanup();
    b.cleanup();

    p.setProperty("workload", "no.such.Workload");
    DBException e = assertThrows(DBException.class, () -> db(p));
    assertTrue(e.getMessage().contains("no.such.Workload"), e.getMessage());
    assertTrue(opened.get(1).closed.get(), "a failed preload closes the cache it opened");
    HybridCacheDB.resetForTests();
  }

  @Test
  void openFailureIsReportedWithItsCause() {
    HybridCacheDB.opener = c -> {
      throw new UnsupportedOperationException("no engine");
    };
    DBException e = assertThrows(DBException.class, () -> db(props()));
    assertTrue(e.getMessage().contains("no engine"), e.getMessage());
    assertTrue(e.getCause() instanceof UnsupportedOperationException);
    HybridCacheDB.opener = c -> {
      throw new AssertionError("a failed open is not retried in the same JVM");
    };
    DBException again = assertThrows(DBException.class, () -> db(props()));
    assertTrue(again.getMessage().contains("another client thread"), again.getMessage());
    HybridCacheDB.resetForTests();
  }

  @Test
  void tablesListedInTableClassesGoToTheirOwnLifetimeClassOnFlash() throws Exception {
    HybridCacheDB.opener = HybridCache::open;
    Properties p = props();
    p.setProperty(HybridCacheDB.DRAM_BYTES, "1MiB");
    p.setProperty(HybridCacheDB.FLASH_BYTES, "1MiB");
    p.setProperty(HybridCacheDB.SEGMENT_BYTES, "64KiB");
    p.setProperty(HybridCacheDB.WRITE_BUFFER_BYTES, "16KiB");
    p.setProperty(HybridCacheDB.INDEX, "heap");
    p.setProperty(HybridCacheDB.JMX, "false");
    p.setProperty(HybridCacheDB.STREAM_MAPPER, "static");
    p.setProperty(HybridCacheDB.TABLE_CLASSES, "hot, cold");
    p.setProperty(HybridCacheDB.WRITE_TRACE, tmp.resolve("trace.csv").toString());
    HybridCacheDB db = db(p);
    for (int i = 0; i < 50; i++) {
      assertEquals(Status.OK, db.insert("hot", "k" + i, fields("f", "v" + i)));
      assertEquals(Status.OK, db.insert("cold", "k" + i, fields("f", "v" + i)));
      assertEquals(Status.OK, db.insert("usertable", "k" + i, fields("f", "v" + i)));
    }
    db.cleanup();
    JsonNode placement = StatsJson.MAPPER.readTree(tmp.resolve("stats.json").toFile()).path("placement");
    assertEquals("static", placement.path("mapper").asText());
    Map<String, Integer> idOf = new HashMap<>();
    placement.path("classes").forEach(c -> idOf.put(c.path("name").asText(), c.path("id").asInt()));
    assertEquals(Map.of("FRESH", 0, "hot", 16, "cold", 17), idOf);
    assertTrue(Files.readAllLines(tmp.resolve("trace.csv")).stream().anyMatch(l -> l.startsWith("O,") && l.contains(",cold,")));
  }

  @Test
  void placementPropertiesAreChecked() {
    Properties p = props();
    p.setProperty(HybridCacheDB.STREAM_MAPPER, "zigzag");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> HybridCacheDB.configFrom(p)).getMessage()
        .contains(HybridCacheDB.STREAM_MAPPER));
    p.setProperty(HybridCacheDB.STREAM_MAPPER, "dsm");
    p.setProperty(HybridCacheDB.TABLE_CLASSES, "a,a");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> HybridCacheDB.configFrom(p)).getMessage()
        .contains(HybridCacheDB.TABLE_CLASSES));
    p.setProperty(HybridCacheDB.TABLE_CLASSES, "a,b");
    p.setProperty(HybridCacheDB.STREAMS, "4");
    p.setProperty(HybridCacheDB.TRIM_RECLAIMED, "true");
    CacheConfig c = HybridCacheDB.configFrom(p);
    assertEquals(4, c.streams());
    assertTrue(c.trimReclaimed());
    assertEquals(io.hybridcache.core.api.MapperKind.DSM, c.streamMapper());
  }
}
