package io.hybridcache.bench.ycsb;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.Sizes;
import io.hybridcache.bench.StatsJson;
import io.hybridcache.core.api.AdmissionPolicies;
import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.api.LifetimeClass;
import io.hybridcache.core.api.MapperKind;
import io.hybridcache.core.api.VictimPolicy;
import io.hybridcache.core.catalog.CatalogConfig;
import io.hybridcache.core.catalog.SchemaCatalog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.function.Function;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.Client;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.Workload;
import site.ycsb.WorkloadException;

/**
 * YCSB binding for {@link HybridCache}: runs YCSB core workloads against the cache on local files.
 *
 * <p>Run (the {@code ycsb} subcommand of {@link io.hybridcache.bench.BenchMain} does this, load then
 * run in two JVMs): {@code java <FACTS.md flags> -cp hybridcache-bench.jar site.ycsb.Client -load
 * -db io.hybridcache.bench.ycsb.HybridCacheDB -P src/workloads/workloadb -p hybridcache.dir=DIR -s}.
 *
 * <p>Properties (all optional; sizes accept 4096, 512k, 16MiB, 1g): {@value #DIR} (default
 * target/ycsb-data/cache), {@value #DRAM_BYTES}, {@value #FLASH_BYTES}, {@value #SEGMENT_BYTES},
 * {@value #WRITE_BUFFER_BYTES}, {@value #DIRECT_IO} (true|false), {@value #INDEX} (heap|chronicle),
 * {@value #EXPECTED_ENTRIES}, {@value #JMX} (true|false), {@value #STATS_FILE} (where the last
 * cleanup writes the cache's {@link CacheStats} as JSON), {@value #CODEC} (raw|catalog, default raw),
 * {@value #WRITE_TRACE} (device write trace file, appended), {@value #TRIM_RECLAIMED} (true|false),
 * {@value #VICTIM_POLICY} (greedy|cost-benefit|fifo), {@value #WRITE_BUFFERS} (write buffers per
 * lifetime class, 2..64), {@value #WRITE_BUFFERS_TOTAL} (of all classes, 2..4096; default derived from the
 * DRAM tier), {@value #CASCADE_WAIT_MS} (how long a dirty eviction waits for flash room, 0..10000;
 * default the library's, 50), {@value #REINSERTION_BUDGET} (bytes reclaim may reinsert per byte admitted;
 * Infinity for no budget), {@value #SMALL_OBJECT_SHARE}, {@value #SMALL_OBJECT_MAX_BYTES} and
 * {@value #SMALL_OBJECT_LOG_SHARE} (the small-object engine, off by default),
 * {@value #PRELOAD} (true|false: the run loads the records first, in the same JVM) and {@value #PRELOAD_STATS_FILE},
 * {@value #STREAM_MAPPER} (single|static|dsm|filestream), {@value #STREAMS}, {@value #PLACEMENT_EPOCH},
 * {@value #TABLE_CLASSES} (comma-separated table names: the i-th table's records go to flash in the
 * lifetime class {@code LifetimeClass.named(16 + i, table)}, other tables in FRESH). Unset sizes take the {@link CacheConfig}
 * defaults; an unknown {@code hybridcache.*} key fails init, so typos do not go unnoticed.
 *
 * <p>Records: each YCSB record is one cache entry, key = the YCSB key as UTF-8 (prefixed by
 * "table:" for tables other than usertable), value = its fields in the {@link RecordFormat} of
 * {@value #CODEC}: {@code raw} = {@link RecordCodec} (names inline), {@code catalog} = a schema id from
 * the schema catalogue in {@code <dir>/catalog} plus the values (opened and closed with the cache). read
 * returns the requested fields; update is a read-modify-write merge (a missing record gets just
 * the given fields); insert is put; delete is remove; scan is NOT_IMPLEMENTED (no ordered keys).
 *
 * <p>Concurrency: YCSB creates one DB per client thread and calls init and cleanup on that
 * thread. All instances in a JVM share one cache, reference-counted under {@link #LOCK}: the
 * first init opens it, the last cleanup closes it (a clean close, so the next JVM opens warm). If
 * every instance of a short run finishes before the last one starts, the cache is closed and
 * reopened in between: correct, but the stats file then covers only the last open. update, insert
 * and delete of one key are serialized by a lock stripe so concurrent read-modify-writes of
 * different fields do not lose each other; reads take no lock. A shutdown hook closes the cache
 * if YCSB exits without calling cleanup (it does on a workload exception).
 */
