package io.hybridcache.bench.compare;

import io.hybridcache.bench.Sizes;
import io.hybridcache.bench.ycsb.BindingErrors;
import io.hybridcache.bench.ycsb.RecordCodec;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.atomic.LongAdder;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * YCSB binding for every {@link StoreType}: the same record encoding, locking and error handling
 * for ours and each peer, so the comparison differs only in the store.
 *
 * <p>Run one store under plain YCSB: {@code java <FACTS.md flags> -cp hybridcache-bench.jar
 * site.ycsb.Client -load -db io.hybridcache.bench.compare.KvStoreDB -P src/workloads/workloadb
 * -p kvstore.type=rocksdb -p kvstore.dir=DIR -s} (load and run in one JVM are what the {@code
 * compare} subcommand does, so DRAM-only stores keep their data between phases).
 *
 * <p>Properties: {@value #TYPE} (one of {@link StoreType#names()}, required), {@value #DIR}
 * (default target/kvstore), {@value #DRAM_BYTES} (default 64MiB), {@value #DISK_BYTES} (default
 * 1GiB), {@value #EXPECTED_ENTRIES} (default recordcount x 1.25), {@value #VALUE_BYTES} (default
 * fieldcount x (fieldlength + 8)). An unknown {@code kvstore.*} key fails init.
 *
 * <p>Records: key = the YCSB key (tables other than usertable prefixed "table:"), value = the
 * fields in {@link RecordCodec} (names inline). read decodes the requested fields; update is a
 * read-modify-write merge under a lock stripe (a missing record gets just the given fields);
 * insert is put; delete is delete; scan is NOT_IMPLEMENTED.
 *
 * <p>Concurrency: YCSB makes one instance per client thread; all share one store, opened by the
 * first init and closed by the last cleanup under {@link #LOCK}. Writes of one key are serialised
 * by a stripe lock; reads take no lock.
 */
public class KvStoreDB extends DB {
  public static final String PREFIX = "kvstore.";
  public static final String TYPE = PREFIX + "type";
  public static final String DIR = PREFIX + "dir";
  public static final String DRAM_BYTES = PREFIX + "dram.bytes";
  public static final String DISK_BYTES = PREFIX + "disk.bytes";
  public static final String EXPECTED_ENTRIES = PREFIX + "expected.entries";
  public static final String VALUE_BYTES = PREFIX + "value.bytes";
  private static final Set<String> KNOWN = Set.of(TYPE, DIR, DRAM_BYTES, DISK_BYTES, EXPECTED_ENTRIES, VALUE_BYTES);
  private static final String DEFAULT_TABLE = "usertable";
  private static final int STRIPES = 1024;

  /** Guards {@link #shared}, {@link #refs} and {@link #openFailure}. */
  private static final Object LOCK = new Object();
  private static KvStore shared;
  private static int refs;
  private static String openFailure;
  private static final Object[] STRIPE_LOCKS = new Object[STRIPES];
  private static final BindingErrors ERRORS = new BindingErrors("kvstore");
  /** Bytes handed to the store's put (key + record), for write amplification: per window, and since the JVM started. */
  private static final LongAdder BYTES_ADMITTED = new LongAdder();
  private static final LongAdder BYTES_ADMITTED_TOTAL = new LongAdder();

  static {
    System.setProperty("chronicle.analytics.disable", "true");
    for (int i = 0; i < STRIPES; i++) {
      STRIPE_LOCKS[i] = new Object();
    }
  }

  /** This instance's reference to the shared store: set in init, cleared in cleanup (owning YCSB thread). */
  private KvStore store;

  @Override
  public void init() throws DBException {
    synchronized (LOCK) {
      if (refs == 0) {
        if (openFailure != null) {
          throw new DBException("cannot open the store (failed in another client thread): " + openFailure);
        }
        StoreType type;
        StoreSettings settings;
        try {
          type = typeFrom(getProperties());
          settings = settingsFrom(getProperties());
        } catch (IllegalArgumentException e) {
          throw new DBException("bad kvstore.* property: " + e.getMessage(), e);
        }
        try {
          shared = type.open(settings);
        } catch (RuntimeException e) {
          openFailure = e.toString();
          throw new DBException("cannot open " + type.cliName() + " with " + settings + ": " + e, e);
        }
        ERRORS.reset();
      }
      refs++;
      store = shared;
    }
  }

  @Override
  public void cleanup() throws DBException {
    synchronized (LOCK) {
      if (store == null) {
        return;
      }
      store = null;
      if (--refs > 0) {
        return;
      }
      KvStore s = shared;
      shared = null;
      try {
        s.close();
      } catch (Exception e) {
        throw new DBException("closing the store failed: " + e, e);
      }
    }
  }

  /** The shared store while any instance is initialised (the harness prints its description). */
  static KvStore sharedStore() {
    synchronized (LOCK) {
      return shared;
    }
  }

  /**
   * Key and record bytes handed to the store's put since the last call (the denominator of write
   * amplification: device bytes written per byte admitted).
   */
  static long bytesAdmittedThenReset() {
    return BYTES_ADMITTED.sumThenReset();
  }

  /** Key and record bytes handed to the store's put since this JVM started. */
  static long bytesAdmittedTotal() {
    return BYTES_ADMITTED_TOTAL.sum();
  }

  private void put(String k, byte[] record) {
    store.put(k, record);
    int bytes = k.length() + record.length; // YCSB keys are ASCII; an update puts the whole merged record
    BYTES_ADMITTED.add(bytes);
    BYTES_ADMITTED_TOTAL.add(bytes);
  }

  /** The store {@value #TYPE} names. */
  public static StoreType typeFrom(Properties p) {
    for (String k : p.stringPropertyNames()) {
      if (k.startsWith(PREFIX) && !KNOWN.contains(k)) {
        throw new IllegalArgumentException("unknown property " + k + " (known: " + KNOWN + ")");
      }
    }
    String t = p.getProperty(TYPE);
    if (t == null || t.isBlank()) {
      throw new IllegalArgumentException(TYPE + " is required (one of " + StoreType.names() + ")");
    }
    return StoreType.parse(t);
  }

  /** The settings the {@code kvstore.*} properties (and YCSB's record properties) describe. */
  public static StoreSettings settingsFrom(Properties p) {
    long records = parseLong("recordcount", p.getProperty("recordcount", "1000"));
    int fields = (int) parseLong("fieldcount", p.getProperty("fieldcount", "10"));
    int fieldLength = (int) parseLong("fieldlength", p.getProperty("fieldlength", "100"));
    String v;
    long expected = (v = p.getProperty(EXPECTED_ENTRIES)) != null ? parseLong(EXPECTED_ENTRIES, v) : records + records / 4;
    int valueBytes = (v = p.getProperty(VALUE_BYTES)) != null
        ? (int) parseLong(VALUE_BYTES, v) : fields * (fieldLength + 8);
    return new StoreSettings(Path.of(p.getProperty(DIR, "target/kvstore")),
        size(p, DRAM_BYTES, "64MiB"), size(p, DISK_BYTES, "1GiB"), expected, valueBytes);
  }

  private static long size(Properties p, String key, String dflt) {
    try {
      return Sizes.parse(p.getProperty(key, dflt));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(key + ": " + e.getMessage(), e);
    }
  }

  private static long parseLong(String key, String v) {
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be an integer, was " + v, e);
    }
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      byte[] record = store.get(key(table, key));
      if (record == null) {
        return Status.NOT_FOUND;
      }
      for (Map.Entry<String, byte[]> e : RecordCodec.decode(record, fields).entrySet()) {
        result.put(e.getKey(), new ByteArrayByteIterator(e.getValue()));
      }
      return Status.OK;
    } catch (RuntimeException e) {
      return ERRORS.report("read", key, e);
    }
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                     Vector<HashMap<String, ByteIterator>> result) {
    return Status.NOT_IMPLEMENTED;
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    try {
      String k = key(table, key);
      Map<String, byte[]> updates = BindingErrors.toBytes(values);
      synchronized (stripe(k)) {
        put(k, RecordCodec.merge(store.get(k), updates));
      }
      return Status.OK;
    } catch (RuntimeException e) {
      return ERRORS.report("update", key, e);
    }
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    try {
      String k = key(table, key);
      byte[] record = RecordCodec.encode(BindingErrors.toBytes(values));
      synchronized (stripe(k)) {
        put(k, record);
      }
      return Status.OK;
    } catch (RuntimeException e) {
      return ERRORS.report("insert", key, e);
    }
  }

  @Override
  public Status delete(String table, String key) {
    try {
      String k = key(table, key);
      boolean removed;
      synchronized (stripe(k)) {
        removed = store.delete(k);
      }
      return removed ? Status.OK : Status.NOT_FOUND;
    } catch (RuntimeException e) {
      return ERRORS.report("delete", key, e);
    }
  }

  static String key(String table, String key) {
    return table == null || table.equals(DEFAULT_TABLE) ? key : table + ":" + key;
  }

  private static Object stripe(String key) {
    return STRIPE_LOCKS[(key.hashCode() & 0x7fffffff) % STRIPES];
  }

}
