package io.hybridcache.bench.compare.stores;

import io.hybridcache.bench.Sizes;
import io.hybridcache.bench.compare.KvStore;
import io.hybridcache.bench.compare.StoreSettings;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompressionType;
import org.rocksdb.DataBlockIndexType;
import org.rocksdb.FlushOptions;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBufferManager;
import org.rocksdb.WriteOptions;

/**
 * RocksDB (rocksdbjni) as a peer: an LSM store that keeps every record on disk. Thread-safe
 * (RocksDB is; {@link #close} must not race the other calls, as for every {@link KvStore}).
 *
 * <p>Budget: the DRAM budget is one LRU block cache (half of it a high-priority pool) that is
 * charged for everything RocksDB keeps in memory that grows with the data: data blocks, index and
 * filter blocks ({@code cache_index_and_filter_blocks}, high priority, L0's pinned), and the
 * memtables ({@link WriteBufferManager} with the cache: a quarter of the budget, two memtables of
 * an eighth each). Not strict ({@code strict_capacity_limit=false}): pinned blocks can push it
 * slightly over, as in production use. Outside it: table-reader objects and the JVM side.
 *
 * <p>Disk: {@code use_direct_reads} and {@code use_direct_io_for_flush_and_compaction}, so the OS
 * page cache does not become a second, unbudgeted DRAM tier (ours uses direct I/O too). No
 * compression (ours does not compress). Bloom filter 10 bits per key, 4 KiB blocks with a hash
 * index inside each data block and a whole-key bloom in the memtable: the point-lookup parts of
 * {@code optimizeForPointLookup}, which itself is not used because it installs a block cache of
 * its own beside the budget. WAL on, not synced per write (the default); level compaction with
 * dynamic level sizes, two background jobs (the machine has two cores).
 *
 * <p>{@link #delete} reads before it deletes (RocksDB's delete does not say whether the key was
 * there); the caller serialises writes of one key, so the answer is exact.
 */
public final class RocksDbStore implements KvStore {
  private static final double HIGH_PRIORITY_POOL_RATIO = 0.5;
  private static final int BLOOM_BITS_PER_KEY = 10;
  private static final long BLOCK_BYTES = 4096;

  /** Everything opened here, closed in reverse order of opening. */
  private final Deque<AutoCloseable> resources = new ArrayDeque<>();
  private final RocksDB db;
  private final WriteOptions writeOptions;
  private final long cacheBytes;
  private final long memtableBytes;
  private final long writeBufferBytes;

  public RocksDbStore(StoreSettings s) {
    RocksDB.loadLibrary();
    cacheBytes = s.dramBytes();
    memtableBytes = cacheBytes / 4;
    writeBufferBytes = memtableBytes / 2;
    try {
      LRUCache cache = own(new LRUCache(cacheBytes, -1, false, HIGH_PRIORITY_POOL_RATIO));
      WriteBufferManager memtables = own(new WriteBufferManager(memtableBytes, cache));
      BlockBasedTableConfig table = new BlockBasedTableConfig()
          .setBlockCache(cache)
          .setBlockSize(BLOCK_BYTES)
          .setCacheIndexAndFilterBlocks(true)
          .setCacheIndexAndFilterBlocksWithHighPriority(true)
          .setPinL0FilterAndIndexBlocksInCache(true)
          .setFilterPolicy(own(new BloomFilter(BLOOM_BITS_PER_KEY)))
          .setDataBlockIndexType(DataBlockIndexType.kDataBlockBinaryAndHash)
          .setDataBlockHashTableUtilRatio(0.75);
      Options options = own(new Options())
          .setCreateIfMissing(true)
          .setTableFormatConfig(table)
          .setWriteBufferManager(memtables)
          .setWriteBufferSize(writeBufferBytes)
          .setMaxWriteBufferNumber(2)
          .setMemtableWholeKeyFiltering(true)
          .setMemtablePrefixBloomSizeRatio(0.02)
          .setUseDirectReads(true)
          .setUseDirectIoForFlushAndCompaction(true)
          .setCompressionType(CompressionType.NO_COMPRESSION)
          .setBottommostCompressionType(CompressionType.NO_COMPRESSION)
          .setLevelCompactionDynamicLevelBytes(true)
          .setMaxBackgroundJobs(2)
          .setBytesPerSync(1 << 20)
          .setInfoLogLevel(InfoLogLevel.WARN_LEVEL);
      writeOptions = own(new WriteOptions());
      db = own(RocksDB.open(options, s.directory().toString()));
    } catch (RocksDBException | RuntimeException e) {
      throw new IllegalStateException("cannot open RocksDB in " + s.directory() + ": " + e, closeAll(e));
    }
  }

  private <T extends AutoCloseable> T own(T resource) {
    resources.push(resource);
    return resource;
  }

  private static byte[] bytes(String key) {
    return key.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public byte[] get(String key) {
    try {
      return db.get(bytes(key));
    } catch (RocksDBException e) {
      throw new IllegalStateException("RocksDB get " + key, e);
    }
  }

  @Override
  public void put(String key, byte[] value) {
    try {
      db.put(writeOptions, bytes(key), value);
    } catch (RocksDBException e) {
      throw new IllegalStateException("RocksDB put " + key, e);
    }
  }

  @Override
  public boolean delete(String key) {
    byte[] k = bytes(key);
    try {
      if (db.get(k) == null) {
        return false;
      }
      db.delete(writeOptions, k);
      return true;
    } catch (RocksDBException e) {
      throw new IllegalStateException("RocksDB delete " + key, e);
    }
  }

  @Override
  public String describe() {
    return "rocksdb " + RocksDB.rocksdbVersion() + ": LRU block cache " + Sizes.format(cacheBytes)
        + " (index/filter blocks and memtables charged to it: write buffer manager " + Sizes.format(memtableBytes)
        + ", memtables of " + Sizes.format(writeBufferBytes) + "), bloom " + BLOOM_BITS_PER_KEY
        + " bits/key, direct reads + direct flush/compaction, no compression, WAL unsynced";
  }

  /** Flushes the memtables to SST files, then closes the database and its options and cache. */
  @Override
  public void close() throws Exception {
    Exception failure = null;
    try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
      db.flush(flush);
      db.closeE();
    } catch (RocksDBException e) {
      failure = e;
    }
    failure = closeAll(failure);
    if (failure != null) {
      throw failure;
    }
  }

  /** Closes every resource, newest first; returns {@code failure} with close failures added (or the first of them). */
  private Exception closeAll(Exception failure) {
    Exception f = failure;
    while (!resources.isEmpty()) {
      try {
        resources.pop().close();
      } catch (Exception e) {
        if (f == null) {
          f = e;
        } else {
          f.addSuppressed(e);
        }
      }
    }
    return f;
  }
}