public class HybridCacheDB extends DB {
  public static final String PREFIX = "hybridcache.";
  public static final String DIR = PREFIX + "dir";
  public static final String DRAM_BYTES = PREFIX + "dram.bytes";
  public static final String FLASH_BYTES = PREFIX + "flash.bytes";
  public static final String SEGMENT_BYTES = PREFIX + "segment.bytes";
  public static final String WRITE_BUFFER_BYTES = PREFIX + "write.buffer.bytes";
  public static final String DIRECT_IO = PREFIX + "direct.io";
  public static final String INDEX = PREFIX + "index";
  public static final String EXPECTED_ENTRIES = PREFIX + "expected.entries";
  public static final String JMX = PREFIX + "jmx";
  public static final String STATS_FILE = PREFIX + "stats.file";
  public static final String WRITE_BUFFERS = PREFIX + "write.buffers";
  /** Write buffers of all classes together ({@code CacheConfig.writeBuffersTotal}; default: derived). */
  public static final String WRITE_BUFFERS_TOTAL = PREFIX + "write.buffers.total";
  public static final String CASCADE_WAIT_MS = PREFIX + "cascade.wait.ms";
  public static final String ADMISSION = PREFIX + "admission";
  /** raw (names inline, {@link RecordCodec}) or catalog (schema catalogue, {@link RecordFormat#catalog}). */
  public static final String CODEC = PREFIX + "codec";
  public static final String WRITE_TRACE = PREFIX + "write.trace";
  public static final String TRIM_RECLAIMED = PREFIX + "trim.reclaimed";
  public static final String STREAM_MAPPER = PREFIX + "stream.mapper";
  public static final String STREAMS = PREFIX + "streams";
  public static final String PLACEMENT_EPOCH = PREFIX + "placement.epoch.bytes";
  public static final String TABLE_CLASSES = PREFIX + "table.classes";
  public static final String VICTIM_POLICY = PREFIX + "victim.policy";
  public static final String REINSERTION_BUDGET = PREFIX + "reinsertion.budget";
  /** Share of the flash budget for the small-object engine (issue 27; default 0: off). */
  public static final String SMALL_OBJECT_SHARE = PREFIX + "small.object.share";
  /** Entries whose key + value fit go to the small-object engine (default 2048). */
  public static final String SMALL_OBJECT_MAX_BYTES = PREFIX + "small.object.max.bytes";
  /** Share of the small-object engine's flash that is its log (default 0.25). */
  public static final String SMALL_OBJECT_LOG_SHARE = PREFIX + "small.object.log.share";
  /**
   * true: the first init of the run loads {@code recordcount} records itself (the workload's own inserts, on
   * that thread) before any operation, so the run sees a loaded cache without a close and reopen. It prints {@code [PRELOAD], RunTime(ms), ...} on stdout:
   * YCSB's [OVERALL] RunTime includes it (the client threads wait for the first init).
   */
  public static final String PRELOAD = PREFIX + "preload";
  /** Where the preload writes the cache's stats as it ends (JSON, as {@value #STATS_FILE}). */
  public static final String PRELOAD_STATS_FILE = PREFIX + "preload.stats.file";
  /** The section of the preload's lines on stdout. */
  public static final String PRELOAD_SECTION = "PRELOAD";
  private static final Set<String> KNOWN = Set.of(DIR, DRAM_BYTES, FLASH_BYTES, SEGMENT_BYTES,
      WRITE_BUFFER_BYTES, DIRECT_IO, INDEX, EXPECTED_ENTRIES, JMX, STATS_FILE, WRITE_BUFFERS, WRITE_BUFFERS_TOTAL,
      CASCADE_WAIT_MS, ADMISSION, CODEC, WRITE_TRACE, TRIM_RECLAIMED, STREAM_MAPPER, STREAMS, PLACEMENT_EPOCH, TABLE_CLASSES,
      VICTIM_POLICY, REINSERTION_BUDGET, SMALL_OBJECT_SHARE, SMALL_OBJECT_MAX_BYTES, SMALL_OBJECT_LOG_SHARE,
      PRELOAD, PRELOAD_STATS_FILE);
  private static final String DEFAULT_TABLE = "usertable";
  private static final int STRIPES = 1024;

