package io.hybridcache.cassandra;

import static io.hybridcache.cassandra.WarmNode.KS;
import static io.hybridcache.cassandra.WarmNode.fill;
import static io.hybridcache.cassandra.WarmNode.key;
import static io.hybridcache.cassandra.WarmNode.read;
import static io.hybridcache.cassandra.WarmNode.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import org.apache.cassandra.cache.RowCacheKey;
import org.apache.cassandra.cql3.QueryProcessor;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.db.SystemKeyspace;
import org.apache.cassandra.db.partitions.CachedPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The two gaps of the clean-drain warm start ({@code start=warm}), on an embedded node:
 * <ol>
 *   <li>a run without this provider between a clean close and the next start (its writes never reached
 *       flash): modelled by a row cache of our own beside the node, closed cleanly, then the node's
 *       writes and flush while it is closed (as a run with {@code row_cache_size: 0} would do and its
 *       drain would flush), then the next open;
 *   <li>writes while a table's {@code caching} does not cache rows (Cassandra skips their invalidation),
 *       within a run (the node's own row cache) and across clean restarts.
 * </ol>
 */
class WarmGapsTest {
  private static WarmNode node;

  @BeforeAll
  static void start() throws Exception {
    node = WarmNode.start("embedded-warm-gaps");
  }

  private static HybridRowCache open(String name) {
    return node.openBeside(name);
  }

  private static void flush(String keyspace, String table) {
    Keyspace.open(keyspace).getColumnFamilyStore(table).forceBlockingFlush(ColumnFamilyStore.FlushReason.UNIT_TESTS);
  }

  private static void caching(String table, String rows) {
    QueryProcessor.executeInternal("ALTER TABLE " + KS + "." + table
        + " WITH caching = {'keys': 'ALL', 'rows_per_partition': '" + rows + "'}");
  }

  /**
   * Fills {@code table} with n partitions, flushes it, and returns a row cache of its own ({@code name})
   * holding them as the node's row cache does.
   */
  private static HybridRowCache filledBeside(String name, String table, int n) {
    fill(table, n);
    flush(KS, table);
    HybridRowCache cache = open(name);
    for (int k = 0; k < n; k++) {
      RowCacheKey key = key(table, k);
      CachedPartition p = (CachedPartition) node.rowCache.get(key);
      assertTrue(p != null, "the node cached partition " + k);
      cache.put(key, p);
    }
    return cache;
  }

  private static long value(CachedPartition p) {
    return p.lastRow().getCell(p.metadata().getColumn(org.apache.cassandra.utils.ByteBufferUtil.bytes("v")))
        .buffer().getLong(0);
  }

  @Test
  void aRunWithoutTheProviderInBetweenMakesTheNextStartCold() {
    HybridRowCache first = filledBeside("between-a", "between", 20);
    first.close();
    assertTrue(Files.exists(first.hybridCache().config().directory().resolve(WarmStartMarker.FILE_NAME)));

    // nothing of the user tables changed; system.local written and flushed (every start does that before
    // the provider is made): still warm
    SystemKeyspace.persistLocalMetadata();
    flush("system", "local");
    HybridRowCache second = open("between-a");
    assertTrue(second.isStartedWarm(), "a clean restart with no user sstable changed stays warm");
    assertEquals(5L, value((CachedPartition) second.get(key("between", 5))));
    second.close();

    // "a run without this provider": writes that never reach this cache, flushed by that run's drain
    for (int k = 0; k < 10; k++) {
      write("between", k, 1000 + k);
    }
    flush(KS, "between");
    HybridRowCache third = open("between-a");
    try {
      for (int k = 0; k < 10; k++) {
        CachedPartition p = (CachedPartition) third.get(key("between", k));
        assertNull(p, "partition " + k + " kept across a run that overwrote it: " + (p == null ? null : value(p)));
      }
      assertFalse(third.isStartedWarm(), "the user sstables changed since the clean close: cold");
      assertEquals(0, third.hybridCache().stats().flashEntries());
    } finally {
      third.close();
    }
  }

  @Test
  void writesWhileATableDoesNotCacheRowsAreNeverServedStaleInTheSameRun() {
    fill("toggled", 20);
    for (int k = 0; k < 20; k++) {
      assertTrue(node.rowCache.containsKey(key("toggled", k)), "cached: " + k);
    }
    caching("toggled", "NONE");
    for (int k = 0; k < 20; k++) {
      write("toggled", k, 2000 + k); // Cassandra does not invalidate: the table does not cache rows now
    }
    caching("toggled", "ALL");
    for (int k = 0; k < 20; k++) {
      assertEquals(2000L + k, read("toggled", k), "partition " + k + " after caching was turned back on");
    }
    for (int k = 0; k < 20; k++) {
      assertEquals(2000L + k, read("toggled", k), "partition " + k + " cached again");
    }
  }

  @Test
  void writesWhileATableDoesNotCacheRowsAreNeverServedStaleAcrossCleanRestarts() {
    HybridRowCache first = filledBeside("across-a", "across", 20);
    first.close(); // run A: caching on, clean close

    caching("across", "NONE"); // run B, without this provider: only the schema changes
    HybridRowCache second = open("across-a"); // run C: warm, the table does not cache rows
    assertTrue(second.isStartedWarm());
    for (int k = 0; k < 20; k++) {
      write("across", k, 3000 + k); // not invalidated: the table does not cache rows
    }
    flush(KS, "across"); // the drain's flush
    second.close();
    caching("across", "ALL"); // run D, without this provider: only the schema changes

    HybridRowCache third = open("across-a"); // run E
    try {
      assertTrue(third.isStartedWarm(), "the sstables are those of run C's close");
      for (int k = 0; k < 20; k++) {
        CachedPartition p = (CachedPartition) third.get(key("across", k));
        assertNull(p, "partition " + k + " stored before the table stopped caching rows was served: "
            + (p == null ? null : value(p)));
      }
    } finally {
      third.close();
    }
    for (int k = 0; k < 20; k++) {
      assertEquals(3000L + k, read("across", k));
    }
  }
}
