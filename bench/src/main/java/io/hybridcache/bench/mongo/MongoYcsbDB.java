package io.hybridcache.bench.mongo;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.gte;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.mongodb.ConnectionString;
import com.mongodb.client.FindIterable;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.Updates;
import io.hybridcache.bench.StatsJson;
import io.hybridcache.bench.ycsb.HybridCacheDB;
import io.hybridcache.mongo.BridgeConfig;
import io.hybridcache.mongo.CachedCollection;
import io.hybridcache.mongo.MongoBridge;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.bson.types.Binary;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * The two YCSB bindings for MongoDB-wire servers, one harness: {@link Direct} talks to the server
 * through the official sync driver, {@link Bridge} goes through the Mongo bridge (the hybrid cache in
 * front of the same collection). A record is a document {@code {_id: key, field0: binary, ...}} as in
 * YCSB's own MongoDB binding; read by {@code _id} (the requested fields), insert, update with
 * {@code $set}, delete; scan goes to the server in both (the bridge caches by {@code _id} only).
 *
 * <p>Properties: {@value #URL} (default {@value #DEFAULT_URL}; the database is the URI's path, default
 * {@code ycsb}); for the bridge also the {@code hybridcache.*} cache properties of
 * {@link HybridCacheDB} (the catalogue lives in the cache directory) and {@code hybridcache.stats.file}
 * (cache and bridge counters as JSON at the last cleanup).
 *
 * <p>Concurrency: YCSB makes one DB per client thread; all share one driver client (and one bridge),
 * reference-counted under {@link #LOCK}: the first init opens, the last cleanup closes (the bridge's
 * cache cleanly, so the next JVM opens it warm). The driver and the bridge are thread-safe.
 */
public abstract class MongoYcsbDB extends DB {
  public static final String URL = "mongodb.url";
  public static final String DEFAULT_URL = "mongodb://127.0.0.1:27017/ycsb";

  /** Guards the shared fields below. */
  private static final Object LOCK = new Object();
  private static MongoClient client;
  private static MongoDatabase database;
  private static MongoBridge bridge;
  private static Path statsFile;
  private static int refs;
  private static final Map<String, CachedCollection<Document>> CACHED = new ConcurrentHashMap<>();
  private static final AtomicLong ERRORS = new AtomicLong();

  /** This instance's handle: set by init, cleared by cleanup (owning YCSB thread). */
  private MongoDatabase db;

  /** True for the binding through the bridge. */
  abstract boolean bridged();

  @Override
  public void init() throws DBException {
    synchronized (LOCK) {
      if (refs == 0) {
        String url = getProperties().getProperty(URL, DEFAULT_URL);
        ConnectionString cs;
        try {
          cs = new ConnectionString(url);
        } catch (IllegalArgumentException e) {
          throw new DBException("bad " + URL + " " + url + ": " + e.getMessage(), e);
        }
        client = MongoClients.create(cs);
        database = client.getDatabase(cs.getDatabase() == null ? "ycsb" : cs.getDatabase());
        if (bridged()) {
          try {
            bridge = MongoBridge.open(HybridCacheDB.configFrom(getProperties()), BridgeConfig.defaults());
          } catch (RuntimeException e) {
            client.close();
            client = null;
            throw new DBException("cannot open the bridge's cache: " + e, e);
          }
          String sf = getProperties().getProperty(HybridCacheDB.STATS_FILE);
          statsFile = sf == null || sf.isBlank() ? null : Path.of(sf);
        }
        ERRORS.set(0);
      }
      refs++;
      db = database;
    }
  }

  @Override
  public void cleanup() throws DBException {
    synchronized (LOCK) {
      if (db == null) {
        return;
      }
      db = null;
      if (--refs > 0) {
        return;
      }
      try {
        if (bridge != null) {
          closeBridge();
        }
      } catch (Exception e) {
        throw new DBException("closing the bridge failed: " + e, e);
      } finally {
        client.close();
        client = null;
        bridge = null;
        CACHED.clear();
      }
    }
  }

  /** Closes the bridge and writes the cache's and the collections' counters; caller holds LOCK. */
  private static void closeBridge() throws Exception {
    StatsJson.Closed closed = StatsJson.close(bridge.cache(), bridge::close);
    if (statsFile != null) {
      ObjectNode extra = StatsJson.MAPPER.createObjectNode();
      extra.put("snapshot", closed.snapshot());
      extra.put("binding_errors", ERRORS.get());
      ObjectNode cols = extra.putObject("bridge_collections");
      CACHED.forEach((name, c) -> cols.set(name, StatsJson.MAPPER.valueToTree(c.stats())));
      StatsJson.write(statsFile, closed.stats(), extra);
    }
  }

  MongoCollection<Document> collection(String table) {
    return db.getCollection(table);
  }

