package io.hybridcache.mongo;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.types.Decimal128;

/**
 * Thread-safe (stateless) cache keys of documents: {@code varint(collection id)} then the canonical
 * bytes of the {@code _id} value. Canonical means two {@code _id} values MongoDB's query equality
 * treats as equal give the same key: numbers of any type (int32, int64, double, decimal128) with
 * the same value share one key (1 == 1L == 1.0; -0.0 == 0), strings and symbols share one, embedded
 * documents and arrays are canonical element by element; every other type is its type byte and its
 * BSON value bytes. Every piece is self-delimiting, so distinct ids never share a key. Layout in
 * {@code src/site/format.md} ("Mongo document", cache key).
 */
final class IdKeys {
  private static final int NUMBER_LONG = 0x12;
  private static final int NUMBER_OTHER = 0x13;
  private static final int STRING = 0x02;

  private IdKeys() {}

  /** The cache key of {@code id} in the collection with catalogue id {@code collectionId}. */
  static byte[] key(long collectionId, BsonValue id) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(24);
    varint(out, collectionId);
    canonical(out, id);
    return out.toByteArray();
  }

  private static void canonical(ByteArrayOutputStream out, BsonValue v) {
    switch (v.getBsonType()) {
      case INT32 -> number(out, BigDecimal.valueOf(v.asInt32().getValue()), null);
      case INT64 -> number(out, BigDecimal.valueOf(v.asInt64().getValue()), null);
      case DOUBLE -> {
        double d = v.asDouble().getValue();
        number(out, Double.isFinite(d) ? new BigDecimal(d) : null, Double.isNaN(d) ? "NaN" : d > 0 ? "Inf" : "-Inf");
      }
      case DECIMAL128 -> {
        Decimal128 d = v.asDecimal128().getValue();
        number(out, d.isNaN() || d.isInfinite() ? null : decimal(d), d.isNaN() ? "NaN" : d.isNegative() ? "-Inf" : "Inf");
      }
      case STRING -> string(out, STRING, v.asString().getValue());
      case SYMBOL -> string(out, STRING, v.asSymbol().getSymbol());
      case DOCUMENT -> {
        BsonDocument d = v.asDocument();
        out.write(BsonBytes.DOCUMENT);
        varint(out, d.size());
        for (Map.Entry<String, BsonValue> e : d.entrySet()) {
          string(out, STRING, e.getKey());
          canonical(out, e.getValue());
        }
      }
      case ARRAY -> {
        BsonArray a = v.asArray();
        out.write(BsonBytes.ARRAY);
        varint(out, a.size());
        for (BsonValue e : a) {
          canonical(out, e);
        }
      }
      default -> {
        // the value's exact BSON bytes, cut out of a one-field document {"": v}
        byte[] doc = raw(v);
        BsonBytes.Element e = BsonBytes.elements(doc, 0).get(0);
        out.write(e.type());
        varint(out, e.valueLength());
        out.write(doc, e.valueStart(), e.valueLength());
      }
    }
  }

  /** An integral value within int64 as 8 bytes; any other as its shortest exact decimal text. */
  private static void number(ByteArrayOutputStream out, BigDecimal d, String special) {
    if (d == null) {
      string(out, NUMBER_OTHER, special);
      return;
    }
    BigDecimal s = d.signum() == 0 ? BigDecimal.ZERO : d.stripTrailingZeros();
    if (s.scale() <= 0 && s.precision() - s.scale() <= 19) {
      try {
        long x = s.longValueExact();
        out.write(NUMBER_LONG);
        for (int i = 56; i >= 0; i -= 8) {
          out.write((int) (x >>> i));
        }
        return;
      } catch (ArithmeticException outsideLong) {
        // falls through to the decimal text
      }
    }
    string(out, NUMBER_OTHER, s.toString());
  }

  private static BigDecimal decimal(Decimal128 d) {
    try {
      return d.bigDecimalValue();
    } catch (ArithmeticException negativeZero) {
      return BigDecimal.ZERO; // -0 equals 0 in queries
    }
  }

  private static void string(ByteArrayOutputStream out, int tag, String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    out.write(tag);
    varint(out, b.length);
    out.write(b, 0, b.length);
  }

  private static byte[] raw(BsonValue v) {
    RawBsonDocument doc = new RawBsonDocument(new BsonDocument("", v), new org.bson.codecs.BsonDocumentCodec());
    java.nio.ByteBuffer bb = doc.getByteBuffer().asNIO();
    byte[] b = new byte[bb.remaining()];
    bb.get(b);
    return b;
  }

  static void varint(ByteArrayOutputStream out, long v) {
    while ((v & ~0x7FL) != 0) {
      out.write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }
}
