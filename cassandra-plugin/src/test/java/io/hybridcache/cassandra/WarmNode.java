package io.hybridcache.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.concurrent.Callable;
import java.util.function.BiPredicate;
import org.apache.cassandra.cache.RowCacheKey;
import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.cql3.QueryProcessor;
import org.apache.cassandra.cql3.UntypedResultSet;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.net.MessagingService;
import org.apache.cassandra.service.EmbeddedCassandraService;
import org.apache.cassandra.utils.ByteBufferUtil;

/**
 * One embedded node per test JVM whose row cache starts with {@code start=warm} (or cold), in its own storage
 * directory beside the other tests' (target/NAME), with its own settings file. Its keyspace has
 * {@code durable_writes = false}: the tests write after the node's drain, when the commit log is shut
 * down, and those writes must still reach the memtable and invalidate the row cache.
 */
final class WarmNode {
  static final String KS = "warm";
  /** Key encoding only. */
  static final RowCacheCodec KEYS = new RowCacheCodec(() -> 0);

  final Path base;
  final HybridRowCache rowCache;

  private WarmNode(Path base, HybridRowCache rowCache) {
    this.base = base;
    this.rowCache = rowCache;
  }

  /** Starts the node in target/{@code name} (emptied first), its row cache with start=warm. */
  static WarmNode start(String name) throws IOException {
    return start(name, "warm");
  }

  /** Starts the node in target/{@code name} (emptied first), its row cache with {@code start} (warm or cold). */
  static WarmNode start(String name, String start) throws IOException {
    Path base = Path.of(System.getProperty("cassandra.storagedir")).resolveSibling(name);
    wipe(base);
    Files.createDirectories(base);
    Path settings = base.resolve("hybridcache-warm.properties");
    Files.writeString(settings, String.join("\n",
        "directory=" + base.resolve("row-cache-flash"),
        "flash_size=32MiB",
        "segment_size=1MiB",
        "write_buffer_size=256KiB",
        "start=" + start,
        "name=" + name, ""));
    System.setProperty("cassandra.storagedir", base.toString());
    System.setProperty(RowCacheSettings.FILE_PROPERTY, settings.toString());
    new EmbeddedCassandraService().start();
    HybridRowCache rowCache = HybridRowCacheProvider.lastCreated();
    assertNotNull(rowCache, "Cassandra made its row cache with our provider");
    QueryProcessor.executeInternal("CREATE KEYSPACE IF NOT EXISTS " + KS
        + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1} AND durable_writes = false");
    return new WarmNode(base, rowCache);
  }

  static void wipe(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (var files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  /**
   * A row cache of its own in {@code base/NAME}, beside the node's, as the provider opens it with
   * start=warm (real partitions of the node's tables; the node's sstables are its durable state). Its
   * sstable fingerprint covers only {@code tables} of keyspace {@value #KS} (all of the keyspace if none),
   * so background flushes of other tables (system_auth, system_distributed, ...) cannot change it.
   */
  HybridRowCache openBeside(String name, String... tables) {
    return openBeside(name, () -> SSTableFingerprint.of(
        DatabaseDescriptor.getNonLocalSystemKeyspacesDataFileLocations(), scope(tables)),
        SSTableFingerprint.DEADLINE);
  }

  /** As {@link #openBeside(String, String...)} with the given fingerprint and its deadline. */
  HybridRowCache openBeside(String name, Callable<String> fingerprint, Duration deadline) {
    CacheConfig config = CacheConfig.builder(base.resolve(name))
        .name(name)
        .dramBytes(4 * CacheConfig.MIB)
        .flashBytes(16 * CacheConfig.MIB)
        .segmentBytes((int) CacheConfig.MIB)
        .writeBufferBytes(256 * 1024)
        .indexType(IndexType.HEAP)
        .build();
    return HybridRowCacheProvider.open(config, new RowCacheCodec(() -> MessagingService.current_version), true,
        true, false, fingerprint, deadline);
  }

  /** The table directories ("table-ID") of {@code tables} in {@value #KS}, or all of it if none. */
  static BiPredicate<String, String> scope(String... tables) {
    return (keyspace, directory) -> keyspace.equals(KS)
        && (tables.length == 0 || Arrays.stream(tables).anyMatch(t -> directory.startsWith(t + "-")));
  }

  /** The flash tier's directory of the node's row cache. */
  Path flashDirectory() {
    return rowCache.hybridCache().config().directory();
  }

  static void table(String name) {
    QueryProcessor.executeInternal("CREATE TABLE IF NOT EXISTS " + KS + "." + name
        + " (k int PRIMARY KEY, v bigint, pad blob) WITH caching = {'keys': 'ALL', 'rows_per_partition': 'ALL'}");
  }

  static void write(String table, int k, long v) {
    QueryProcessor.executeInternal("UPDATE " + KS + "." + table + " SET v = ?, pad = ? WHERE k = ?", v,
        ByteBuffer.wrap(new byte[100]), k);
  }

  static Long read(String table, int k) {
    UntypedResultSet rs = QueryProcessor.executeInternal("SELECT v FROM " + KS + "." + table + " WHERE k = ?", k);
    return rs.isEmpty() ? null : rs.one().getLong("v");
  }

  /** Creates {@code table} with partitions 0..n-1 (value = key) and reads each, so the row cache holds it. */
  static void fill(String table, int n) {
    table(table);
    for (int k = 0; k < n; k++) {
      write(table, k, k);
      assertEquals((long) k, read(table, k));
    }
  }

  static RowCacheKey key(String table, int k) {
    ColumnFamilyStore cfs = Keyspace.open(KS).getColumnFamilyStore(table);
    return new RowCacheKey(cfs.metadata(), cfs.decorateKey(ByteBufferUtil.bytes(k)));
  }

  static void caching(String table, String rows) {
    QueryProcessor.executeInternal("ALTER TABLE " + KS + "." + table
        + " WITH caching = {'keys': 'ALL', 'rows_per_partition': '" + rows + "'}");
  }

  /**
   * Fills {@code table} (20 partitions, each cached by the node's row cache), turns its row caching off,
   * overwrites every partition (Cassandra skips their invalidation: the table does not cache rows), turns
   * caching back on and reads each twice; returns how many reads were not the overwritten value.
   */
  int staleAfterACachingToggle(String table) {
    fill(table, 20);
    for (int k = 0; k < 20; k++) {
      assertTrue(rowCache.containsKey(key(table, k)), "cached: " + k);
    }
    caching(table, "NONE");
    for (int k = 0; k < 20; k++) {
      write(table, k, 2000 + k);
    }
    caching(table, "ALL");
    int stale = 0;
    for (int round = 0; round < 2; round++) { // after caching was turned back on, then cached again
      for (int k = 0; k < 20; k++) {
        stale += Long.valueOf(2000L + k).equals(read(table, k)) ? 0 : 1;
      }
    }
    return stale;
  }
}