  CachedCollection<Document> cached(String table) {
    return CACHED.computeIfAbsent(table, t -> bridge.collection(database.getCollection(t)));
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                     Vector<HashMap<String, ByteIterator>> result) {
    try {
      FindIterable<Document> it = collection(table).find(gte("_id", startkey)).sort(Sorts.ascending("_id"))
          .limit(recordcount);
      if (fields != null) {
        it = it.projection(Projections.include(new ArrayList<>(fields)));
      }
      for (Document d : it) {
        HashMap<String, ByteIterator> row = new HashMap<>();
        copy(d, fields, row);
        result.add(row);
      }
      return Status.OK;
    } catch (RuntimeException e) {
      return error("scan", startkey, e);
    }
  }

  static Document record(String key, Map<String, ByteIterator> values) {
    Document d = new Document("_id", key);
    values.forEach((k, v) -> d.append(k, v.toArray()));
    return d;
  }

  static Bson setAll(Map<String, ByteIterator> values) {
    List<Bson> sets = new ArrayList<>(values.size());
    values.forEach((k, v) -> sets.add(Updates.set(k, v.toArray())));
    return Updates.combine(sets);
  }

  /** The requested fields of {@code d} (all but {@code _id} when null) into {@code result}. */
  static void copy(Document d, Set<String> fields, Map<String, ByteIterator> result) {
    for (Map.Entry<String, Object> e : d.entrySet()) {
      if (!e.getKey().equals("_id") && (fields == null || fields.contains(e.getKey()))) {
        Object v = e.getValue();
        byte[] b = v instanceof Binary bin ? bin.getData() : v instanceof byte[] a ? a
            : String.valueOf(v).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        result.put(e.getKey(), new ByteArrayByteIterator(b));
      }
    }
  }

  /** Counts the error; prints the first few, then a count every 10000. */
  static Status error(String op, String key, RuntimeException e) {
    long n = ERRORS.incrementAndGet();
    if (n <= 3) {
      System.err.println("mongo binding: " + op + " " + key + " failed: " + e);
    } else if (n % 10_000 == 0) {
      System.err.println("mongo binding: " + n + " operations failed so far");
    }
    return Status.ERROR;
  }

  // ---- the operations, each binding's own part ----

  /** The record (the requested fields, or all when null), or null if absent. */
  abstract Document find(String table, String key, Set<String> fields);

  /** Applies {@code $set} of the values; false if the record is absent. */
  abstract boolean set(String table, String key, Bson update);

  abstract void insert(String table, Document record);

  /** False if the record was absent. */
  abstract boolean remove(String table, String key);

  @Override
  public final Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      Document d = find(table, key, fields);
      if (d == null) {
        return Status.NOT_FOUND;
      }
      copy(d, fields, result);
      return Status.OK;
    } catch (RuntimeException e) {
      return error("read", key, e);
    }
  }

  @Override
  public final Status update(String table, String key, Map<String, ByteIterator> values) {
    try {
      return set(table, key, setAll(values)) ? Status.OK : Status.NOT_FOUND;
    } catch (RuntimeException e) {
      return error("update", key, e);
    }
  }

  @Override
  public final Status insert(String table, String key, Map<String, ByteIterator> values) {
    try {
      insert(table, record(key, values));
      return Status.OK;
    } catch (RuntimeException e) {
      return error("insert", key, e);
    }
  }

  @Override
  public final Status delete(String table, String key) {
    try {
      return remove(table, key) ? Status.OK : Status.NOT_FOUND;
    } catch (RuntimeException e) {
      return error("delete", key, e);
    }
  }

  /** Direct to the server with the sync driver. */
  public static final class Direct extends MongoYcsbDB {
    @Override
    boolean bridged() {
      return false;
    }

    @Override
    Document find(String table, String key, Set<String> fields) {
      FindIterable<Document> it = collection(table).find(eq("_id", key));
      return (fields == null ? it : it.projection(Projections.include(new ArrayList<>(fields)))).first();
    }

    @Override
    boolean set(String table, String key, Bson update) {
      return collection(table).updateOne(eq("_id", key), update).getMatchedCount() > 0;
    }

    @Override
    void insert(String table, Document record) {
      collection(table).insertOne(record);
    }

    @Override
    boolean remove(String table, String key) {
      return collection(table).deleteOne(eq("_id", key)).getDeletedCount() > 0;
    }
  }

  /** Through the Mongo bridge: reads DRAM, flash, then the server; writes the server, then the cache. */
  public static final class Bridge extends MongoYcsbDB {
    @Override
    boolean bridged() {
      return true;
    }

    @Override
    Document find(String table, String key, Set<String> fields) {
      return cached(table).findById(key); // whole documents are cached; read() picks the fields
    }

    @Override
    boolean set(String table, String key, Bson update) {
      return cached(table).updateOne(key, update) != null;
    }

    @Override
    void insert(String table, Document record) {
      cached(table).insertOne(record);
    }

    @Override
    boolean remove(String table, String key) {
      return cached(table).deleteOne(key);
    }
  }
}
