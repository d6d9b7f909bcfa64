package io.hybridcache.cassandra;

import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.cassandra.cache.IRowCacheEntry;
import org.apache.cassandra.cache.RowCacheKey;
import org.apache.cassandra.cql3.QueryProcessor;
import org.apache.cassandra.cql3.UntypedResultSet;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.db.partitions.CachedPartition;
import org.apache.cassandra.net.MessagingService;
import org.apache.cassandra.service.CacheService;
import org.apache.cassandra.service.EmbeddedCassandraService;
import org.apache.cassandra.utils.ByteBufferUtil;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The cost of one flash hit through the row cache provider, single-threaded, average time per call:
 * {@link HybridRowCache#get} of a partition that lives on flash only, and its two halves.
 *
 * <p>Workload: one embedded Cassandra 5.0.9 node in the benchmark's fork (its files under
 * {@code cassandra-plugin/target/jmh-cassandra}, deleted at setup), the provider's flash tier there with
 * O_DIRECT, 256 MiB of 16 MiB segments, and the DRAM tier at its minimum, 1 MiB ({@code nodetool
 * setcachecapacity}: about 700 partitions). A YCSB-like table {@code usertable (y_id text PRIMARY KEY,
 * field0..field9 text)} with {@code entries} (default 20,000) partitions of 10 random 100-byte fields
 * (1,158 bytes serialized with {@code CachedPartition.cacheSerializer}, ~23 MiB in all) is written, then
 * read once through CQL so Cassandra caches every partition; the DRAM tier's are flushed to flash. Each
 * call takes the next key of a random permutation of all keys, so a key comes round again long after
 * DRAM evicted it: every call misses DRAM (after each iteration at least 95% of the gets must be flash
 * hits with one device read each, or the run fails).
 * <ul>
 *   <li>{@code providerGet}: {@code HybridRowCache.get} as Cassandra's read path calls it: key
 *       encoding, the core get (index, one aligned read, CRC32C, promotion into DRAM), the invalidation
 *       record check and the decoding of the {@code CachedBTreePartition}.
 *   <li>{@code coreGet}: the core {@code HybridCache.get} of the encoded key alone.
 *   <li>{@code decode}: {@code RowCacheCodec.value} of bytes already in memory (256 partitions, round
 *       robin): the decoding half alone.
 *   <li>{@code cqlRead}: {@code SELECT * ... WHERE y_id = ?} through {@code QueryProcessor.executeInternal},
 *       the node's whole local read path around the hit (for profiles; not the flash hit alone).
 * </ul>
 *
 * <p>Run (from the repository root; it starts Cassandra: hold the node's ports):
 * <pre>
 * ./mvnw -B -o -q -Pjmh -pl cassandra-plugin -am -DskipTests test-compile
 * java -cp cassandra-plugin/target/test-classes:cassandra-plugin/target/classes:$(cat cassandra-plugin/target/jmh.classpath) \
 *     org.openjdk.jmh.Main FlashHitBenchmark -prof gc
 * </pre>
 * (the fork's Cassandra flags are in {@link Fork}; {@code -prof jfr} profiles it).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+UseG1GC", "-Djdk.attach.allowAttachSelf=true",
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
    "--add-exports=java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED",
    "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED", "--add-exports=java.rmi/sun.rmi.server=ALL-UNNAMED",
    "--add-exports=java.sql/java.sql=ALL-UNNAMED", "--add-exports=java.base/java.lang.ref=ALL-UNNAMED",
    "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED", "--add-opens=java.base/java.lang.module=ALL-UNNAMED",
    "--add-opens=java.base/jdk.internal.loader=ALL-UNNAMED", "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
    "--add-opens=java.base/jdk.internal.reflect=ALL-UNNAMED", "--add-opens=java.base/jdk.internal.math=ALL-UNNAMED",
    "--add-opens=java.base/jdk.internal.module=ALL-UNNAMED", "--add-opens=java.base/jdk.internal.util.jar=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=jdk.management/com.sun.management.internal=ALL-UNNAMED",
    "-Dio.netty.tryReflectionSetAccessible=true", "-Dcassandra.skip_wait_for_gossip_to_settle=0",
    "-Dcassandra.ring_delay_ms=0"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class FlashHitBenchmark {
  private static final String TABLE = "hc.usertable";
  private static final int FIELDS = 10;
  private static final int FIELD_BYTES = 100;
  private static final int DECODED = 256;
  private static final double MIN_FLASH_SHARE = 0.95;

  @Param("20000")
  public int entries;

  private EmbeddedCassandraService cassandra;
  private HybridRowCache rowCache;
  private HybridCache cache;
  private final RowCacheCodec codec = new RowCacheCodec(() -> MessagingService.current_version);
  private RowCacheKey[] keys; // in the order the calls visit them
  private byte[][] rawKeys; // the same, encoded
  private String[] names; // the same, as CQL values
  private byte[][] values; // the first DECODED keys' stored bytes
  private CacheStats last;

  /**
   * A thread's place in the key stream (each thread starts at a random place, then walks in order), and
   * its CPU time per call over each iteration, printed as {@code cpu ns/op}: the average time includes
   * the wait for the device, this is the part a busy node pays in CPU.
   */
  @State(Scope.Thread)
  public static class Cursor {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private int next = -1;
    private long calls;
    private long cpuStart;

    int next(int length) {
      calls++;
      int i = next < 0 || next >= length ? ThreadLocalRandom.current().nextInt(length) : next;
      next = i + 1 == length ? 0 : i + 1;
      return i;
    }

    @Setup(Level.Iteration)
    public void startCpu() {
      calls = 0;
      cpuStart = THREADS.getCurrentThreadCpuTime();
    }

    @TearDown(Level.Iteration)
    public void printCpu() {
      long cpu = THREADS.getCurrentThreadCpuTime() - cpuStart;
      System.out.printf("  [cpu %.0f ns/op over %d calls]", calls == 0 ? 0.0 : (double) cpu / calls, calls);
    }
  }

  @Setup(Level.Trial)
  public void setUp() throws IOException, URISyntaxException {
    Path target = Path.of(FlashHitBenchmark.class.getProtectionDomain().getCodeSource().getLocation().toURI())
        .getParent();
    Path dir = target.resolve("jmh-cassandra");
    deleteTree(dir);
    Files.createDirectories(dir);
    Path props = dir.resolve("hybridcache.properties");
    Files.writeString(props, "directory=" + dir.resolve("row-cache-flash") + "\nflash_size=256MiB\n"
        + "segment_size=16MiB\nadmission=accept-all\ndirect_io=true\nstart=cold\n");
    System.setProperty("cassandra.storagedir", dir.toString());
    System.setProperty("cassandra.config", target.resolve("test-classes/embedded-cassandra.yaml").toUri().toString());
    System.setProperty("hybridcache.config", props.toString());
    System.setProperty("logback.configurationFile", target.resolve("test-classes/logback-test.xml").toString());
    cassandra = new EmbeddedCassandraService();
    cassandra.start();
    rowCache = HybridRowCacheProvider.lastCreated();
    cache = rowCache.hybridCache();
    load();
  }

  private void load() {
    QueryProcessor.executeInternal("CREATE KEYSPACE IF NOT EXISTS hc"
        + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
    StringBuilder columns = new StringBuilder();
    StringBuilder types = new StringBuilder();
    StringBuilder marks = new StringBuilder();
    for (int f = 0; f < FIELDS; f++) {
      columns.append(", field").append(f);
      types.append(", field").append(f).append(" text");
      marks.append(", ?");
    }
    QueryProcessor.executeInternal("CREATE TABLE " + TABLE + " (y_id text PRIMARY KEY" + types
        + ") WITH caching = {'keys': 'ALL', 'rows_per_partition': 'ALL'}");
    String insert = "INSERT INTO " + TABLE + " (y_id" + columns + ") VALUES (?" + marks + ")";
    Random random = new Random(42);
    for (int i = 0; i < entries; i++) {
      Object[] row = new Object[FIELDS + 1];
      row[0] = "user" + i;
      for (int f = 1; f <= FIELDS; f++) {
        row[f] = randomText(random);
      }
      QueryProcessor.executeInternal(insert, row);
    }
    CacheService.instance.setRowCacheCapacityInMB(1);
    ColumnFamilyStore cfs = Keyspace.open("hc").getColumnFamilyStore("usertable");
    int[] order = permutation(entries, random);
    keys = new RowCacheKey[entries];
    rawKeys = new byte[entries][];
    names = new String[entries];
    for (int i = 0; i < entries; i++) {
      names[i] = "user" + order[i];
      keys[i] = new RowCacheKey(cfs.metadata(), cfs.decorateKey(ByteBufferUtil.bytes(names[i])));
      rawKeys[i] = codec.key(keys[i]);
      if (cqlRead(i).isEmpty()) { // caches the partition (Cassandra's read path: sentinel, read, replace)
        throw new IllegalStateException("partition " + names[i] + " not found");
      }
    }
    cache.flush();
    values = new byte[DECODED][];
    for (int i = 0; i < DECODED; i++) {
      values[i] = cache.get(rawKeys[i]);
    }
    CacheStats s = cache.stats();
    if (s.flashEntries() < entries * 0.9) {
      throw new IllegalStateException("expected the partitions on flash, found " + s);
    }
    System.out.printf("%n%d partitions of %d bytes stored, %d on flash, %d in DRAM%n", entries, values[0].length,
        s.flashEntries(), s.dramEntries());
    last = cache.stats();
  }

  private static String randomText(Random random) {
    byte[] b = new byte[FIELD_BYTES];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) ('a' + random.nextInt(26));
    }
    return new String(b, StandardCharsets.US_ASCII);
  }

  private static int[] permutation(int n, Random random) {
    int[] p = new int[n];
    for (int i = 0; i < n; i++) {
      p[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }

  /** Fails the iteration of a flash benchmark unless its gets were flash hits with one device read each. */
  @TearDown(Level.Iteration)
  public void checkIteration(BenchmarkParams params) {
    CacheStats now = cache.stats();
    long gets = now.gets() - last.gets();
    long hits = now.flashHits() - last.flashHits();
    long reads = now.deviceReads() - last.deviceReads();
    last = now;
    boolean flash = !params.getBenchmark().endsWith(".decode");
    if (flash && gets > 0 && (hits < MIN_FLASH_SHARE * gets || reads != hits)) {
      throw new IllegalStateException(String.format("%d of %d gets were flash hits and %d read the device", hits,
          gets, reads));
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (cassandra != null) {
      System.out.println("\n" + cache.stats());
      cassandra.stop();
    }
  }

  private UntypedResultSet cqlRead(int i) {
    return QueryProcessor.executeInternal("SELECT * FROM " + TABLE + " WHERE y_id = ?", names[i]);
  }

  @Benchmark
  public IRowCacheEntry providerGet(Cursor c) {
    IRowCacheEntry e = rowCache.get(keys[c.next(keys.length)]);
    if (!(e instanceof CachedPartition)) {
      throw new IllegalStateException("a cached partition missed: " + e);
    }
    return e;
  }

  @Benchmark
  public byte[] coreGet(Cursor c) {
    byte[] v = cache.get(rawKeys[c.next(rawKeys.length)]);
    if (v == null) {
      throw new IllegalStateException("a cached partition missed");
    }
    return v;
  }

  @Benchmark
  public CachedPartition decode(Cursor c) {
    int i = c.next(DECODED);
    CachedPartition p = codec.value(keys[i], values[i]);
    if (p == null) {
      throw new IllegalStateException("undecodable");
    }
    return p;
  }

  @Benchmark
  public UntypedResultSet cqlRead(Cursor c) {
    UntypedResultSet rs = cqlRead(c.next(names.length));
    if (rs.isEmpty()) {
      throw new IllegalStateException("no row");
    }
    return rs;
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
