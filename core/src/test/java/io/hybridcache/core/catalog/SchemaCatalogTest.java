package io.hybridcache.core.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.device.MemoryDevice;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Assignment, persistence, group commit, caps, reclaim, compaction and corruption of the catalogue. */
class SchemaCatalogTest {
  @TempDir Path dir;

  private CatalogConfig.Builder config() {
    return CatalogConfig.builder(dir.resolve("catalog")).directIo(false);
  }

  @Test
  void idsAreMonotonicStableAcrossReopenAndIndependentOfColumnOrder() {
    long a;
    long b;
    long c;
    try (SchemaCatalog cat = SchemaCatalog.open(config().build())) {
      a = cat.idFor(List.of("name", "age"));
      b = cat.idFor(List.of("name", "age", "email"));
      c = cat.idFor("orders", List.of("age", "name"));
      assertEquals(1, a);
      assertEquals(2, b);
      assertEquals(3, c, "another namespace is another schema");
      assertEquals(a, cat.idFor(Set.of("age", "name")), "order does not matter");
      assertEquals(List.of("age", "name"), cat.schema(a).columns());
      assertEquals("orders", cat.schema(c).namespace());
      assertEquals(3, cat.stats().schemas());
    }
    try (SchemaCatalog cat = SchemaCatalog.open(config().build())) {
      assertEquals(List.of("age", "email", "name"), cat.schema(b).columns());
      assertEquals(a, cat.idFor(List.of("age", "name")));
      assertEquals(c, cat.idFor("orders", List.of("name", "age")));
      assertEquals(4, cat.idFor(List.of("x")), "the next id continues after the recovered ones");
      assertEquals(0, cat.stats().corruptRecordsAtOpen());
    }
  }

