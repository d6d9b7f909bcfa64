package io.hybridcache.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.PlacementStats;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import javax.management.ObjectName;
import org.apache.cassandra.cache.RowCacheKey;
import org.apache.cassandra.cache.RowCacheSentinel;
import org.apache.cassandra.cql3.QueryProcessor;
import org.apache.cassandra.cql3.UntypedResultSet;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.db.lifecycle.Tracker;
import org.apache.cassandra.dht.Bounds;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.net.MessagingService;
import org.apache.cassandra.cache.IRowCacheEntry;
import org.apache.cassandra.db.partitions.CachedPartition;
import org.apache.cassandra.schema.Schema;
import org.apache.cassandra.schema.TableId;
import org.apache.cassandra.service.CacheService;
import org.apache.cassandra.service.EmbeddedCassandraService;
import org.apache.cassandra.utils.ByteBufferUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One embedded Cassandra 5.0.9 node (this JVM) whose row cache is our provider: reads fill and hit it,
 * writes, TRUNCATE and DROP invalidate it (also partitions that live only on flash), stale bytes are
 * misses, and concurrent readers never see a value older than the last acknowledged write.
 *
 * <p>Statements run through {@link QueryProcessor#executeInternal}, the same local read and write
 * paths (SinglePartitionReadCommand's row cache sequence, ColumnFamilyStore.apply's invalidation) a
 * coordinator's replica uses, without a network client.
 */
class EmbeddedRowCacheTest {
  private static final String KS = "hc";
  private static EmbeddedCassandraService cassandra;
  private static HybridRowCache rowCache;
  /** Key encoding only (the value side is not used). */
  private static final RowCacheCodec KEYS = new RowCacheCodec(() -> 0);

  @BeforeAll
  static void start() throws IOException {
    Path storage = Path.of(System.getProperty("cassandra.storagedir"));
    if (Files.exists(storage)) {
      try (var files = Files.walk(storage)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          if (!p.equals(storage) && !p.getFileName().toString().equals("system.log")) {
            Files.delete(p);
          }
        }
      }
    }
    cassandra = new EmbeddedCassandraService();
    cassandra.start();
    rowCache = HybridRowCacheProvider.lastCreated();
    assertNotNull(rowCache, "Cassandra made its row cache with our provider");
    QueryProcessor.executeInternal("CREATE KEYSPACE IF NOT EXISTS " + KS
        + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
  }

  @AfterAll
  static void stop() {
    if (cassandra != null) {
      cassandra.stop();
    }
  }

  @BeforeEach
  void fullCapacity() {
    CacheService.instance.setRowCacheCapacityInMB(16);
  }

  private static void table(String name) {
    QueryProcessor.executeInternal("CREATE TABLE IF NOT EXISTS " + KS + "." + name
        + " (k int PRIMARY KEY, v bigint, pad blob) WITH caching = {'keys': 'ALL', 'rows_per_partition': 'ALL'}");
  }

  private static void write(String table, int k, long v, int padBytes) {
    QueryProcessor.executeInternal("UPDATE " + KS + "." + table + " SET v = ?, pad = ? WHERE k = ?", v,
        ByteBuffer.wrap(new byte[padBytes]), k);
  }

  private static Long read(String table, int k) {
    UntypedResultSet rs = QueryProcessor.executeInternal("SELECT v FROM " + KS + "." + table + " WHERE k = ?", k);
    return rs.isEmpty() ? null : rs.one().getLong("v");
  }

  /** Creates {@code table}, writes partition {@code k} = {@code v} and reads it, so the row cache holds it. */
  private static RowCacheKey cached(String table, int k, long v) {
    table(table);
    write(table, k, v, 10);
    assertEquals(v, read(table, k));
    return key(table, k);
  }

  private static ColumnFamilyStore cfs(String table) {
    return Keyspace.open(KS).getColumnFamilyStore(table);
  }

  private static RowCacheKey key(String table, int k) {
    ColumnFamilyStore cfs = cfs(table);
    return new RowCacheKey(cfs.metadata(), cfs.decorateKey(ByteBufferUtil.bytes(k)));
  }

  private static RowCacheKey key(TableId id, int k) {
    return new RowCacheKey(id, null, ByteBufferUtil.getArray(ByteBufferUtil.bytes(k)));
  }

  private static long keysOf(TableId id) {
    long n = 0;
    for (Iterator<RowCacheKey> it = rowCache.keyIterator(); it.hasNext(); ) {
      if (it.next().tableId.equals(id)) {
        n++;
      }
    }
    return n;
  }

  /**
   * The provider decodes a hit from the hybrid cache's own bytes ({@code readArray}: a {@code get}, which
   * copies, would fail here), and the partition it returns shares no bytes with them: scribbling over
   * those bytes afterwards leaves the partition as it was. Regression guard for the no-copy read: if
   * Cassandra's deserializer ever kept a slice of its input, a later change of the cache's bytes would
   * change a partition a read already returned.
   */
  @Test
  void aDecodedPartitionSharesNoBytesWithTheCache() {
    RowCacheKey key = cached("own", 1, 77); // in DRAM
    HybridCache hc = rowCache.hybridCache();
    HybridCache noCopies = (HybridCache) Proxy.newProxyInstance(HybridCache.class.getClassLoader(),
        new Class<?>[] {HybridCache.class}, (proxy, m, args) -> {
          if (m.getName().equals("get") && m.getParameterCount() == 1) {
            throw new AssertionError("get copies the value: the provider must decode with readArray");
          }
          try {
            return m.invoke(hc, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    RowCacheCodec codec = new RowCacheCodec(() -> MessagingService.current_version);
    HybridRowCache provider = new HybridRowCache(noCopies, codec, 1 << 20, null, false, new InvalidationRecords(1),
        null, k -> 0L, TableClasses.single());
    CachedPartition p = (CachedPartition) provider.get(key);
    assertNotNull(p);
    byte[] own = hc.readArray(KEYS.key(key), v -> v); // DRAM's array, which p was decoded from
    byte[] saved = own.clone();
    try {
      Arrays.fill(own, RowCacheCodec.EPOCH_OFFSET + 8, own.length, (byte) 0x5A);
      assertTrue(RowCacheCodec.sameContent(codec.value(p), saved), "the partition kept none of the cache's bytes");
    } finally {
      System.arraycopy(saved, 0, own, 0, own.length);
    }
    assertEquals(77L, read("own", 1));
  }

  @Test
  void readsFillAndHitOurCache() throws Exception {
    table("fill");
    write("fill", 1, 42, 10);
    HybridCache hc = rowCache.hybridCache();
    long hitsBefore = cfs("fill").metric.rowCacheHit.getCount();
    CacheStats before = hc.stats();
    assertEquals(42L, read("fill", 1)); // miss: sentinel, read, replace
    assertTrue(rowCache.containsKey(key("fill", 1)));
    assertEquals(42L, read("fill", 1)); // hit
    assertEquals(42L, read("fill", 1));
    assertEquals(hitsBefore + 2, cfs("fill").metric.rowCacheHit.getCount());
    CacheStats after = hc.stats();
    assertEquals(1, after.puts() - before.puts(), "the partition was stored once");
    assertTrue(after.dramHits() - before.dramHits() >= 2, "Cassandra's hits were our DRAM hits");
    // the figures Cassandra shows (nodetool info) come from us
    assertEquals(16L << 20, CacheService.instance.rowCache.getCapacity());
    assertTrue(CacheService.instance.rowCache.size() >= 1);
    assertTrue(CacheService.instance.rowCache.weightedSize() > 0);
    // and the per-tier figures are on JMX
    ObjectName name = new ObjectName("io.hybridcache:type=HybridCache,name=\"cassandra-row-cache\"");
    assertTrue((Long) ManagementFactory.getPlatformMBeanServer().getAttribute(name, "DramHits") >= 2);
  }

  /** The sentinel protocol step by step, as SinglePartitionReadCommand and ColumnFamilyStore drive it. */
  @Test
  void sentinelReplaceIsACompareAndSetThatAWriteDefeats() {
    RowCacheKey k = cached("cas", 1, 10);
    CachedPartition cached = (CachedPartition) rowCache.get(k);
    assertNotNull(cached);

    // a read starts: its sentinel goes in only while nothing is cached
    RowCacheSentinel busy = new RowCacheSentinel();
    assertFalse(rowCache.putIfAbsent(k, busy), "a partition is cached");
    rowCache.remove(k);
    RowCacheSentinel mine = new RowCacheSentinel();
    assertTrue(rowCache.putIfAbsent(k, mine));
    assertFalse(rowCache.putIfAbsent(k, new RowCacheSentinel()), "a second reader does not replace it");
    assertSame(mine, rowCache.get(k), "other readers see the sentinel and read around the cache");
    assertFalse(rowCache.replace(k, new RowCacheSentinel(), cached), "only the owner's sentinel matches");
    // a write lands while the read is in flight: the partition it read must not be installed
    rowCache.remove(k);
    assertFalse(rowCache.replace(k, mine, cached));
    assertNull(rowCache.get(k));
    assertFalse(rowCache.containsKey(k));

    // the undisturbed sequence installs the partition in the hybrid cache
    RowCacheSentinel next = new RowCacheSentinel();
    assertTrue(rowCache.putIfAbsent(k, next));
    assertTrue(rowCache.replace(k, next, cached));
    assertTrue(rowCache.get(k) instanceof CachedPartition);
    assertTrue(rowCache.hybridCache().containsKey(KEYS.key(k)));
    // replace of a partition compares the stored bytes
    assertTrue(rowCache.replace(k, cached, cached));
    assertFalse(rowCache.replace(k, new RowCacheSentinel(), cached));
    // hot keys come from the DRAM tier
    boolean hot = false;
    for (Iterator<RowCacheKey> it = rowCache.hotKeyIterator(1000); it.hasNext(); ) {
      hot |= it.next().equals(k);
    }
    assertTrue(hot);
  }

  @Test
  void aWriteInvalidates() {
    assertTrue(rowCache.containsKey(cached("inv", 7, 1)));
    write("inv", 7, 2, 10);
    assertFalse(rowCache.containsKey(key("inv", 7)), "the write removed it from both tiers");
    assertEquals(2L, read("inv", 7));
    assertEquals(2L, read("inv", 7));
    QueryProcessor.executeInternal("DELETE FROM " + KS + ".inv WHERE k = 7");
    assertNull(read("inv", 7));
  }

  /** Caches {@code n} partitions of ~2 KiB with a 1 MiB DRAM tier: most of them live only on flash. */
  private static void fillPastDram(String table, int n) {
    table(table);
    for (int k = 0; k < n; k++) {
      write(table, k, k, 2048);
    }
    CacheService.instance.setRowCacheCapacityInMB(1);
    for (int k = 0; k < n; k++) {
      assertEquals((long) k, read(table, k));
    }
    rowCache.hybridCache().flush();
    assertTrue(rowCache.hybridCache().stats().flashEntries() > n / 2, "most partitions are on flash");
    assertEquals(n, keysOf(cfs(table).metadata().id), "keyIterator sees every cached partition");
  }

  /**
   * Each table's partitions go to flash in the table's own lifetime class: after a write-heavy and a
   * read-mostly table have both spilled to flash, placement() reports one class for each, named after
   * the table, with bytes written (without per-table classes both would be in FRESH).
   */
  @Test
  void eachTableIsItsOwnLifetimeClassOnFlash() {
    fillPastDram("writeheavy", 600);
    for (int round = 0; round < 3; round++) { // rewritten partitions: invalidated and cached again
      for (int k = 0; k < 600; k += 2) {
        write("writeheavy", k, k + round, 2048);
        assertEquals((long) k + round, read("writeheavy", k));
      }
    }
    fillPastDram("readmostly", 600);
    rowCache.hybridCache().flush();
    List<PlacementStats.ClassPlacement> classes = rowCache.hybridCache().placement().classes();
    for (String table : List.of("writeheavy", "readmostly")) {
      int id = TableClasses.classId(cfs(table).metadata().id);
      PlacementStats.ClassPlacement c = classes.stream().filter(p -> p.id() == id).findFirst().orElse(null);
      assertNotNull(c, table + "'s class " + id + " wrote to flash: " + classes);
      assertEquals(KS + "." + table, c.name());
      assertTrue(c.bytesWritten() > 600 * 2048 / 4, table + ": " + c);
    }
    assertTrue(TableClasses.classId(cfs("writeheavy").metadata().id)
        != TableClasses.classId(cfs("readmostly").metadata().id), "two tables, two classes");
    assertEquals(599L, read("readmostly", 599), "still read right");
  }

  @Test
  void truncateInvalidatesBothTiersWithoutReadingFlash() throws Exception {
    fillPastDram("trunc", 2000);
    long flashHitsBefore = rowCache.hybridCache().stats().flashHits();
    for (int k = 0; k < 200; k++) {
      assertEquals((long) k, read("trunc", k)); // served from flash (one device read each)
    }
    assertTrue(rowCache.hybridCache().stats().flashHits() > flashHitsBefore, "flash hits served reads");
    CacheStats before = rowCache.hybridCache().stats();
    long scans = rowCache.scanInvalidations();
    long lazy = rowCache.lazyInvalidations();
    QueryProcessor.executeInternal("TRUNCATE " + KS + ".trunc");
    CacheStats after = rowCache.hybridCache().stats();
    assertEquals(lazy + 1, rowCache.lazyInvalidations(), "TRUNCATE recorded a table floor");
    assertEquals(scans, rowCache.scanInvalidations(), "and did not walk the tiers' keys");
    ObjectName bean = new ObjectName("io.hybridcache:type=CassandraRowCache,name=\"cassandra-row-cache\"");
    assertEquals(rowCache.lazyInvalidations(),
        (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(bean, "LazyInvalidations"), "on JMX");
    assertEquals(rowCache.scanInvalidations(),
        (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(bean, "ScanInvalidations"), "on JMX");
    assertEquals(before.deviceReads(), after.deviceReads(), "no device read during TRUNCATE");
    assertEquals(before.devicePagesRead(), after.devicePagesRead());
    for (int k = 0; k < 2000; k += 7) {
      assertNull(rowCache.get(key("trunc", k)), "partition " + k + " is a miss");
      assertFalse(rowCache.containsKey(key("trunc", k)));
      assertNull(read("trunc", k));
    }
    write("trunc", 3, 33, 10); // a write after the TRUNCATE is cached and hit
    assertEquals(33L, read("trunc", 3));
    assertTrue(rowCache.get(key("trunc", 3)) instanceof CachedPartition);
  }

  /**
   * An incoming stream as CassandraStreamReceiver.finished does it (Cassandra 5.0.9): the stream's
   * sstables are added (the Tracker announces them without a memtable), then
   * {@code invalidateRowCache} with each sstable's [first, last] token. Here the stream's sstable is a
   * flushed one holding two partitions that bound a narrow token range.
   */
  @Test
  void aStreamedRangeIsInvalidatedWithoutReadingFlash() throws Exception {
    fillPastDram("streamed", 1500);
    ColumnFamilyStore cfs = cfs("streamed");
    cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.UNIT_TESTS);
    List<Integer> byToken = new ArrayList<>();
    for (int k = 0; k < 1500; k++) {
      byToken.add(k);
    }
    byToken.sort(Comparator.comparingLong(k -> token("streamed", k)));
    int lo = byToken.get(500);
    int hi = byToken.get(700);
    write("streamed", lo, -1, 10);
    write("streamed", hi, -2, 10);
    Set<SSTableReader> old = Set.copyOf(cfs.getLiveSSTables());
    cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.UNIT_TESTS);
    SSTableReader streamed = cfs.getLiveSSTables().stream().filter(r -> !old.contains(r)).findFirst().orElseThrow();
    rowCache.hybridCache().flush();

    CacheStats before = rowCache.hybridCache().stats();
    long scans = rowCache.scanInvalidations();
    long lazy = rowCache.lazyInvalidations();
    Method notifyAdded = Tracker.class.getDeclaredMethod("notifyAdded", Iterable.class, boolean.class);
    notifyAdded.setAccessible(true);
    notifyAdded.invoke(cfs.getTracker(), List.of(streamed), false); // what cfs.addSSTables announces
    cfs.invalidateRowCache(List.of(new Bounds<>(streamed.getFirst().getToken(), streamed.getLast().getToken())));
    CacheStats after = rowCache.hybridCache().stats();
    assertEquals(lazy + 1, rowCache.lazyInvalidations(), "the range was recorded");
    assertEquals(scans, rowCache.scanInvalidations(), "the tiers' keys were not walked");
    assertEquals(before.deviceReads(), after.deviceReads(), "no device read during the invalidation");

    for (int i = 0; i < 1500; i++) {
      int k = byToken.get(i);
      IRowCacheEntry e = rowCache.get(key("streamed", k));
      if (i > 500 && i < 700) {
        assertNull(e, "partition " + k + " inside the streamed range is a miss");
      } else if (i != 500 && i != 700) {
        assertTrue(e instanceof CachedPartition, "partition " + k + " outside the range still hits");
      }
    }
    int inside = byToken.get(600);
    assertEquals((long) inside, read("streamed", inside));
    assertTrue(rowCache.get(key("streamed", inside)) instanceof CachedPartition, "read after the record: cached");
  }

  private static long token(String table, int k) {
    return ((Murmur3Partitioner.LongToken) cfs(table).decorateKey(ByteBufferUtil.bytes(k)).getToken()).token;
  }

  @Test
  void dropInvalidatesAndLeftoverBytesAreMisses() {
    fillPastDram("dropped", 1500);
    TableId id = cfs("dropped").metadata().id;
    RowCacheKey k5 = key("dropped", 5);
    byte[] stored = rowCache.hybridCache().get(KEYS.key(k5));
    assertNotNull(stored);
    cfs("dropped").forceBlockingFlush(ColumnFamilyStore.FlushReason.UNIT_TESTS); // DROP announces its sstables
    CacheStats before = rowCache.hybridCache().stats();
    long scans = rowCache.scanInvalidations();
    QueryProcessor.executeInternal("DROP TABLE " + KS + ".dropped");
    assertNull(Schema.instance.getTableMetadata(id));
    assertEquals(scans, rowCache.scanInvalidations(), "DROP did not walk the tiers' keys");
    assertEquals(before.deviceReads(), rowCache.hybridCache().stats().deviceReads(), "nor read the device");
    for (int k = 0; k < 1500; k += 7) {
      assertNull(rowCache.get(key(id, k)), "partition " + k + " of the dropped table is a miss");
    }
    // bytes of a dropped table that were still stored (say, put back by a race) read as a miss
    rowCache.hybridCache().put(KEYS.key(k5), stored);
    long misses = rowCache.undecodable() + rowCache.staleMisses();
    assertNull(rowCache.get(k5));
    assertEquals(misses + 1, rowCache.undecodable() + rowCache.staleMisses());
    assertFalse(rowCache.containsKey(k5), "and are dropped");
  }

  /**
   * The test settings' write_buffer_size is 256 KiB, so no flash entry is larger: partitions above it
   * live in DRAM only and are dropped (counted) when DRAM evicts them; above the DRAM tier too, they are
   * not cached at all (counted at each read that tries). Reads stay right either way.
   */
  @Test
  void partitionsTooLargeForFlashAreCountedAndStillReadRight() throws Exception {
    table("big");
    long before = rowCache.getTooLargeRejected();
    for (int k = 0; k < 4; k++) {
      write("big", k, k, 300 * 1024);
      assertEquals((long) k, read("big", k));
      assertEquals((long) k, read("big", k));
      assertTrue(rowCache.containsKey(key("big", k)), "cached in the 16 MiB DRAM tier");
    }
    assertEquals(before, rowCache.getTooLargeRejected());
    CacheService.instance.setRowCacheCapacityInMB(1); // 4 x 300 KiB no longer fit in DRAM and cannot go to flash
    long evicted = rowCache.getTooLargeRejected() - before;
    assertTrue(evicted >= 1, "DRAM dropped at least one and counted it");
    int kept = 0;
    for (int k = 0; k < 4; k++) {
      kept += rowCache.containsKey(key("big", k)) ? 1 : 0;
      assertEquals((long) k, read("big", k));
    }
    assertTrue(kept <= 3, kept + " of 4 still cached");

    write("big", 9, 9, 1536 * 1024); // above the 1 MiB DRAM tier as well
    long beforeHuge = rowCache.getTooLargeRejected();
    assertEquals(9L, read("big", 9));
    assertEquals(9L, read("big", 9));
    assertFalse(rowCache.containsKey(key("big", 9)), "not cached");
    assertTrue(rowCache.getTooLargeRejected() >= beforeHuge + 2, "each read's attempt to cache it is counted");
    ObjectName name = new ObjectName("io.hybridcache:type=CassandraRowCache,name=\"cassandra-row-cache\"");
    assertEquals(rowCache.getTooLargeRejected(),
        (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(name, "TooLargeRejected"), "on JMX");
  }

  @Test
  void anotherMessagingVersionIsAMissNotAnError() {
    RowCacheKey k = cached("ver", 3, 33);
    byte[] kb = KEYS.key(k);
    byte[] v = rowCache.hybridCache().get(kb);
    v[1] ^= 0x7f; // the messaging version the bytes claim to be written with
    rowCache.hybridCache().put(kb, v);
    long before = rowCache.undecodable();
    assertEquals(33L, read("ver", 3), "the client still gets the right row");
    assertEquals(before + 1, rowCache.undecodable());
    assertEquals(33L, read("ver", 3));
    assertTrue(rowCache.containsKey(k), "cached again, in the current version");
  }

  @Test
  void concurrentReadersNeverSeeAValueOlderThanTheLastAcknowledgedWrite() throws Exception {
    table("race");
    int partitions = 48;
    for (int k = 0; k < partitions; k++) {
      write("race", k, 0, 24 * 1024);
    }
    CacheService.instance.setRowCacheCapacityInMB(1); // 48 x 24 KiB: partitions move between DRAM and flash
    AtomicLongArray acked = new AtomicLongArray(partitions);
    int writers = 2;
    int readers = 4;
    int writesPerWriter = 400;
    AtomicBoolean done = new AtomicBoolean();
    ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    AtomicLong reads = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int self = w;
      threads.add(new Thread(() -> {
        Random rnd = new Random(self);
        for (int i = 0; i < writesPerWriter; i++) {
          int k = rnd.nextInt(partitions / writers) * writers + self; // one writer per partition: versions only grow
          long v = acked.get(k) + 1;
          write("race", k, v, 24 * 1024);
          acked.set(k, v);
        }
      }, "writer-" + w));
    }
    for (int r = 0; r < readers; r++) {
      int self = r;
      threads.add(new Thread(() -> {
        Random rnd = new Random(100 + self);
        while (!done.get()) {
          int k = rnd.nextInt(partitions);
          long floor = acked.get(k);
          Long v = read("race", k);
          reads.incrementAndGet();
          if (v == null || v < floor) {
            violations.add("partition " + k + ": read " + v + " after write " + floor + " was acknowledged");
          }
        }
      }, "reader-" + r));
    }
    CacheStats before = rowCache.hybridCache().stats();
    threads.forEach(Thread::start);
    for (Thread t : threads.subList(0, writers)) {
      t.join();
    }
    done.set(true);
    for (Thread t : threads) {
      t.join();
    }
    CacheStats after = rowCache.hybridCache().stats();
    assertTrue(violations.isEmpty(), violations.size() + " stale reads, e.g. " + violations.peek());
    for (int k = 0; k < partitions; k++) {
      assertEquals(acked.get(k), read("race", k));
    }
    assertTrue(after.dramHits() + after.flashHits() - before.dramHits() - before.flashHits() > 100,
        "reads were served by the cache (" + reads.get() + " reads)");
  }
}