  /** Guards {@link #shared}, {@link #refs}, {@link #statsFile}, {@link #hookInstalled}, {@link #openFailure}. */
  private static final Object LOCK = new Object();
  private static HybridCache shared;
  private static int refs;
  private static Path statsFile;
  private static SchemaCatalog sharedCatalog;
  /** How records become values in this JVM's shared cache; set with it. */
  private static volatile RecordFormat format = RecordFormat.RAW;
  /** Lifetime class of each table named in {@value #TABLE_CLASSES}; set with the shared cache. */
  private static volatile Map<String, LifetimeClass> tableClasses = Map.of();
  private static boolean hookInstalled;
  /** Why the open failed in this JVM, or null; later inits fail fast with it. */
  private static String openFailure;
  /** How the shared cache is opened; tests swap in an in-memory cache. */
  static volatile Function<CacheConfig, HybridCache> opener = HybridCache::open;

  private static final Object[] STRIPE_LOCKS = new Object[STRIPES];
  private static final BindingErrors ERRORS = new BindingErrors("hybridcache");

  static {
    // The library is meant to set this too; set it before any Chronicle class loads (FACTS.md).
    System.setProperty("chronicle.analytics.disable", "true");
    for (int i = 0; i < STRIPES; i++) {
      STRIPE_LOCKS[i] = new Object();
    }
  }

  /** This instance's reference to the shared cache: set in init, cleared in cleanup (owning YCSB thread). */
  private HybridCache cache;

  @Override
  public void init() throws DBException {
    synchronized (LOCK) {
      if (refs == 0) {
        CacheConfig config;
        try {
          config = configFrom(getProperties());
        } catch (IllegalArgumentException e) {
          throw new DBException("bad hybridcache.* property: " + e.getMessage(), e);
        }
        if (openFailure != null) {
          // Another client thread already failed to open it: say so briefly instead of retrying.
          throw new DBException("cannot open the cache (failed in another client thread): " + openFailure);
        }
        String codec = RecordFormat.parse(CODEC, getProperties().getProperty(CODEC, "raw")); // checked by configFrom
        try {
          shared = opener.apply(config);
        } catch (RuntimeException e) {
          openFailure = e.toString();
          throw new DBException("cannot open the cache " + config + ": " + e, e);
        }
        if (codec.equals("catalog")) {
          try {
            sharedCatalog = SchemaCatalog.open(CatalogConfig.builder(
                config.directory().resolve(SchemaCatalog.SUBDIRECTORY)).directIo(config.directIo()).build());
          } catch (RuntimeException e) {
            openFailure = e.toString();
            shared.close();
            shared = null;
            throw new DBException("cannot open the schema catalogue: " + e, e);
          }
          format = RecordFormat.catalog(sharedCatalog);
        } else {
          format = RecordFormat.RAW;
        }
        tableClasses = tableClasses(getProperties());
        String sf = getProperties().getProperty(STATS_FILE);
        statsFile = sf == null || sf.isBlank() ? null : Path.of(sf);
        ERRORS.reset();
        if (!hookInstalled) {
          Runtime.getRuntime().addShutdownHook(new Thread(HybridCacheDB::closeOnExit, "hybridcache-ycsb-exit"));
          hookInstalled = true;
        }
        if (parseBoolean(PRELOAD, getProperties().getProperty(PRELOAD, "false"))) {
          try {
            preload(getProperties());
          } catch (DBException | RuntimeException e) {
            openFailure = "preload failed: " + e;
            shared.close();
            shared = null;
            throw e instanceof DBException d ? d : new DBException("preload failed: " + e, e);
          }
        }
      }
      refs++;
      cache = shared;
    }
  }

