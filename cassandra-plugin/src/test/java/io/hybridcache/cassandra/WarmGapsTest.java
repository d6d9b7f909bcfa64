package io.hybridcache.cassandra;

import static io.hybridcache.cassandra.WarmNode.KS;
import static io.hybridcache.cassandra.WarmNode.fill;
import static io.hybridcache.cassandra.WarmNode.key;
import static io.hybridcache.cassandra.WarmNode.read;
import static io.hybridcache.cassandra.WarmNode.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.cassandra.db.lifecycle.LifecycleTransaction;
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

  /** A row cache beside the node whose fingerprint covers {@code tables} only (see {@link WarmNode#openBeside}). */
  private static HybridRowCache open(String name, String... tables) {
    return node.openBeside(name, tables);
  }

  private static void flush(String keyspace, String table) {
    Keyspace.open(keyspace).getColumnFamilyStore(table).forceBlockingFlush(ColumnFamilyStore.FlushReason.UNIT_TESTS);
  }

  private static void caching(String table, String rows) {
    WarmNode.caching(table, rows);
  }

  /**
   * Fills {@code table} with n partitions, flushes it, and returns a row cache of its own ({@code name})
   * holding them as the node's row cache does.
   */
  private static HybridRowCache filledBeside(String name, String table, int n) {
    fill(table, n);
    flush(KS, table);
    HybridRowCache cache = open(name, table);
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
    HybridRowCache second = open("between-a", "between");
    assertTrue(second.isStartedWarm(), "a clean restart with no user sstable changed stays warm");
    assertEquals(5L, value((CachedPartition) second.get(key("between", 5))));
    second.close();

    // "a run without this provider": writes that never reach this cache, flushed by that run's drain
    for (int k = 0; k < 10; k++) {
      write("between", k, 1000 + k);
    }
    flush(KS, "between");
    HybridRowCache third = open("between-a", "between");
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
    assertEquals(0, node.staleAfterACachingToggle("toggled"),
        "partitions served as they were before the writes made while caching was off");
  }

  @Test
  void writesWhileATableDoesNotCacheRowsAreNeverServedStaleAcrossCleanRestarts() {
    HybridRowCache first = filledBeside("across-a", "across", 20);
    first.close(); // run A: caching on, clean close

    caching("across", "NONE"); // run B, without this provider: only the schema changes
    HybridRowCache second = open("across-a", "across"); // run C: warm, the table does not cache rows
    assertTrue(second.isStartedWarm());
    for (int k = 0; k < 20; k++) {
      write("across", k, 3000 + k); // not invalidated: the table does not cache rows
    }
    flush(KS, "across"); // the drain's flush
    second.close();
    caching("across", "ALL"); // run D, without this provider: only the schema changes

    HybridRowCache third = open("across-a", "across"); // run E
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

  private static void execute(String cql) {
    QueryProcessor.executeInternal(cql);
  }

  /** The directory of {@code table}'s live sstables (one data directory in these tests). */
  private static Path tableDirectory(String table) {
    ColumnFamilyStore cfs = Keyspace.open(KS).getColumnFamilyStore(table);
    return Path.of(cfs.getDirectories().getDirectoryForNewSSTables().absolutePath());
  }

  /** The sstable file-name prefixes ("nb-1-big-") of {@code table}'s live Data.db files. */
  private static Set<String> generations(String table) throws IOException {
    Set<String> out = new HashSet<>();
    try (var files = Files.list(tableDirectory(table))) {
      for (Path p : files.toList()) {
        String n = p.getFileName().toString();
        if (n.endsWith("-Data.db")) {
          out.add(n.substring(0, n.length() - "Data.db".length()));
        }
      }
    }
    return out;
  }

  /**
   * Sequence-based sstable generations are reused (the generator restarts from the highest live
   * generation at the next start, so after a TRUNCATE a new run numbers from 1 again; restored backups
   * reuse names too): the fingerprint must see that the files are not those of the clean close.
   */
  @Test
  void reusedSStableNamesWithOtherContentsMakeTheNextStartCold() throws IOException {
    HybridRowCache first = filledBeside("reused-a", "reused", 20);
    Set<String> before = generations("reused");
    assertEquals(1, before.size(), "one sstable: " + before);
    String old = before.iterator().next();
    first.close();

    execute("TRUNCATE " + KS + ".reused");
    LifecycleTransaction.waitForDeletions();
    for (int k = 0; k < 20; k++) {
      write("reused", k, 5000 + k);
    }
    flush(KS, "reused");
    Set<String> after = generations("reused");
    assertEquals(1, after.size(), "one sstable: " + after);
    String fresh = after.iterator().next();
    assertFalse(Files.exists(tableDirectory("reused").resolve(old + "Data.db")), "the TRUNCATE deleted " + old);
    // the restarted generator: the new sstable's components under the old generation's names
    List<Path> components = new ArrayList<>();
    try (var files = Files.list(tableDirectory("reused"))) {
      files.filter(p -> p.getFileName().toString().startsWith(fresh)).forEach(components::add);
    }
    for (Path p : components) {
      Files.move(p, p.resolveSibling(old + p.getFileName().toString().substring(fresh.length())),
          StandardCopyOption.REPLACE_EXISTING);
    }
    assertEquals(before, generations("reused"), "the same sstable names as at the clean close");

    HybridRowCache second = open("reused-a", "reused");
    try {
      int stale = 0;
      for (int k = 0; k < 20; k++) {
        CachedPartition p = (CachedPartition) second.get(key("reused", k));
        stale += p != null && value(p) != 5000L + k ? 1 : 0;
      }
      assertEquals(0, stale, "stale partitions served after the sstables were replaced under the same names");
      assertFalse(second.isStartedWarm(), "the sstables' files are not those of the clean close: cold");
    } finally {
      second.close();
    }
  }

  @Test
  void aTruncateBeforeACleanCloseIsAMissAfterTheWarmRestart() {
    HybridRowCache first = filledBeside("truncated-a", "truncated", 20);
    execute("TRUNCATE " + KS + ".truncated"); // heard by first's hooks: a table floor
    first.close();
    HybridRowCache second = open("truncated-a", "truncated");
    try {
      assertTrue(second.isStartedWarm(), "a TRUNCATE before a clean close keeps the next start warm");
      for (int k = 0; k < 20; k++) {
        CachedPartition p = (CachedPartition) second.get(key("truncated", k));
        assertNull(p, "partition " + k + " truncated before the clean close was served: "
            + (p == null ? null : value(p)));
      }
    } finally {
      second.close();
    }
    assertNull(read("truncated", 3));
  }

  private static Set<UUID> markerFloors(HybridRowCache c) {
    Set<UUID> out = new HashSet<>();
    for (String f : new WarmStartMarker(c.hybridCache().config().directory()).values(WarmStartMarker.FLOOR)) {
      out.add(UUID.fromString(f.trim().split(" ")[0]));
    }
    return out;
  }

  private static UUID id(String table) {
    return Keyspace.open(KS).getColumnFamilyStore(table).metadata().id.asUUID();
  }

  @Test
  void theCloseFloorsOnlyTablesWithEntriesAndAColdStartClearsTheFloors() throws IOException {
    fill("quiet", 5);
    caching("quiet", "NONE"); // no entry of it in the cache below
    fill("stopped", 10);
    HybridRowCache first = open("floors-a", "stopped", "quiet");
    for (int k = 0; k < 10; k++) {
      first.put(key("stopped", k), (CachedPartition) node.rowCache.get(key("stopped", k)));
    }
    caching("stopped", "NONE");
    // the drain's flush: no memtable of either table left for a background flush (a commit log segment
    // recycled, a memtable cleanup) to turn into an sstable between this close and the next open, which
    // would rightly make that open cold
    flush(KS, "stopped");
    flush(KS, "quiet");
    first.close();
    assertEquals(Set.of(id("stopped")), markerFloors(first),
        "floors kept at the close: only tables with entries on flash (stopped), not quiet, system_auth, ...");

    HybridRowCache second = open("floors-a", "stopped", "quiet");
    assertTrue(second.isStartedWarm(), "nothing changed since the clean close: warm (the log says why not)");
    assertEquals(Set.of(id("stopped")).size(), second.records().floors().size());
    second.close();
    assertEquals(Set.of(id("stopped")), markerFloors(second), "restored entries of stopped are still on flash");

    Files.delete(second.hybridCache().config().directory().resolve(WarmStartMarker.FILE_NAME));
    HybridRowCache third = open("floors-a", "stopped", "quiet"); // cold: flash emptied
    assertFalse(third.isStartedWarm());
    assertEquals(0, third.records().floors().size(), "a cold start clears every floor");
    third.close();
    assertEquals(Set.of(), markerFloors(third), "nothing stored since the cold start: no floor");
    caching("stopped", "ALL");
    caching("quiet", "ALL");
  }

  @Test
  void aFailureToRecordACachingChangeIsContainedButAVirtualMachineErrorIsNot() {
    fill("failing", 1);
    org.apache.cassandra.schema.TableMetadata before = Keyspace.open(KS).getColumnFamilyStore("failing").metadata();
    org.apache.cassandra.schema.TableMetadata after = before.unbuild()
        .caching(org.apache.cassandra.schema.CachingParams.CACHE_NOTHING).build();
    CachingChanges contained = new CachingChanges(id -> {
      throw new IllegalStateException("test");
    }, "failing");
    contained.onPreAlterTable(before, after); // logged, never thrown into Cassandra's schema code
    assertFalse(contained.complete());
    CachingChanges vmError = new CachingChanges(id -> {
      throw new OutOfMemoryError("test");
    }, "failing");
    assertThrows(OutOfMemoryError.class, () -> vmError.onPreAlterTable(before, after),
        "a VirtualMachineError is not swallowed");
  }

  @Test
  void aFingerprintPastItsDeadlineMeansNoMarkerAtCloseAndAColdStartAtOpen() throws Exception {
    java.util.concurrent.CountDownLatch never = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.atomic.AtomicBoolean hang = new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.Callable<String> fingerprint = () -> {
      if (hang.get()) {
        never.await(); // a hung data directory
      }
      return "0 none";
    };
    java.time.Duration deadline = java.time.Duration.ofMillis(200);
    try {
      HybridRowCache first = node.openBeside("deadline-a", fingerprint, deadline);
      hang.set(true);
      first.close();
      Path marker = first.hybridCache().config().directory().resolve(WarmStartMarker.FILE_NAME);
      assertFalse(Files.exists(marker), "a fingerprint past its deadline at close: no marker");

      hang.set(false);
      HybridRowCache second = node.openBeside("deadline-a", fingerprint, deadline);
      second.close();
      assertTrue(Files.exists(marker));
      hang.set(true);
      HybridRowCache third = node.openBeside("deadline-a", fingerprint, deadline);
      assertFalse(third.isStartedWarm(), "a fingerprint past its deadline at open: cold");
      third.close();
    } finally {
      never.countDown();
    }
  }
}
