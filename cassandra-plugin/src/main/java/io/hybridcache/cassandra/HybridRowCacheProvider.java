package io.hybridcache.cassandra;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.HybridCache;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.apache.cassandra.cache.CacheProvider;
import org.apache.cassandra.cache.ICache;
import org.apache.cassandra.cache.IRowCacheEntry;
import org.apache.cassandra.cache.RowCacheKey;
import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.dht.Token;
import org.apache.cassandra.net.MessagingService;
import org.apache.cassandra.schema.Schema;
import org.apache.cassandra.schema.TableId;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.service.StorageService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cassandra row cache provider: {@code row_cache_class_name: io.hybridcache.cassandra.HybridRowCacheProvider}
 * with {@code row_cache_size} &gt; 0 (the DRAM tier) and the flash tier's {@link RowCacheSettings} file.
 *
 * <p>Thread-safe: Cassandra makes one instance and calls {@link #create()} once. The constructor reads
 * and validates the settings file. Cassandra reports a failing constructor only as "Cannot find
 * configured row cache provider class" and drops the cause, so every failure is logged here first, with
 * the setting it concerns.
 *
 * <p>Starts cold by default: {@link #create()} empties the flash tier. Cassandra reloads the keys it
 * saved ({@code row_cache_save_period}, {@code row_cache_keys_to_save}) by reading each partition from
 * its SSTables, which are the truth after a restart; partitions kept on flash across a restart could
 * be stale (an SSTable change a kill cut short: an import, a stream's commit, a TRUNCATE, whose records the
 * provider keeps in memory only; SSTables restored or imported while the node was down; a schema change), and
 * stale cache entries are served without any check. A memtable write is not a cause: commit-log replay
 * invalidates every partition it rewrites before the node serves reads (src/site/cassandra.md, point 5).
 *
 * <p>{@code start=warm} keeps the flash tier only after a clean drain: the row cache is closed by a
 * post-shutdown hook of Cassandra's drain ({@link StorageService#addPostShutdownHook}), which Cassandra
 * 5.0 runs once, at the end of {@code drain} (nodetool drain, or the JVM shutdown hook's drain), after
 * the mutation stages are shut down and awaited, memtables flushed and the commit log shut down. That
 * close writes the {@link WarmStartMarker} only if no invalidation was refused; {@link #create} deletes
 * the marker before the cache serves anything and opens cold (empties the flash tier) unless it found
 * one. A kill, a crash, a failed drain or a write whose invalidation came after the close: cold.
 */
public final class HybridRowCacheProvider implements CacheProvider<RowCacheKey, IRowCacheEntry> {
  private static final Logger LOG = LoggerFactory.getLogger(HybridRowCacheProvider.class);
  private static volatile HybridRowCache last;

  private final RowCacheSettings settings;

  public HybridRowCacheProvider() {
    try {
      settings = RowCacheSettings.load();
    } catch (RuntimeException | Error e) {
      LOG.error("{}", e.getMessage(), e);
      throw e;
    }
  }

  @Override
  public ICache<RowCacheKey, IRowCacheEntry> create() {
    try {
      long dram = DatabaseDescriptor.getRowCacheSizeInMiB() * CacheConfig.MIB;
      CacheConfig config = settings.cacheConfig(dram);
      RowCacheCodec codec = new RowCacheCodec(() -> MessagingService.current_version);
      HybridRowCache rowCache = open(config, codec, settings.warmStart(), settings.classPerTable());
      if (settings.warmStart()) {
        closeAtEndOfDrain(rowCache);
      }
      LOG.info("hybridcache row cache: DRAM {} MiB, flash {} MiB in {} ({}, settings {}), JMX "
              + "io.hybridcache:type=HybridCache,name=\"{}\"", dram / CacheConfig.MIB,
          config.flashBytes() / CacheConfig.MIB, config.directory(), !settings.warmStart() ? "start=cold"
              : rowCache.isStartedWarm() ? "start=warm: flash tier kept" : "start=warm: flash tier emptied",
          settings.source(), config.name());
      last = rowCache;
      return rowCache;
    } catch (RuntimeException | Error e) {
      LOG.error("{}", e.getMessage(), e);
      throw e;
    }
  }

  /**
   * Opens the row cache in {@code config.directory()}. Warm only if {@code warm} and the previous run
   * left a {@link WarmStartMarker}; the marker is deleted (durably) before the cache is opened, so from
   * here on only a clean close of this run can allow the next warm start. Otherwise the flash tier is
   * emptied. With {@code warm}, the cache writes the marker again at a clean {@link HybridRowCache#close}.
   */
  static HybridRowCache open(CacheConfig config, RowCacheCodec codec, boolean warm) {
    return open(config, codec, warm, false);
  }

  /**
   * As {@link #open(CacheConfig, RowCacheCodec, boolean)}; {@code classPerTable} puts each table's
   * partitions in a lifetime class of its own ({@link TableClasses#perTable}), else all in one.
   */
  static HybridRowCache open(CacheConfig config, RowCacheCodec codec, boolean warm, boolean classPerTable) {
    return open(config, codec, warm, true, classPerTable);
  }

  /**
   * As {@link #open(CacheConfig, RowCacheCodec, boolean, boolean)}; {@code hooks} false leaves every
   * invalidation on the full scan (no {@link InvalidationHooks}: tests compare the two).
   */
  static HybridRowCache open(CacheConfig config, RowCacheCodec codec, boolean warm, boolean hooks,
      boolean classPerTable) {
    return open(config, codec, warm, hooks, classPerTable, HybridRowCacheProvider::liveSSTables);
  }

  /**
   * As {@link #open(CacheConfig, RowCacheCodec, boolean, boolean, boolean)}, with the durable state a warm
   * start must find as the clean close left it ({@link SSTableFingerprint} of the node's data directories),
   * computed under {@link SSTableFingerprint#DEADLINE}.
   */
  static HybridRowCache open(CacheConfig config, RowCacheCodec codec, boolean warm, boolean hooks,
      boolean classPerTable, Callable<String> fingerprint) {
    return open(config, codec, warm, hooks, classPerTable, fingerprint, SSTableFingerprint.DEADLINE);
  }

  /**
   * As {@link #open(CacheConfig, RowCacheCodec, boolean, boolean, boolean, Callable)}; {@code deadline}
   * bounds each computation of {@code fingerprint} (at this open and at the close): longer is a cold start
   * (at open) or no marker (at close), logged.
   */
  static HybridRowCache open(CacheConfig config, RowCacheCodec codec, boolean warm, boolean hooks,
      boolean classPerTable, Callable<String> fingerprint, java.time.Duration deadline) {
    Callable<String> bounded = SSTableFingerprint.bounded(fingerprint, deadline);
    WarmStartMarker marker = new WarmStartMarker(config.directory());
    java.util.OptionalLong epoch = marker.epoch();
    boolean allowed = warm && epoch.isPresent();
    List<String> format = marker.values(WarmStartMarker.FORMAT);
    List<String> closedWith = marker.values(WarmStartMarker.SSTABLES);
    List<String> floors = marker.values(WarmStartMarker.FLOOR);
    List<String> stored = marker.values(WarmStartMarker.STORED);
    IOException undeletable = marker.delete();
    if (undeletable != null) {
      LOG.error("hybridcache row cache: cannot delete {} ({}): starting cold, and this run will not allow a warm"
          + " start; delete it by hand before a warm start", marker.file(), undeletable.toString());
      allowed = false;
    } else if (warm && !allowed) {
      LOG.warn("hybridcache row cache: start=warm but no {} (the last run did not end with a clean drain, or an"
          + " invalidation was refused after it): starting cold", marker.file());
    } else if (allowed) {
      String why = !format.equals(List.of(WarmStartMarker.CURRENT_FORMAT))
          ? "the clean-close marker was written by an older version" : changedSinceClose(closedWith, bounded);
      if (why != null) {
        LOG.warn("hybridcache row cache: start=warm but {}: starting cold", why);
        allowed = false;
      }
    }
    InvalidationRecords records = new InvalidationRecords(allowed ? epoch.getAsLong() + 1 : 1);
    if (allowed && !restoreTables(floors, stored, records)) {
      allowed = false;
    }
    if (!allowed) {
      records = new InvalidationRecords(1); // a cold start empties flash: no floor, no table with entries
    }
    HybridCache cache = HybridCache.open(config);
    if (!allowed) {
      cache.clear();
    }
    // every mode: a table whose caching stops and starts again within this run must not serve what it
    // stored before (Cassandra skipped the invalidations in between), start=cold included
    CachingChanges caching = new CachingChanges(records, config.name());
    caching.register();
    HybridRowCache rowCache = new HybridRowCache(cache, codec, config.dramBytes(),
        warm && undeletable == null ? marker : null, allowed, records,
        hooks ? new InvalidationHooks(records) : null, HybridRowCacheProvider::token,
        classPerTable ? TableClasses.perTable(HybridRowCacheProvider::tableName) : TableClasses.single(),
        bounded, caching);
    rowCache.registerMBean();
    return rowCache;
  }

  /**
   * Why the node's durable state is not what the clean close recorded (a reason for the log), or null if it
   * is: the live sstables of the non-local-system keyspaces must be the same files ({@link SSTableFingerprint}).
   */
  private static String changedSinceClose(List<String> closedWith, Callable<String> fingerprint) {
    if (closedWith.isEmpty()) {
      return "the clean-close marker records no sstables (written by an older version)";
    }
    String then = closedWith.get(0).trim();
    String now;
    try {
      now = fingerprint.call();
    } catch (Exception e) {
      return "the live sstables cannot be listed (" + e + ")";
    }
    if (now.equals(then)) {
      return null;
    }
    return "the live sstables are not those of the clean close (" + SSTableFingerprint.count(then) + " then, "
        + SSTableFingerprint.count(now) + " now): a run without this provider since (row_cache_size: 0, another"
        + " row_cache_class_name), or sstables changed, replaced or restored while the node was down; its writes never reached flash";
  }

  /**
   * Restores the floors ("TABLE-UUID EPOCH" each) and the tables with entries on flash ("TABLE-UUID") the
   * clean close kept; false (logged) if one is malformed.
   */
  private static boolean restoreTables(List<String> floors, List<String> stored, InvalidationRecords records) {
    try {
      for (String t : stored) {
        records.noteStored(TableId.fromUUID(UUID.fromString(t.trim())));
      }
      for (String f : floors) {
        String[] p = f.trim().split(" ");
        records.restoreFloor(TableId.fromUUID(UUID.fromString(p[0])), Long.parseLong(p[1]));
      }
      return true;
    } catch (RuntimeException e) {
      LOG.warn("hybridcache row cache: start=warm but the clean-close marker has a malformed floor or table ({}):"
          + " starting cold", e.toString());
      return false;
    }
  }

  /** The live sstables of the node's keyspaces but the local system ones ({@link SSTableFingerprint}). */
  static String liveSSTables() throws IOException {
    return SSTableFingerprint.of(DatabaseDescriptor.getNonLocalSystemKeyspacesDataFileLocations());
  }

  /** The Murmur3 token of a row cache key (only asked when a range record could cover the entry: Murmur3 only). */
  private static long token(RowCacheKey key) {
    Token t = DatabaseDescriptor.getPartitioner().getToken(ByteBuffer.wrap(key.key));
    return t instanceof Murmur3Partitioner.LongToken l ? l.token : Long.MIN_VALUE;
  }

  /** "keyspace.table" of a table the schema knows, else null. */
  private static String tableName(TableId id) {
    TableMetadata m = Schema.instance.getTableMetadata(id);
    return m == null ? null : m.keyspace + "." + m.name;
  }

  /** Closes {@code rowCache} in a post-shutdown hook of Cassandra's drain (see the class comment). */
  private static void closeAtEndOfDrain(HybridRowCache rowCache) {
    StorageService ss = StorageService.instance;
    if (ss == null || !ss.addPostShutdownHook(rowCache::close)) {
      LOG.warn("hybridcache row cache: could not register a post-shutdown hook with StorageService: the cache"
          + " will not be closed at drain, so the next start will be cold");
    }
  }

  /** The row cache the last {@link #create()} in this JVM made, or null (tests and tools). */
  public static HybridRowCache lastCreated() {
    return last;
  }
}