  @Override
  public void cleanup() throws DBException {
    synchronized (LOCK) {
      if (cache == null) {
        return;
      }
      cache = null;
      if (--refs > 0) {
        return;
      }
      HybridCache c = shared;
      shared = null;
      try {
        closeAndReport(c, statsFile);
      } catch (Exception e) {
        throw new DBException("closing the cache failed: " + e, e);
      }
    }
  }

  /**
   * Closes {@code c} (and the catalogue, if open) and writes its stats to {@code file} (if not null);
   * caller holds LOCK.
   */
  private static void closeAndReport(HybridCache c, Path file) throws Exception {
    SchemaCatalog catalog = sharedCatalog;
    sharedCatalog = null;
    StatsJson.Closed closed = StatsJson.close(c, () -> {
      try {
        c.close();
      } finally {
        if (catalog != null) {
          catalog.close();
        }
      }
    });
    CacheStats stats = closed.stats();
    String snapshot = closed.snapshot();
    if (file != null) {
      ObjectNode extra = StatsJson.MAPPER.createObjectNode();
      extra.put("snapshot", snapshot);
      extra.put("binding_errors", ERRORS.count());
      extra.put("codec", format.toString());
      extra.set("placement", StatsJson.MAPPER.valueToTree(c.placement()));
      if (catalog != null) {
        extra.put("catalog_schemas", catalog.stats().schemas());
        extra.put("catalog_fallbacks", catalog.stats().fallbacks());
      }
      StatsJson.write(file, stats, extra);
    }
  }

  private static void closeOnExit() {
    synchronized (LOCK) {
      if (shared != null) {
        System.err.println("hybridcache: YCSB exited with " + refs + " DB instance(s) not cleaned up; closing the cache");
        try {
          closeAndReport(shared, statsFile);
        } catch (Exception e) {
          System.err.println("hybridcache: close at exit failed: " + e);
        }
        shared = null;
        refs = 0;
      }
    }
  }

  /**
   * Inserts {@code recordcount} records into the shared cache through the workload's own {@code doInsert}
   * (the keys and values the load phase would write), on this thread; prints the [PRELOAD] lines and
   * writes the stats to {@value #PRELOAD_STATS_FILE}. Caller holds LOCK with the shared cache open.
   */
  private static void preload(Properties p) throws DBException {
    long n = Long.parseLong(p.getProperty(Client.RECORD_COUNT_PROPERTY, Client.DEFAULT_RECORD_COUNT).trim());
    HybridCacheDB db = new HybridCacheDB();
    db.setProperties(p);
    db.cache = shared;
    long failed = 0;
    long t0 = System.nanoTime();
    try {
      Workload w = (Workload) Class.forName(p.getProperty(Client.WORKLOAD_PROPERTY))
          .getDeclaredConstructor().newInstance();
      w.init(p);
      Object state = w.initThread(p, 0, 1);
      for (long i = 0; i < n; i++) {
        if (!w.doInsert(db, state)) {
          failed++;
        }
      }
      w.cleanup();
    } catch (ReflectiveOperationException | WorkloadException e) {
      throw new DBException("preload: cannot run the workload's inserts: " + e, e);
    }
    double ms = (System.nanoTime() - t0) / 1e6;
    System.out.printf(Locale.ROOT, "[%s], RunTime(ms), %.0f%n[%s], Throughput(ops/sec), %.1f%n[%s], Records, %d%n[%s], Failed, %d%n",
        PRELOAD_SECTION, ms, PRELOAD_SECTION, n * 1000.0 / Math.max(ms, 1e-3), PRELOAD_SECTION, n, PRELOAD_SECTION, failed);
    System.out.flush();
    String f = p.getProperty(PRELOAD_STATS_FILE);
    if (f != null && !f.isBlank()) {
      try {
        StatsJson.write(Path.of(f.trim()), shared.stats(), null);
      } catch (java.io.IOException e) {
        throw new DBException("preload: cannot write " + f + ": " + e, e);
      }
    }
  }

