package io.hybridcache.core.catalog;

import static io.hybridcache.core.catalog.SchemaCatalogTest.assertMessage;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.Codec;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.api.TypedCache;
import io.hybridcache.core.device.MemoryDevice;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Property tests over random rows (fixed seeds), slices, nesting, inline fallback and bad bytes. */
class RowCodecTest {
  private static final String[] ALPHABET = {"a", "b", "id", "name", "é", "名", "\uD83D\uDE00", "_", "x1", "Z"};

  @TempDir Path dir;
  private SchemaCatalog catalog;

  @BeforeEach
  void open() {
    // on a memory device: these tests are about the codec, and a sync per new schema would dominate them
    catalog = SchemaCatalog.open(CatalogConfig.builder(dir.resolve("catalog")).directIo(false)
        .namespaceCap("capped", 5).namespaceCap("inline", 0).build(), (d, slots, bytes, io) -> new MemoryDevice(slots, bytes));
  }

  @AfterEach
  void close() {
    catalog.close();
  }

  /** A random row: 0..12 columns from a small name pool (so schemas repeat), random bytes, some nested. */
  static Row randomRow(Random rnd, int depth) {
    Row.Builder b = Row.builder();
    int n = rnd.nextInt(13);
    Set<String> used = new HashSet<>();
    for (int i = 0; i < n; i++) {
      String name = ALPHABET[rnd.nextInt(ALPHABET.length)] + (rnd.nextInt(4) == 0 ? "" : Integer.toString(rnd.nextInt(8)));
      if (!used.add(name)) {
        continue;
      }
      if (depth < 3 && rnd.nextInt(8) == 0) {
        b.put(name, randomRow(rnd, depth + 1));
      } else {
        int len = rnd.nextInt(10) == 0 ? 200 + rnd.nextInt(400) : rnd.nextInt(40);
        byte[] v = new byte[len];
        rnd.nextBytes(v);
        b.put(name, v);
      }
    }
    return b.build();
  }

  @Test
  void everyRandomRowRoundTripsByteExact() {
    Random rnd = new Random(20240611L);
    RowCodec codec = new RowCodec(catalog, "props");
    for (int i = 0; i < 3000; i++) {
      Row row = randomRow(rnd, 0);
      byte[] bytes = codec.encode(row);
      Row back = codec.decode(bytes);
      assertEquals(row, back, "iteration " + i);
      for (String c : row.columns()) {
        if (!row.isNested(c)) {
          assertArrayEquals(row.bytes(c), back.bytes(c));
        }
      }
      assertArrayEquals(bytes, codec.encode(back), "re-encoding is stable");
    }
    assertTrue(catalog.stats().schemas() > 50, "random rows made many schemas: " + catalog.stats().schemas());
  }

  @Test
  void slicesDecodeExactlyTheRequestedColumns() {
    Random rnd = new Random(7L);
    RowCodec codec = new RowCodec(catalog, "slices");
    for (int i = 0; i < 2000; i++) {
      Row row = randomRow(rnd, 0);
      List<String> want = new ArrayList<>();
      for (String c : row.columns()) {
        if (rnd.nextBoolean()) {
          want.add(c);
        }
      }
      want.add("absent-column");
      Row slice = codec.decode(codec.encode(row), want);
      Row.Builder expected = Row.builder();
      for (String c : row.columns()) {
        if (want.contains(c)) {
          if (row.isNested(c)) {
            expected.put(c, row.row(c));
          } else {
            expected.put(c, row.bytes(c));
          }
        }
      }
      assertEquals(expected.build(), slice, "iteration " + i);
    }
  }

  @Test
  void inlineFallbackRowsRoundTripToo() {
    Random rnd = new Random(99L);
    RowCodec codec = new RowCodec(catalog, "capped");
    int inline = 0;
    for (int i = 0; i < 1000; i++) {
      Row row = randomRow(rnd, 0);
      byte[] bytes = codec.encode(row);
      inline += (bytes[0] & 1);
      assertEquals(row, codec.decode(bytes));
      assertEquals(row.size() > 1 ? row.columns().subList(0, 1) : row.columns().subList(0, row.size()),
          codec.decode(bytes, row.columns().subList(0, Math.min(1, row.size()))).columns());
    }
    assertTrue(inline > 900, "past the cap of 5 schemas rows carry their names: " + inline);
    assertEquals(5, catalog.stats().namespaces().get("capped").schemas());
  }

  @Test
  void nestedDocumentsGetTheirOwnSchemaIds() {
    RowCodec codec = new RowCodec(catalog);
    Row address = Row.builder().put("city", utf8("Bern")).put("zip", utf8("3000")).build();
    Row person = Row.builder().put("name", utf8("Ada")).put("address", address).build();
    byte[] bytes = codec.encode(person);
    List<Long> ids = new ArrayList<>();
    codec.forEachSchemaId(bytes, ids::add);
    assertEquals(2, ids.size());
    assertEquals(List.of("address", "name"), catalog.schema(ids.get(0)).columns());
    assertEquals(List.of("city", "zip"), catalog.schema(ids.get(1)).columns());
    Row back = codec.decode(bytes);
    assertEquals("Bern", new String(back.row("address").bytes("city"), StandardCharsets.UTF_8));
    assertEquals(address, codec.decode(bytes, List.of("address")).row("address"));
    assertThrows(IllegalStateException.class, () -> back.bytes("address"));
  }

