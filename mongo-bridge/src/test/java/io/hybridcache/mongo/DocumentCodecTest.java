package io.hybridcache.mongo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.catalog.CatalogConfig;
import io.hybridcache.core.catalog.RowFormatException;
import io.hybridcache.core.catalog.SchemaCatalog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Byte-exact round trips of raw BSON through the catalogue encoding (property tests over seeds). */
class DocumentCodecTest {
  @TempDir
  Path dir;
  SchemaCatalog catalog;
  DocumentCodec codec;

  @BeforeEach
  void open() {
    catalog = SchemaCatalog.open(CatalogConfig.builder(dir).directIo(false).build());
    codec = new DocumentCodec(catalog, "db.coll");
  }

  @AfterEach
  void close() {
    catalog.close();
  }

  private byte[] roundTrip(byte[] bson) {
    byte[] value = codec.encode(bson);
    byte[] back = codec.decode(value);
    assertArrayEquals(bson, back, () -> "round trip changed " + new RawBsonDocument(bson).toJson());
    return value;
  }

  @Test
  void randomDocumentsOfEveryTypeRoundTripByteForByte() {
    Set<BsonType> seen = new HashSet<>();
    int rows = 0;
    for (long seed = 1; seed <= 400; seed++) {
      RandomBson gen = new RandomBson(seed);
      BsonDocument doc = gen.document(12, 3);
      doc.values().forEach(v -> seen.add(v.getBsonType()));
      byte[] value = roundTrip(RandomBson.bytes(doc));
      rows += DocumentCodec.isRow(value) ? 1 : 0;
    }
    assertEquals(Set.copyOf(RandomBson.TYPES), seen, "the generator covers every BSON type");
    assertTrue(rows > 250, "most random documents are catalogue rows, not raw fallbacks: " + rows);
  }

  @Test
  void everyTypeAsTopLevelFieldInsideNestedDocumentAndInsideArray() {
    RandomBson gen = new RandomBson(7);
    for (BsonType t : RandomBson.TYPES) {
      for (int i = 0; i < 20; i++) {
        BsonValue v = gen.value(t, 2);
        BsonDocument doc = new BsonDocument("_id", new BsonInt32(i)).append("v", v)
            .append("nested", new BsonDocument("v", v).append("a", new BsonInt32(1)))
            .append("array", new BsonArray(List.of(v, new BsonDocument("in", v), new BsonArray(List.of(v)))));
        byte[] value = roundTrip(RandomBson.bytes(doc));
        assertTrue(DocumentCodec.isRow(value), t + " keeps the document a row");
      }
    }
  }

  @Test
  void fieldNamesAreNotInTheValueAndNestedDocumentsGetTheirOwnSchemaIds() {
    BsonDocument doc = new BsonDocument("_id", new BsonInt32(1))
        .append("customer_name", new BsonString("Ada"))
        .append("address", new BsonDocument("street_name", new BsonString("Main")).append("zip_code", new BsonInt32(1)))
        .append("orders", new BsonArray(List.of(new BsonDocument("order_total", new BsonInt32(3)))));
    byte[] bson = RandomBson.bytes(doc);
    byte[] value = roundTrip(bson);
    String text = new String(value, StandardCharsets.ISO_8859_1);
    for (String name : List.of("customer_name", "address", "street_name", "zip_code", "orders", "order_total")) {
      assertFalse(text.contains(name), name + " is not stored in the value");
    }
    assertTrue(value.length < bson.length - 40, value.length + " vs " + bson.length);
    List<Long> ids = new ArrayList<>();
    codec.forEachSchemaId(value, ids::add);
    assertEquals(3, new HashSet<>(ids).size(), "top level, nested document, document in the array: " + ids);
    assertEquals(List.of("order_total"), catalog.schema(ids.get(ids.size() - 1)).columns());
  }