  /** Forgets a failed open (tests run several scenarios in one JVM). */
  static void resetForTests() {
    synchronized (LOCK) {
      openFailure = null;
    }
  }

  /** The cache configuration the {@code hybridcache.*} properties describe. */
  public static CacheConfig configFrom(Properties p) {
    for (String k : p.stringPropertyNames()) {
      if (k.startsWith(PREFIX) && !KNOWN.contains(k)) {
        throw new IllegalArgumentException("unknown property " + k + " (known: " + KNOWN + ")");
      }
    }
    if (p.getProperty(CODEC) != null) {
      RecordFormat.parse(CODEC, p.getProperty(CODEC));
    }
    CacheConfig.Builder b = CacheConfig.builder(Path.of(p.getProperty(DIR, "target/ycsb-data/cache")))
        .name("ycsb");
    String v;
    if ((v = p.getProperty(DRAM_BYTES)) != null) {
      b.dramBytes(Sizes.parse(v));
    }
    if ((v = p.getProperty(FLASH_BYTES)) != null) {
      b.flashBytes(Sizes.parse(v));
    }
    if ((v = p.getProperty(SEGMENT_BYTES)) != null) {
      b.segmentBytes(toInt(SEGMENT_BYTES, Sizes.parse(v)));
    }
    if ((v = p.getProperty(WRITE_BUFFER_BYTES)) != null) {
      b.writeBufferBytes(toInt(WRITE_BUFFER_BYTES, Sizes.parse(v)));
    }
    if ((v = p.getProperty(DIRECT_IO)) != null) {
      b.directIo(parseBoolean(DIRECT_IO, v));
    }
    if ((v = p.getProperty(INDEX)) != null) {
      b.indexType(parseIndex(v));
    }
    if ((v = p.getProperty(EXPECTED_ENTRIES)) != null) {
      b.expectedEntries(Long.parseLong(v.trim()));
    }
    if ((v = p.getProperty(JMX)) != null) {
      b.jmx(parseBoolean(JMX, v));
    }
    if ((v = p.getProperty(WRITE_BUFFERS)) != null) {
      b.writeBuffers(toInt(WRITE_BUFFERS, Long.parseLong(v.trim())));
    }
    if ((v = p.getProperty(WRITE_BUFFERS_TOTAL)) != null) {
      b.writeBuffersTotal(toInt(WRITE_BUFFERS_TOTAL, Long.parseLong(v.trim())));
    }
    if ((v = p.getProperty(CASCADE_WAIT_MS)) != null) {
      b.cascadeWait(Duration.ofMillis(Long.parseLong(v.trim())));
    }
    if ((v = p.getProperty(ADMISSION)) != null) {
      b.admission(io.hybridcache.core.api.AdmissionPolicies.parse(ADMISSION, v));
    }
    if ((v = p.getProperty(WRITE_TRACE)) != null && !v.isBlank()) {
      b.writeTrace(Path.of(v.trim()));
    }
    if ((v = p.getProperty(TRIM_RECLAIMED)) != null) {
      b.trimReclaimed(parseBoolean(TRIM_RECLAIMED, v));
    }
    if ((v = p.getProperty(STREAM_MAPPER)) != null) {
      b.streamMapper(MapperKind.parse(STREAM_MAPPER, v));
    }
    if ((v = p.getProperty(STREAMS)) != null) {
      b.streams(toInt(STREAMS, Long.parseLong(v.trim())));
    }
    if ((v = p.getProperty(PLACEMENT_EPOCH)) != null) {
      b.placementEpochBytes(Sizes.parse(v));
    }
    if ((v = p.getProperty(VICTIM_POLICY)) != null) {
      b.victimPolicy(io.hybridcache.core.api.VictimPolicy.parse(VICTIM_POLICY, v));
    }
    if ((v = p.getProperty(REINSERTION_BUDGET)) != null) {
      b.reinsertionBudget(parseDouble(REINSERTION_BUDGET, v));
    }
    if ((v = p.getProperty(SMALL_OBJECT_SHARE)) != null) {
      b.smallObjectShare(parseDouble(SMALL_OBJECT_SHARE, v));
    }
    if ((v = p.getProperty(SMALL_OBJECT_MAX_BYTES)) != null) {
      b.smallObjectMaxBytes(toInt(SMALL_OBJECT_MAX_BYTES, Sizes.parse(v)));
    }
    if ((v = p.getProperty(SMALL_OBJECT_LOG_SHARE)) != null) {
      b.smallObjectLogShare(parseDouble(SMALL_OBJECT_LOG_SHARE, v));
    }
    tableClasses(p); // fail on a bad list here too
    return b.build();
  }