  @Test
  void aYcsbRecordLosesItsNames() {
    RowCodec codec = new RowCodec(catalog);
    Map<String, byte[]> fields = new LinkedHashMap<>();
    for (int i = 0; i < 10; i++) {
      fields.put("field" + i, new byte[100]);
    }
    byte[] bytes = codec.encode(Row.of(fields));
    assertEquals(1 + 1 + 10 * (1 + 100), bytes.length);
  }

  @Test
  void everyTruncationOrExtensionIsAnErrorNeverARow() {
    Random rnd = new Random(3L);
    RowCodec codec = new RowCodec(catalog);
    RowCodec inline = new RowCodec(catalog, "capped");
    for (int i = 0; i < 40; i++) { // every prefix of each: a few hundred thousand decodes
      Row row = randomRow(rnd, 0);
      for (RowCodec c : List.of(codec, inline)) {
        byte[] bytes = c.encode(row);
        for (int len = 0; len < bytes.length; len++) {
          byte[] cut = Arrays.copyOf(bytes, len);
          assertThrows(RowFormatException.class, () -> c.decode(cut), "prefix of " + len + " of " + bytes.length);
        }
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
        assertThrows(RowFormatException.class, () -> c.decode(longer));
      }
    }
  }

  @Test
  void theFormatIsStableByteForByte() {
    RowCodec codec = new RowCodec(catalog);
    Row row = Row.builder().put("b", new byte[] {7}).put("a", new byte[0])
        .put("n", Row.builder().put("x", new byte[] {1, 2}).build()).build();
    // header 0x12 (v1, NESTED), schema id 1 ([a, b, n]), bitmap 0b100, values a="", b=07, n=(header 0x10, id 2, x=0102)
    assertArrayEquals(new byte[] {0x12, 1, 0b100, 0, 1, 7, 5, 0x10, 2, 2, 1, 2}, codec.encode(row));
    RowCodec inline = new RowCodec(catalog, "inline"); // cap 0: always inline
    // header 0x11 (v1, INLINE), 1 column, name "z", value 09
    assertArrayEquals(new byte[] {0x11, 1, 1, 'z', 1, 9}, inline.encode(Row.builder().put("z", new byte[] {9}).build()));
    assertArrayEquals(new byte[] {1, 'd', 2, 1, 'a', 2, 'b', 'c'}, CatalogRecord.defineValue("d", new String[] {"a", "bc"}));
    assertArrayEquals(new byte[] {1, 5, 0, 0, 0}, CatalogRecord.key(CatalogRecord.DEFINE, 5));
  }

  @Test
  void badBytesAreClearErrors() {
    RowCodec codec = new RowCodec(catalog);
    byte[] row = codec.encode(Row.builder().put("a", new byte[100]).put("b", new byte[5]).build());
    assertMessage("truncated row: value of column 'a' (#0 of 2) declares 100 bytes at offset 2, only 50 remain",
        () -> codec.decode(Arrays.copyOf(row, 53)));
    assertMessage("schema id 77 was never assigned", () -> codec.decode(new byte[] {0x10, 77}));
    assertMessage("schema id 0 is out of range", () -> codec.decode(new byte[] {0x10, 0}));
    assertMessage("expected 1", () -> codec.decode(new byte[] {0x20, 1}));
    assertMessage("reserved header bits", () -> codec.decode(new byte[] {0x14, 1}));
    assertMessage("truncated row: row header", () -> codec.decode(new byte[0]));
    assertMessage("exceeds 32 bits", () -> codec.decode(new byte[] {0x10, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x1F}));
    assertMessage("not strictly ascending", () -> codec.decode(new byte[] {0x11, 2, 1, 'b', 1, 'a', 0, 0}));
    assertMessage("not valid UTF-8", () -> codec.decode(new byte[] {0x11, 1, 1, (byte) 0xFF, 0}));
    assertMessage("1 bytes after the last of 2 columns", () -> codec.decode(Arrays.copyOf(row, row.length + 1)));
    assertMessage("duplicate column name 'a'", () -> Row.builder().put("a", new byte[0]).put("a", new byte[1]));
    assertMessage("column name is empty", () -> Row.builder().put("", new byte[0]));
    assertMessage("value of column 'v' is null", () -> Row.builder().put("v", (byte[]) null));
  }

  @Test
  void worksAsTheValueCodecOfAHybridCache() {
    CacheConfig cfg = CacheConfig.builder(dir.resolve("cache")).dramBytes(CacheConfig.MIB)
        .flashBytes(16 * 64 * CacheConfig.KIB).segmentBytes(64 * (int) CacheConfig.KIB)
        .writeBufferBytes(16 * 1024).indexType(IndexType.HEAP).jmx(false).build();
    RowCodec codec = new RowCodec(catalog, "users");
    try (HybridCache cache = HybridCache.open(cfg)) {
      TypedCache<String, Row> users = cache.typed(Codec.utf8(), codec);
      Random rnd = new Random(5L);
      Map<String, Row> model = new LinkedHashMap<>();
      for (int i = 0; i < 3000; i++) { // ~1.5 MB of rows against 1 MiB of DRAM: most reach flash
        Row r = randomRow(rnd, 0).toBuilder().set("pad", new byte[400]).build();
        users.put("u" + i, r);
        model.put("u" + i, r);
      }
      for (Map.Entry<String, Row> e : model.entrySet()) {
        Row got = users.get(e.getKey());
        if (got != null) { // a cache may miss; it never returns a wrong row
          assertEquals(e.getValue(), got, e.getKey());
        }
      }
      assertTrue(cache.stats().flashHits() > 0, "some rows came back from flash");
      assertNull(users.get("nobody"));
      assertTrue(catalog.stats().namespaces().get("users").schemas() > 100);
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
