package io.hybridcache.mongo;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBinaryWriter;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDbPointer;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonJavaScript;
import org.bson.BsonJavaScriptWithScope;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonRegularExpression;
import org.bson.BsonString;
import org.bson.BsonSymbol;
import org.bson.BsonTimestamp;
import org.bson.BsonType;
import org.bson.BsonUndefined;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonValueCodec;
import org.bson.codecs.EncoderContext;
import org.bson.io.BasicOutputBuffer;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;

/**
 * Deterministic random BSON for property tests: values of every BSON type (edge values included:
 * NaN, -0.0, infinities, empty strings, every binary subtype, Decimal128 specials), documents with
 * random field names and orders, nesting, arrays of anything, and raw documents with repeated names.
 * Not thread-safe: one per test thread (it holds a {@link Random}).
 */
final class RandomBson {
  /** Every BSON type a document can hold (the scalar ones plus document and array). */
  static final List<BsonType> TYPES = List.of(BsonType.DOUBLE, BsonType.STRING, BsonType.DOCUMENT, BsonType.ARRAY,
      BsonType.BINARY, BsonType.UNDEFINED, BsonType.OBJECT_ID, BsonType.BOOLEAN, BsonType.DATE_TIME, BsonType.NULL,
      BsonType.REGULAR_EXPRESSION, BsonType.DB_POINTER, BsonType.JAVASCRIPT, BsonType.SYMBOL,
      BsonType.JAVASCRIPT_WITH_SCOPE, BsonType.INT32, BsonType.TIMESTAMP, BsonType.INT64, BsonType.DECIMAL128,
      BsonType.MIN_KEY, BsonType.MAX_KEY);
  private static final byte[] BINARY_SUBTYPES = {0, 1, 2, 3, 4, 5, 6, 7, 8, (byte) 0x80, (byte) 0xFF};

  private final Random rnd;
  private final List<BsonType> types;
  private final byte[] binarySubtypes;
  private final boolean plain;

  RandomBson(long seed) {
    this(seed, TYPES, BINARY_SUBTYPES, false);
  }

  /**
   * Values only of {@code types} (containers among them) and binaries only of {@code binarySubtypes};
   * {@code plain}: no edge values (finite doubles other than -0.0, strings without NUL, finite
   * decimals), for servers that refuse or change those.
   */
  RandomBson(long seed, List<BsonType> types, byte[] binarySubtypes, boolean plain) {
    this.rnd = new Random(seed);
    this.types = List.copyOf(types);
    this.binarySubtypes = binarySubtypes.clone();
    this.plain = plain;
  }

  /** A document of up to {@code maxFields} fields nested at most {@code depth} more levels. */
  BsonDocument document(int maxFields, int depth) {
    BsonDocument d = new BsonDocument();
    int n = rnd.nextInt(maxFields + 1);
    for (int i = 0; i < n; i++) {
      d.put(name(), value(depth));
    }
    return d;
  }

  /** A value of a random type; containers only while {@code depth > 0}. */
  BsonValue value(int depth) {
    BsonType t = types.get(rnd.nextInt(types.size()));
    if (depth <= 0 && (t == BsonType.DOCUMENT || t == BsonType.ARRAY || t == BsonType.JAVASCRIPT_WITH_SCOPE)) {
      t = types.contains(BsonType.STRING) ? BsonType.STRING : BsonType.INT32;
    }
    return value(t, depth);
  }