  /** The lifetime class of each table listed in {@value #TABLE_CLASSES} (ids 16, 17, ... in list order). */
  static Map<String, LifetimeClass> tableClasses(Properties p) {
    String v = p.getProperty(TABLE_CLASSES);
    if (v == null || v.isBlank()) {
      return Map.of();
    }
    Map<String, LifetimeClass> m = new LinkedHashMap<>();
    for (String table : v.split(",")) {
      String t = table.trim();
      if (t.isEmpty() || m.containsKey(t)) {
        throw new IllegalArgumentException(TABLE_CLASSES + " must list distinct non-empty table names, was " + v);
      }
      m.put(t, LifetimeClass.named(LifetimeClass.FIRST_CALLER_ID + m.size(), t));
    }
    return Map.copyOf(m);
  }

  private static LifetimeClass classOf(String table) {
    LifetimeClass c = tableClasses.get(table == null ? DEFAULT_TABLE : table);
    return c == null ? LifetimeClass.FRESH : c;
  }

  /** heap or chronicle (case-insensitive). */
  public static IndexType parseIndex(String v) {
    try {
      return IndexType.valueOf(v.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(INDEX + " must be heap or chronicle, was " + v, e);
    }
  }

  private static boolean parseBoolean(String key, String v) {
    return switch (v.trim().toLowerCase(Locale.ROOT)) {
      case "true", "yes", "1" -> true;
      case "false", "no", "0" -> false;
      default -> throw new IllegalArgumentException(key + " must be true or false, was " + v);
    };
  }

  private static double parseDouble(String key, String v) {
    try {
      return Double.parseDouble(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be a number, was " + v, e);
    }
  }

  private static int toInt(String key, long v) {
    if (v > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(key + " too large, was " + v);
    }
    return (int) v;
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      byte[] record = cache.get(key(table, key));
      if (record == null) {
        return Status.NOT_FOUND;
      }
      for (Map.Entry<String, byte[]> e : format.decode(table, record, fields).entrySet()) {
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
      byte[] k = key(table, key);
      Map<String, byte[]> updates = BindingErrors.toBytes(values);
      synchronized (stripe(k)) {
        cache.put(k, format.merge(table, cache.get(k), updates), classOf(table));
      }
      return Status.OK;
    } catch (RuntimeException e) {
      return ERRORS.report("update", key, e);
    }
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    try {
      byte[] k = key(table, key);
      byte[] record = format.encode(table, BindingErrors.toBytes(values));
      synchronized (stripe(k)) {
        cache.put(k, record, classOf(table));
      }
      return Status.OK;
    } catch (RuntimeException e) {
      return ERRORS.report("insert", key, e);
    }
  }

  @Override
  public Status delete(String table, String key) {
    try {
      byte[] k = key(table, key);
      boolean removed;
      synchronized (stripe(k)) {
        removed = cache.remove(k);
      }
      return removed ? Status.OK : Status.NOT_FOUND;
    } catch (RuntimeException e) {
      return ERRORS.report("delete", key, e);
    }
  }

  static byte[] key(String table, String key) {
    String k = table == null || table.equals(DEFAULT_TABLE) ? key : table + ":" + key;
    return k.getBytes(StandardCharsets.UTF_8);
  }

  private static Object stripe(byte[] key) {
    return STRIPE_LOCKS[(java.util.Arrays.hashCode(key) & 0x7fffffff) % STRIPES];
  }


}