  @Test
  void manyThreadsAskingForTheSameNewSchemaGetOneId() throws Exception {
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (SchemaCatalog cat = SchemaCatalog.open(config().build())) {
      for (int round = 0; round < 20; round++) {
        List<String> cols = List.of("c" + round, "shared", "z" + round);
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Future<Long>> ids = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          ids.add(pool.submit(() -> {
            start.await();
            return cat.idFor(cols);
          }));
        }
        Set<Long> distinct = new HashSet<>();
        for (Future<Long> f : ids) {
          distinct.add(f.get(30, TimeUnit.SECONDS));
        }
        assertEquals(1, distinct.size(), "round " + round + ": " + distinct);
        assertEquals(cols, cat.schema(distinct.iterator().next()).columns());
      }
      assertEquals(20, cat.stats().assigned());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void concurrentAssignmentsShareOneSync() throws Exception {
    int threads = 6;
    MemoryDevice mem = new MemoryDevice(16, CatalogConfig.MIB);
    TestDevice dev = new TestDevice(mem);
    dev.holdFirstSync = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (SchemaCatalog cat = SchemaCatalog.open(config().build(), (d, s, b, io) -> dev)) {
      Future<Long> first = pool.submit(() -> cat.idFor(List.of("first")));
      assertTrue(dev.firstSyncEntered.await(30, TimeUnit.SECONDS));
      List<Future<Long>> rest = new ArrayList<>();
      for (int t = 1; t < threads; t++) {
        String col = "col" + t;
        rest.add(pool.submit(() -> cat.idFor(List.of(col))));
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (cat.pendingCount() < threads - 1) { // the others queue behind the held sync
        assertTrue(System.nanoTime() < deadline, "the other threads never queued");
        Thread.onSpinWait();
      }
      dev.holdFirstSync.countDown();
      Set<Long> ids = new HashSet<>();
      ids.add(first.get(30, TimeUnit.SECONDS));
      for (Future<Long> f : rest) {
        ids.add(f.get(30, TimeUnit.SECONDS));
      }
      assertEquals(threads, ids.size());
      assertEquals(2, dev.syncs.get(), "the first assignment, then one group commit for the other " + (threads - 1));
      assertEquals(2, cat.stats().commits());
      assertEquals(threads, cat.stats().assigned());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void namespaceCapFallsBackToInlineNamesAndShowsInStats() {
    try (SchemaCatalog cat = SchemaCatalog.open(config().namespaceCap("wild", 3).build())) {
      for (int i = 0; i < 3; i++) {
        assertNotEquals(SchemaCatalog.NO_ID, cat.idFor("wild", List.of("a", "b" + i)));
      }
      assertEquals(SchemaCatalog.NO_ID, cat.idFor("wild", List.of("a", "b3")));
      assertNotEquals(SchemaCatalog.NO_ID, cat.idFor("wild", List.of("a", "b1")), "known schemas keep their id");
      assertNotEquals(SchemaCatalog.NO_ID, cat.idFor("tame", List.of("a", "b3")), "other namespaces are not capped");
      RowCodec codec = new RowCodec(cat, "wild");
      Row row = Row.builder().put("a", new byte[] {1}).put("b9", new byte[] {2, 3}).build();
      byte[] bytes = codec.encode(row);
      assertEquals(0x11, bytes[0] & 0xFF, "inline-names header");
      assertEquals(row, codec.decode(bytes));
      CatalogStats s = cat.stats();
      assertEquals(2, s.fallbacks());
      CatalogStats.NamespaceStats wild = s.namespaces().get("wild");
      assertEquals(3, wild.schemas());
      assertEquals(3, wild.cap());
      assertEquals(2, wild.fallbacks());
      assertTrue(wild.capped());
      assertTrue(!s.namespaces().get("tame").capped());
    }
  }

  @Test
  void reclaimDropsUnreferencedDefinitionsAndCompactionKeepsIdsNeverReusingThem() {
    Map<Long, List<String>> kept = new HashMap<>();
    Set<Long> dropped = new HashSet<>();
    long maxId = 0;
    try (SchemaCatalog cat = SchemaCatalog.open(config().build())) {
      for (int i = 0; i < 30; i++) {
        List<String> cols = List.of("k", "v" + i);
        long id = cat.idFor(cols);
        maxId = Math.max(maxId, id);
        if (i % 3 == 0) {
          kept.put(id, cols);
        } else {
          dropped.add(id);
        }
      }
      long mark = cat.reclaimMark();
      long usedAfterMark = cat.idFor(List.of("k", "v1")); // not referenced by a row, but handed out after the mark
      dropped.remove(usedAfterMark);
      kept.put(usedAfterMark, List.of("k", "v1"));
      int n = cat.reclaim(mark, kept::containsKey);
      assertEquals(dropped.size(), n);
      for (long id : dropped) {
        UnknownSchemaException e = assertThrows(UnknownSchemaException.class, () -> cat.schema(id));
        assertTrue(e.getMessage().contains("reclaimed"), e.getMessage());
      }
      int before = cat.stats().segments();
      cat.compact();
      assertEquals(1, cat.stats().compactions());
      assertTrue(cat.stats().segments() <= before);
      kept.forEach((id, cols) -> assertEquals(cols, cat.schema(id).columns()));
    }
    try (SchemaCatalog cat = SchemaCatalog.open(config().build())) {
      kept.forEach((id, cols) -> assertEquals(cols, cat.schema(id).columns()));
      for (long id : dropped) {
        assertThrows(UnknownSchemaException.class, () -> cat.schema(id));
      }
      assertEquals(kept.size(), cat.stats().schemas());
      long again = cat.idFor(List.of("k", "v2")); // a reclaimed schema comes back under a new id
      assertTrue(again > maxId, "ids are never reused: " + again + " <= " + maxId);
    }
  }

  @Test
  void highWaterMarkSurvivesReclaimOfTheNewestIds() {
    long last;
    try (SchemaCatalog cat = SchemaCatalog.open(config().build())) {
      cat.idFor(List.of("keep"));
      last = cat.idFor(List.of("gone"));
      long mark = cat.reclaimMark();
      assertEquals(1, cat.reclaim(mark, id -> id != last));
      cat.compact(); // drops the DEFINE and RECLAIM of `last`; the COMPACT record keeps the high-water mark
    }
    try (SchemaCatalog cat = SchemaCatalog.open(config().build())) {
      assertEquals(last + 1, cat.idFor(List.of("new")));
    }
  }

  @Test
  void compactsAutomaticallyWhenSlotsRunLow() {
    MemoryDevice mem = new MemoryDevice(4, CatalogConfig.MIB);
    TestDevice dev = new TestDevice(mem);
    dev.ignoreClose = true;
    CatalogConfig cfg = config().segmentCount(4).build();
    List<Long> ids = new ArrayList<>();
    try (SchemaCatalog cat = SchemaCatalog.open(cfg, (d, s, b, io) -> dev)) {
      for (int i = 0; i < 1200; i++) { // one commit (a 4 KiB page) each: ~255 per 1 MiB segment
        ids.add(cat.idFor(List.of("col" + i)));
      }
      assertTrue(cat.stats().compactions() >= 1, cat.stats().toString());
      for (int i = 0; i < ids.size(); i++) {
        assertEquals(List.of("col" + i), cat.schema(ids.get(i)).columns());
      }
    }
    try (SchemaCatalog cat = SchemaCatalog.open(cfg, (d, s, b, io) -> dev)) {
      for (int i = 0; i < ids.size(); i++) {
        assertEquals(List.of("col" + i), cat.schema(ids.get(i)).columns());
      }
      assertEquals(1201, cat.idFor(List.of("next")));
    }
  }

  @Test
  void fullCatalogueIsAClearErrorNotAWrongId() {
    // 4 slots of 1 MiB hold about 4 x 255 one-record commits before compaction has nothing to free
    CatalogConfig cfg = config().segmentCount(4).build();
    MemoryDevice mem = new MemoryDevice(4, CatalogConfig.MIB);
    try (SchemaCatalog cat = SchemaCatalog.open(cfg, (d, s, b, io) -> mem)) {
      String wide = "w".repeat(250);
      List<String> cols = new ArrayList<>();
      for (int c = 0; c < SchemaCatalog.MAX_COLUMNS; c++) {
        cols.add(wide + c);
      }
      Map<Long, String> ids = new HashMap<>();
      UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> {
        for (int i = 0; i < 20; i++) { // ~260 KiB per definition: 4 MiB of slots fill up
          List<String> mine = new ArrayList<>(cols);
          mine.set(0, "first" + i);
          ids.put(cat.idFor(mine), "first" + i);
        }
      });
      assertTrue(e.getMessage().contains("catalogue full"), e.getMessage());
      assertTrue(ids.size() >= 8, "at least two definitions per segment fit: " + ids.size());
      ids.forEach((id, first) -> assertEquals(first, cat.schema(id).columns().get(0)));
    }
  }

  @Test
  void corruptRecordsAreDetectedAndTheirIdsNeverReused() throws Exception {
    CatalogConfig cfg = config().segmentCount(4).build();
    try (SchemaCatalog cat = SchemaCatalog.open(cfg)) {
      assertEquals(1, cat.idFor(List.of("one")));
      assertEquals(2, cat.idFor(List.of("two")));
      assertEquals(3, cat.idFor(List.of("three")));
    }
    Path slot = findSlotWith(cfg, "three");
    flipByteOf(slot, "two");
    flipByteOf(slot, "three");
    try (SchemaCatalog cat = SchemaCatalog.open(cfg)) {
      CatalogStats s = cat.stats();
      assertEquals(2, s.corruptRecordsAtOpen());
      assertEquals(List.of("one"), cat.schema(1).columns());
      UnknownSchemaException e = assertThrows(UnknownSchemaException.class, () -> cat.schema(2));
      assertTrue(e.getMessage().contains("failed their checksum"), e.getMessage());
      assertThrows(UnknownSchemaException.class, () -> cat.schema(3));
      assertEquals(4, cat.idFor(List.of("four")), "the id of a damaged last record is not handed out again");
    }
  }

  @Test
  void badInputIsAClearError() {
    try (SchemaCatalog cat = SchemaCatalog.open(config().build())) {
      assertMessage("column name is empty", () -> cat.idFor(List.of("a", "")));
      assertMessage("duplicate column name 'a'", () -> cat.idFor(List.of("a", "b", "a")));
      assertMessage("column name is null", () -> cat.idFor(java.util.Arrays.asList("a", null)));
      assertMessage("the cap is 255", () -> cat.idFor(List.of("x".repeat(256))));
      assertEquals(cat.idFor(List.of("x".repeat(255))), cat.idFor(List.of("x".repeat(255))));
      assertMessage("the cap is 255", () -> cat.idFor(List.of("é".repeat(128)))); // 256 bytes of UTF-8
      assertMessage("unpaired surrogate", () -> cat.idFor(List.of("a\uD800b")));
      List<String> many = new ArrayList<>();
      for (int i = 0; i <= SchemaCatalog.MAX_COLUMNS; i++) {
        many.add("c" + i);
      }
      assertMessage("1025 columns; the cap is 1024", () -> cat.idFor(many));
      assertMessage("namespace is empty", () -> cat.idFor("", List.of("a")));
      assertMessage("was never assigned (next id is", () -> cat.schema(99));
      assertMessage("out of range", () -> cat.schema(0));
      assertMessage("out of range", () -> cat.schema(1L << 32));
      assertMessage("was not returned by reclaimMark", () -> cat.reclaim(5, id -> true));
    }
  }

  @Test
  void configErrorsNameTheField() {
    assertMessage("CatalogConfig.segmentBytes", () -> config().segmentBytes(4096).build());
    assertMessage("CatalogConfig.segmentCount", () -> config().segmentCount(2).build());
    assertMessage("CatalogConfig.directory is required", () -> CatalogConfig.builder(null).build());
    assertMessage("CatalogConfig.maxSchemasPerNamespace", () -> config().maxSchemasPerNamespace(-1).build());
    SchemaCatalog.open(config().build()).close();
    assertMessage("segmentCount=16; this configuration has 8", () -> SchemaCatalog.open(config().segmentCount(8).build()));
  }

  @Test
  void aDirectoryIsOpenedByOneCatalogueAtATime() {
    try (SchemaCatalog cat = SchemaCatalog.open(config().build())) {
      UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> SchemaCatalog.open(config().build()));
      assertTrue(e.getMessage().contains("already open"), e.getMessage());
      cat.idFor(List.of("a"));
    }
    SchemaCatalog.open(config().build()).close();
  }

  @Test
  void closedCatalogueRefusesNewSchemasButStillResolves() {
    SchemaCatalog cat = SchemaCatalog.open(config().build());
    long id = cat.idFor(List.of("a"));
    cat.close();
    assertEquals(List.of("a"), cat.schema(id).columns());
    assertEquals(id, cat.idFor(List.of("a")));
    assertMessage("is closed", () -> cat.idFor(List.of("b")));
  }

  static void assertMessage(String part, org.junit.jupiter.api.function.Executable call) {
    RuntimeException e = assertThrows(RuntimeException.class, call);
    assertTrue(e.getMessage() != null && e.getMessage().contains(part), "expected '" + part + "' in: " + e.getMessage());
  }

  private static Path findSlotWith(CatalogConfig cfg, String text) throws Exception {
    try (var files = Files.list(cfg.directory().resolve("segments"))) {
      for (Path p : files.toList()) {
        if (new String(Files.readAllBytes(p), java.nio.charset.StandardCharsets.ISO_8859_1).contains(text)) {
          return p;
        }
      }
    }
    throw new AssertionError("no slot holds " + text);
  }

  private static void flipByteOf(Path slot, String text) throws Exception {
    String all = new String(Files.readAllBytes(slot), java.nio.charset.StandardCharsets.ISO_8859_1);
    int at = all.indexOf(text);
    try (FileChannel ch = FileChannel.open(slot, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, at);
      b.put(0, (byte) (b.get(0) ^ 0x20));
      b.rewind();
      ch.write(b, at);
    }
  }
}
