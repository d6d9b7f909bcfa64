package io.hybridcache.mongo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonSymbol;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/** Cache keys: ids MongoDB's equality treats as equal share a key; all others differ. */
class IdKeysTest {
  private static void same(BsonValue a, BsonValue b) {
    assertArrayEquals(IdKeys.key(7, a), IdKeys.key(7, b), a + " vs " + b);
  }

  @Test
  void numericIdsAreCanonical() {
    same(new BsonInt32(1), new BsonInt64(1));
    same(new BsonInt32(1), new BsonDouble(1.0));
    same(new BsonInt64(1), new BsonDecimal128(Decimal128.parse("1.000")));
    same(new BsonDouble(-0.0), new BsonInt32(0));
    same(new BsonDecimal128(Decimal128.NEGATIVE_ZERO), new BsonInt32(0));
    same(new BsonDouble(1.5), new BsonDecimal128(Decimal128.parse("1.50")));
    same(new BsonDouble(Double.NaN), new BsonDecimal128(Decimal128.NaN));
    same(new BsonDouble(Math.pow(2, 40)), new BsonInt64(1L << 40));
    same(new BsonDouble(0.5), new BsonDecimal128(Decimal128.parse("5E-1")));
    same(new BsonString("abc"), new BsonSymbol("abc"));
    same(new BsonDocument("a", new BsonInt32(1)), new BsonDocument("a", new BsonInt64(1)));
  }

  @Test
  void distinctIdsHaveDistinctKeys() {
    ObjectId oid = new ObjectId();
    List<BsonValue> ids = List.of(new BsonInt32(1), new BsonInt32(2), new BsonDouble(1.1), new BsonString("1"),
        new BsonString(""), new BsonString("a"), new BsonString("ab"), new BsonObjectId(oid),
        new BsonBinary(new byte[] {1}), new BsonBinary((byte) 4, new byte[] {1}), new BsonInt64(Long.MAX_VALUE),
        new BsonDouble(Math.pow(2, 63)), new BsonDouble(Double.POSITIVE_INFINITY),
        new BsonDouble(Double.NEGATIVE_INFINITY), new BsonDocument("a", new BsonString("b")),
        new BsonDocument("ab", new BsonString("")), new BsonArray(List.of(new BsonInt32(1))),
        new BsonDocument("a", new BsonInt32(1)).append("b", new BsonInt32(2)),
        new BsonDocument("b", new BsonInt32(2)).append("a", new BsonInt32(1)));
    Set<String> keys = new HashSet<>();
    for (BsonValue id : ids) {
      keys.add(java.util.HexFormat.of().formatHex(IdKeys.key(7, id)));
    }
    assertEquals(ids.size(), keys.size());
    // the collection id separates collections
    assertEquals(false, java.util.Arrays.equals(IdKeys.key(7, new BsonInt32(1)), IdKeys.key(8, new BsonInt32(1))));
  }
}
