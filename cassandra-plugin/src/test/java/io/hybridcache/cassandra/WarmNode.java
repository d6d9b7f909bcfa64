package io.hybridcache.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import org.apache.cassandra.cache.RowCacheKey;
import org.apache.cassandra.cql3.QueryProcessor;
import org.apache.cassandra.cql3.UntypedResultSet;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.net.MessagingService;
import org.apache.cassandra.service.EmbeddedCassandraService;
import org.apache.cassandra.utils.ByteBufferUtil;

/**
 * One embedded node per test JVM whose row cache starts with {@code start=warm}, in its own storage
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

  /** Starts the node in target/{@code name} (emptied first). */
  static WarmNode start(String name) throws IOException {
    Path base = Path.of(System.getProperty("cassandra.storagedir")).resolveSibling(name);
    wipe(base);
    Files.createDirectories(base);
    Path settings = base.resolve("hybridcache-warm.properties");
    Files.writeString(settings, String.join("\n",
        "directory=" + base.resolve("row-cache-flash"),
        "flash_size=32MiB",
        "segment_size=1MiB",
        "write_buffer_size=256KiB",
        "start=warm",
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
   * start=warm (real partitions of the node's tables; the node's sstables are its durable state).
   */
  HybridRowCache openBeside(String name) {
    CacheConfig config = CacheConfig.builder(base.resolve(name))
        .name(name)
        .dramBytes(4 * CacheConfig.MIB)
        .flashBytes(16 * CacheConfig.MIB)
        .segmentBytes((int) CacheConfig.MIB)
        .writeBufferBytes(256 * 1024)
        .indexType(IndexType.HEAP)
        .build();
    return HybridRowCacheProvider.open(config, new RowCacheCodec(() -> MessagingService.current_version), true);
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
}