  @Test
  void fieldOrderIsKeptForFewAndManyFields() {
    for (int n : new int[] {2, 5, 127, 128, 300, 1023}) {
      List<Map.Entry<String, BsonValue>> fields = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        fields.add(Map.entry("f" + i, new BsonInt32(i)));
      }
      Collections.shuffle(fields, new Random(n));
      byte[] value = roundTrip(RandomBson.raw(fields));
      assertTrue(DocumentCodec.isRow(value), n + " fields");
    }
  }

  @Test
  void documentsARowCannotHoldFallBackToRawBsonExactly() {
    // repeated name, empty name, a 256-byte name, 1024 unsorted fields (+ ORDER = 1025 columns), 1025 fields
    roundTripRaw(List.of(Map.entry("a", new BsonInt32(1)), Map.entry("a", new BsonInt32(2))));
    roundTripRaw(List.of(Map.entry("", new BsonInt32(1))));
    roundTripRaw(List.of(Map.entry("n".repeat(256), new BsonInt32(1))));
    List<Map.Entry<String, BsonValue>> many = new ArrayList<>();
    for (int i = 0; i < 1024; i++) {
      many.add(Map.entry("f" + i, new BsonInt32(i)));
    }
    roundTripRaw(many);
    many.add(Map.entry("zzz", new BsonInt32(0)));
    Collections.sort(many, Map.Entry.comparingByKey());
    roundTripRaw(many);
    // the same problems one level down keep only that subdocument raw
    BsonDocument inner = new BsonDocument("", new BsonInt32(1));
    byte[] value = roundTrip(RandomBson.bytes(new BsonDocument("ok", new BsonInt32(1)).append("odd", inner)));
    assertTrue(DocumentCodec.isRow(value));
  }

  private void roundTripRaw(List<Map.Entry<String, BsonValue>> fields) {
    assertFalse(DocumentCodec.isRow(roundTrip(RandomBson.raw(fields))));
  }

  @Test
  void deepNestingBeyondTheRowLimitsStaysExact() {
    for (int depth : new int[] {31, 32, 33, 99, 100, 101, 150}) {
      BsonValue v = new BsonInt32(depth);
      for (int i = 0; i < depth; i++) {
        v = i % 3 == 2 ? new BsonArray(List.of(v, new BsonInt32(i))) : new BsonDocument("d", v).append("i", new BsonInt32(i));
      }
      roundTrip(RandomBson.bytes(new BsonDocument("_id", new BsonInt32(1)).append("deep", v)));
    }
  }

  @Test
  void arraysWithOtherKeysAndNamesThatAreNotUtf8StayExact() {
    // an "array" whose keys are not 0..n-1: a document with its type byte patched to 0x04
    byte[] doc = RandomBson.bytes(new BsonDocument("arr", new BsonDocument("x", new BsonInt32(1))
        .append("y", new BsonInt32(2))).append("b", new BsonInt32(3)));
    assertEquals(0x03, doc[4]);
    doc[4] = 0x04;
    roundTrip(doc);
    // a field name with an invalid UTF-8 sequence: é (C3 A9) patched to C3 28
    byte[] bad = RandomBson.bytes(new BsonDocument("é", new BsonInt32(1)).append("ok", new BsonInt32(2)));
    bad[6] = 0x28;
    assertFalse(DocumentCodec.isRow(roundTrip(bad)));
  }

  @Test
  void manyDocumentsShareTheirSchemas() {
    long before = catalog.stats().schemas();
    for (int i = 0; i < 200; i++) {
      roundTrip(RandomBson.bytes(new BsonDocument("_id", new BsonInt32(i)).append("name", new BsonString("n" + i))
          .append("tags", new BsonArray(List.of(new BsonString("t"))))
          .append("bin", new BsonBinary(new byte[] {(byte) i}))));
    }
    assertEquals(1, catalog.stats().schemas() - before);
  }

  @Test
  void malformedInputAndCorruptValuesAreErrorsNeverWrongDocuments() {
    byte[] bson = RandomBson.bytes(new BsonDocument("_id", new BsonInt32(1)).append("s", new BsonString("abc"))
        .append("a", new BsonArray(List.of(new BsonInt32(1), new BsonDocument("x", new BsonInt32(2))))));
    assertThrows(IllegalArgumentException.class, () -> codec.encode(java.util.Arrays.copyOf(bson, bson.length - 1)));
    byte[] longer = java.util.Arrays.copyOf(bson, bson.length + 3);
    assertThrows(IllegalArgumentException.class, () -> codec.encode(longer));
    byte[] value = codec.encode(bson);
    // every truncation fails
    for (int n = 0; n < value.length; n++) {
      byte[] cut = java.util.Arrays.copyOf(value, n);
      assertThrows(IllegalArgumentException.class, () -> codec.decode(cut), "truncated to " + n);
    }
    // every single-byte change either fails or gives a well-formed document: never a crash of another kind
    for (int i = 0; i < value.length; i++) {
      byte[] v = value.clone();
      v[i] ^= 0x5A;
      try {
        byte[] out = codec.decode(v);
        assertEquals(out.length, BsonBytes.documentEnd(out, 0), "a decoded document is well-formed");
      } catch (IllegalArgumentException expected) {
        // RowFormatException or UnknownSchemaException
      }
    }
    assertThrows(RowFormatException.class, () -> codec.decode(new byte[] {0x12, 5, 0, 0, 0, 0}));
  }
}
