package io.hybridcache.bench.ycsb;

import io.hybridcache.core.catalog.Row;
import io.hybridcache.core.catalog.RowCodec;
import io.hybridcache.core.catalog.SchemaCatalog;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How {@link HybridCacheDB} turns a YCSB record into a cache value: {@code raw} ({@link RecordCodec},
 * field names inline in every record) or {@code catalog} ({@link RowCodec}: a schema id from the
 * schema catalogue and the values, no names; one catalogue namespace per YCSB table). Thread-safe.
 */
public interface RecordFormat {
  /** The value for {@code fields} of a record of {@code table}. */
  byte[] encode(String table, Map<String, byte[]> fields);

  /** The fields of {@code value} named in {@code only} (all when null); throws on bytes of another format. */
  Map<String, byte[]> decode(String table, byte[] value, Set<String> only);

  /** {@code value} (null: none yet) with {@code updates} written over it. */
  default byte[] merge(String table, byte[] value, Map<String, byte[]> updates) {
    if (value == null) {
      return encode(table, updates);
    }
    Map<String, byte[]> fields = decode(table, value, null);
    fields.putAll(updates);
    return encode(table, fields);
  }

  /** Names inline ({@link RecordCodec}). */
  RecordFormat RAW = new RecordFormat() {
    @Override
    public byte[] encode(String table, Map<String, byte[]> fields) {
      return RecordCodec.encode(fields);
    }

    @Override
    public Map<String, byte[]> decode(String table, byte[] value, Set<String> only) {
      return RecordCodec.decode(value, only);
    }

    @Override
    public String toString() {
      return "raw";
    }
  };

  /** Catalogue-encoded rows in {@code catalog}, namespace = the YCSB table. */
  static RecordFormat catalog(SchemaCatalog catalog) {
    Map<String, RowCodec> codecs = new ConcurrentHashMap<>();
    return new RecordFormat() {
      private RowCodec codec(String table) {
        return codecs.computeIfAbsent(table == null ? "usertable" : table, t -> new RowCodec(catalog, t));
      }

      @Override
      public byte[] encode(String table, Map<String, byte[]> fields) {
        return codec(table).encode(Row.of(fields));
      }

      @Override
      public Map<String, byte[]> decode(String table, byte[] value, Set<String> only) {
        RowCodec c = codec(table);
        return (only == null ? c.decode(value) : c.decode(value, only)).toBytesMap();
      }

      @Override
      public String toString() {
        return "catalog";
      }
    };
  }

  /** raw or catalog (case-insensitive). */
  static String parse(String key, String v) {
    String s = v.trim().toLowerCase(Locale.ROOT);
    if (!s.equals("raw") && !s.equals("catalog")) {
      throw new IllegalArgumentException(key + " must be raw or catalog, was " + v);
    }
    return s;
  }
}