  BsonValue value(BsonType t, int depth) {
    return switch (t) {
      case DOUBLE -> new BsonDouble(plain ? rnd.nextGaussian() * 1e6 : pick(Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
          Double.MIN_VALUE, Double.longBitsToDouble(0x7ff8_0000_0000_0abcL), rnd.nextGaussian() * 1e6));
      case STRING -> new BsonString(string());
      case DOCUMENT -> document(6, depth - 1);
      case ARRAY -> {
        BsonArray a = new BsonArray();
        int n = rnd.nextInt(5);
        for (int i = 0; i < n; i++) {
          a.add(value(depth - 1));
        }
        yield a;
      }
      case BINARY -> {
        byte sub = binarySubtypes[rnd.nextInt(binarySubtypes.length)];
        byte[] data = new byte[sub == 3 || sub == 4 ? 16 : rnd.nextInt(40)];
        rnd.nextBytes(data);
        yield new BsonBinary(sub, data);
      }
      case UNDEFINED -> new BsonUndefined();
      case OBJECT_ID -> new BsonObjectId(new ObjectId(rnd.nextInt(), rnd.nextInt(1 << 24)));
      case BOOLEAN -> BsonBoolean.valueOf(rnd.nextBoolean());
      case DATE_TIME -> new BsonDateTime(rnd.nextLong());
      case NULL -> BsonNull.VALUE;
      case REGULAR_EXPRESSION -> new BsonRegularExpression(ascii(8), pick("", "i", "imsx"));
      case DB_POINTER -> new BsonDbPointer("db." + ascii(5), new ObjectId());
      case JAVASCRIPT -> new BsonJavaScript("function(){return " + rnd.nextInt() + ";}");
      case SYMBOL -> new BsonSymbol(string());
      case JAVASCRIPT_WITH_SCOPE -> new BsonJavaScriptWithScope("x + " + rnd.nextInt(), document(3, 0));
      case INT32 -> new BsonInt32(pick(0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, rnd.nextInt()));
      case TIMESTAMP -> new BsonTimestamp(rnd.nextLong());
      case INT64 -> new BsonInt64(pick(0L, Long.MIN_VALUE, Long.MAX_VALUE, rnd.nextLong()));
      case DECIMAL128 -> new BsonDecimal128(plain ? Decimal128.parse(rnd.nextInt() + ".25") : pick(Decimal128.NaN, Decimal128.NEGATIVE_ZERO, Decimal128.POSITIVE_INFINITY,
          Decimal128.NEGATIVE_INFINITY, Decimal128.fromIEEE754BIDEncoding(rnd.nextLong() & 0x3fffffffffffffffL,
              rnd.nextLong()), Decimal128.parse("12345.678900")));
      case MIN_KEY -> new BsonMinKey();
      case MAX_KEY -> new BsonMaxKey();
      default -> throw new IllegalArgumentException(t.toString());
    };
  }

  /** Field names: mostly short ASCII, sometimes non-ASCII, empty, or past the catalogue's 255 bytes. */
  String name() {
    int r = rnd.nextInt(100);
    if (r < 3) {
      return "";
    }
    if (r < 5) {
      return "long_" + "x".repeat(251 + rnd.nextInt(3));
    }
    if (r < 15) {
      return "é" + ascii(3) + "\uD83D\uDE00"; // 2-byte and 4-byte UTF-8
    }
    return ascii(1 + rnd.nextInt(12));
  }

  String string() {
    return switch (plain ? 1 + 2 * rnd.nextInt(2) : rnd.nextInt(4)) {
      case 0 -> "";
      case 1 -> "ünïcødé \uD83D\uDE80 " + rnd.nextInt();
      case 2 -> "with\u0000nul";
      default -> ascii(rnd.nextInt(30));
    };
  }

  String ascii(int n) {
    StringBuilder sb = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      sb.append((char) ('a' + rnd.nextInt(26)));
    }
    return sb.toString();
  }

  @SafeVarargs
  private <V> V pick(V... choices) {
    return choices[rnd.nextInt(choices.length)];
  }

  /** {@code doc}'s BSON bytes in its own field order. */
  static byte[] bytes(BsonDocument doc) {
    return raw(new ArrayList<>(doc.entrySet()));
  }

  /** A document of exactly these (name, value) pairs in this order; names may repeat. */
  static byte[] raw(List<Map.Entry<String, BsonValue>> fields) {
    BasicOutputBuffer buf = new BasicOutputBuffer();
    try (BsonBinaryWriter w = new BsonBinaryWriter(buf)) {
      w.writeStartDocument();
      BsonValueCodec codec = new BsonValueCodec();
      for (Map.Entry<String, BsonValue> e : fields) {
        w.writeName(e.getKey());
        codec.encode(w, e.getValue(), EncoderContext.builder().build());
      }
      w.writeEndDocument();
    }
    return buf.toByteArray();
  }

  static byte[] bytes(RawBsonDocument doc) {
    ByteBuffer bb = doc.getByteBuffer().asNIO();
    byte[] b = new byte[bb.remaining()];
    bb.get(b);
    return b;
  }
}
