package io.hybridcache.cassandra;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import javax.management.JMException;
import javax.management.ObjectName;
import org.apache.cassandra.cache.ICache;
import org.apache.cassandra.cache.IRowCacheEntry;
import org.apache.cassandra.cache.RowCacheKey;
import org.apache.cassandra.cache.RowCacheSentinel;
import org.apache.cassandra.db.partitions.CachedPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cassandra's row cache over a {@link HybridCache}: the DRAM tier sized by {@code row_cache_size},
 * the flash tier below it.
 *
 * <p>Thread-safe. Concurrency: Cassandra's read path does get, then {@code putIfAbsent(sentinel)},
 * reads the partition, then {@code replace(key, sentinel, partition)}; its write path calls
 * {@code remove} after the memtable write. A sentinel cannot be serialized, so sentinels live in
 * {@code sentinels}, a map beside the hybrid cache, and every operation that changes a key runs inside
 * {@code sentinels.compute} for that key: that is the per-key lock that makes {@code putIfAbsent} and
 * {@code replace} atomic compare-and-sets over both maps. A write's {@code remove} drops the sentinel
 * under the same lock, so a read that started before the write can no longer install the partition it
 * read (its {@code replace} finds no sentinel and fails): after a write is acknowledged no tier serves
 * the partition as it was before it. {@code get} takes no lock: it returns the sentinel if there is
 * one, else whatever the hybrid cache holds, which {@code remove} has already invalidated in both
 * tiers before returning ({@link HybridCache#remove}'s guarantee).
 *
 * <p>Placement: each table's partitions go to flash in the table's own lifetime class
 * ({@link TableClasses}), so the partitions of a write-heavy table and of a read-mostly one never share a
 * segment.
 *
 * <p>Lock order: {@code sentinels}' per-key lock, then the hybrid cache's own (Caffeine's per-key
 * compute, the flash index); nothing calls back into this class from inside them.
 *
 * <p>Capacity: {@link #capacity()} is a field read (Cassandra asks on every read and write);
 * {@link #setCapacity} resizes the DRAM tier; capacity 0 empties both tiers, because Cassandra stops
 * invalidating the row cache on writes while its capacity is 0.
 *
 * <p>Close ({@code start=warm} only: the provider runs {@link #close} as a post-shutdown hook of
 * Cassandra's drain). Every method passes a {@link CloseGate}; {@link #close} shuts it, waits for the
 * calls inside, then closes the hybrid cache. A call that arrives later never reaches the closed cache
 * and never throws into Cassandra: a read is a miss, a put or replace does nothing, and an invalidation
 * ({@code remove}, {@code clear}, the {@code keyIterator} of a TRUNCATE or DROP, capacity 0) is
 * refused: counted ({@link #refusedInvalidations()}, JMX), logged once, and it forbids a warm start
 * (the {@link WarmStartMarker} is written at close only if none was refused, and deleted by the first
 * one refused after that).
 */
public final class HybridRowCache implements ICache<RowCacheKey, IRowCacheEntry>, AutoCloseable,
    HybridRowCacheMXBean {
  private static final Logger LOG = LoggerFactory.getLogger(HybridRowCache.class);

  private final HybridCache cache;
  private final RowCacheCodec codec;
  private final ConcurrentHashMap<RowCacheKey, Pending> sentinels = new ConcurrentHashMap<>();
  private final InvalidationRecords records;
  private final InvalidationHooks hooks; // null: every keyIterator() is a full scan
  private final ToLongFunction<RowCacheKey> tokenOf;
  private final TableClasses classes;
  private final java.util.concurrent.Callable<String> fingerprint; // null: never allows a warm start
  private final CachingChanges caching; // null: never allows a warm start
  private final long startEpoch;
  private final LongAdder lazyInvalidations = new LongAdder();
  private final LongAdder scanInvalidations = new LongAdder();
  private final LongAdder staleMisses = new LongAdder();
  private final LongAdder undecodable = new LongAdder();
  private final CloseGate gate = new CloseGate();
  private final WarmStartMarker marker; // null: never allows a warm start
  private final boolean startedWarm;
  private final AtomicLong refused = new AtomicLong();
  private final LongAdder ignoredAfterClose = new LongAdder();
  private final Object markerLock = new Object();
  private boolean markerWritten; // guarded by markerLock
  private volatile boolean closed;
  private volatile long capacity;
  private volatile ObjectName mbeanName;

  /**
   * @param marker written at a close that refused no invalidation, so the next start may be warm; null
   *     for a cache whose next start is cold anyway
   * @param startedWarm whether this cache kept the previous run's flash tier (reported on JMX)
   * @param classes the lifetime class each table's partitions go to flash in
   */
  HybridRowCache(HybridCache cache, RowCacheCodec codec, long capacity, WarmStartMarker marker, boolean startedWarm,
      InvalidationRecords records, InvalidationHooks hooks, ToLongFunction<RowCacheKey> tokenOf,
      TableClasses classes) {
    this(cache, codec, capacity, marker, startedWarm, records, hooks, tokenOf, classes, null, null);
  }

  /**
   * As above, for a cache whose next start may be warm.
   *
   * @param fingerprint the durable state a warm start must find unchanged ({@link SSTableFingerprint}),
   *     written into the marker at close; null: no marker
   * @param caching the listener of this run's caching changes ({@link CachingChanges}, registered);
   *     unregistered at close; null: no marker
   */
  HybridRowCache(HybridCache cache, RowCacheCodec codec, long capacity, WarmStartMarker marker, boolean startedWarm,
      InvalidationRecords records, InvalidationHooks hooks, ToLongFunction<RowCacheKey> tokenOf,
      TableClasses classes, java.util.concurrent.Callable<String> fingerprint, CachingChanges caching) {
    this.fingerprint = fingerprint;
    this.caching = caching;
    this.classes = classes;
    this.cache = cache;
    this.records = records;
    this.hooks = hooks;
    this.tokenOf = tokenOf;
    this.startEpoch = records.now();
    this.codec = codec;
    this.capacity = capacity;
    this.marker = marker;
    this.startedWarm = startedWarm;
  }

  /** A read in flight: Cassandra's sentinel and the epoch the read started at. */
  private record Pending(RowCacheSentinel sentinel, long epoch) {}

  /** The hybrid cache underneath (its stats and JMX bean carry the per-tier figures). */
  public HybridCache hybridCache() {
    return cache;
  }

  /** Values found but not servable (other messaging version, dropped table) and dropped as misses. */
  public long undecodable() {
    return undecodable.sum();
  }

  /** Range and table invalidations applied as records, without reading flash ({@link InvalidationHooks}). */
  public long lazyInvalidations() {
    return lazyInvalidations.sum();
  }

  /** Invalidations that walked every key of both tiers (cleanup, or a caller the hooks did not recognise). */
  public long scanInvalidations() {
    return scanInvalidations.sum();
  }

  /** Entries found older than an invalidation record covering them, and dropped as misses. */
  public long staleMisses() {
    return staleMisses.sum();
  }

  /** The lazy invalidation records (tests). */
  InvalidationRecords records() {
    return records;
  }

  /** Invalidations that arrived after close began and were not applied (each forbids a warm start). */
  public long refusedInvalidations() {
    return refused.get();
  }

  /** Reads, puts and replaces that arrived after close began (misses and no-ops; harmless). */
  public long ignoredAfterClose() {
    return ignoredAfterClose.sum();
  }

  /**
   * Runs {@code body} inside the gate. After close began (or if the cache closed under a call that
   * outlived close's wait) returns {@code whenClosed} instead, counting the call: as a refused
   * invalidation if {@code invalidation} names one, else as ignored.
   */
  private <T> T gated(Supplier<T> body, T whenClosed, String invalidation) {
    if (!gate.enter()) {
      return afterClose(whenClosed, invalidation);
    }
    try {
      return body.get();
    } catch (IllegalStateException e) {
      if (!gate.closed()) {
        throw e;
      }
      return afterClose(whenClosed, invalidation); // the hybrid cache closed under this call
    } finally {
      gate.exit();
    }
  }

  private <T> T afterClose(T result, String invalidation) {
    if (invalidation == null) {
      ignoredAfterClose.increment();
    } else {
      refuse(invalidation);
    }
    return result;
  }

  /** Counts a refused invalidation; the first is logged, and a warm-start marker already written goes. */
  private void refuse(String what) {
    long n = refused.incrementAndGet();
    if (n == 1) {
      LOG.warn("{}: {} arrived after the row cache closed (Cassandra still changing data after its drain):"
          + " not applied, counted in RefusedInvalidations; the next start will be cold", name(), what);
    }
    synchronized (markerLock) {
      if (markerWritten) {
        markerWritten = false;
        IOException e = marker.delete();
        if (e != null) {
          LOG.error("{}: could not remove {} after a refused invalidation ({}): delete it before the next start,"
              + " or that start will serve partitions older than this write", name(), marker.file(), e.toString());
        } else {
          LOG.warn("{}: removed {}: the next start will be cold", name(), marker.file());
        }
      }
    }
  }

  private String name() {
    return cache.config().name();
  }

  @Override
  public IRowCacheEntry get(RowCacheKey key) {
    return gated(() -> getInside(key), null, null);
  }

  /**
   * The sentinel of a read in flight, else the stored partition. The partition is decoded from the cache's
   * own bytes ({@link HybridCache#readArray}: no copy of the value on a DRAM hit or a flash hit), which
   * is safe because {@code CachedPartition.cacheSerializer} copies every byte it keeps out of its input
   * ({@code EmbeddedRowCacheTest.aDecodedPartitionSharesNoBytesWithTheCache}) and only reads it.
   */
  private IRowCacheEntry getInside(RowCacheKey key) {
    Pending s = sentinels.get(key);
    if (s != null) {
      return s.sentinel();
    }
    byte[] k = codec.key(key);
    Object found = cache.readArray(k, v -> staleByRecord(key, v) ? Unservable.STALE : decode(key, v));
    if (found == null || found instanceof CachedPartition) {
      return (CachedPartition) found;
    }
    if (found == Unservable.UNDECODABLE) {
      undecodable.increment();
    }
    dropUnlessPending(key, k); // outside the read: the cache is not called back from inside its decoder
    return null;
  }

  /** Why a stored value was not served. */
  private enum Unservable { STALE, UNDECODABLE }

  private Object decode(RowCacheKey key, byte[] v) {
    CachedPartition p = codec.value(key, v);
    return p != null ? p : Unservable.UNDECODABLE;
  }

  /**
   * Whether the hybrid cache holds {@code k} in a version no record makes stale: an index look-up, plus a
   * read of the value only for a table with invalidation records (a stale value found is removed).
   * Called inside {@code sentinels.compute} for {@code key}, or without a lock (containsKey).
   */
  private boolean holdsServable(RowCacheKey key, byte[] k) {
    if (!cache.containsKey(k)) {
      return false;
    }
    if (!records.has(key.tableId)) {
      return true;
    }
    Boolean stale = cache.readArray(k, v -> staleByRecord(key, v));
    if (stale == null) {
      return false;
    }
    if (stale) {
      cache.remove(k);
      return false;
    }
    return true;
  }

  /** Whether an invalidation record covers value {@code v} of {@code key} (counted in {@link #staleMisses()}). */
  private boolean staleByRecord(RowCacheKey key, byte[] v) {
    long epoch = RowCacheCodec.epoch(v);
    if (epoch != Long.MIN_VALUE && records.stale(key.tableId, epoch, () -> tokenOf.applyAsLong(key))) {
      staleMisses.increment();
      return true;
    }
    return false;
  }

  /** Removes a stored value found unservable, so the next read may cache the partition again. */
  private void dropUnlessPending(RowCacheKey key, byte[] k) {
    sentinels.compute(key, (kk, cur) -> {
      if (cur == null) {
        cache.remove(k);
      }
      return cur;
    });
  }

  /** Loading saved keys. After close: nothing (the value of the key stays what it was, invalidated or not). */
  @Override
  public void put(RowCacheKey key, IRowCacheEntry value) {
    byte[] k = codec.key(key);
    byte[] v = encode(value, startEpoch); // read at an unknown time since this start: older than every record
    gated(() -> {
      watch(key);
      return sentinels.compute(key, (kk, cur) -> {
        if (value instanceof RowCacheSentinel s) {
          cache.remove(k);
          return new Pending(s, records.now());
        }
        cache.put(k, v, classes.of(key.tableId));
        return null;
      });
    }, null, null);
  }

  @Override
  public boolean putIfAbsent(RowCacheKey key, IRowCacheEntry value) {
    return gated(() -> putIfAbsentInside(key, value), false, null);
  }

  private boolean putIfAbsentInside(RowCacheKey key, IRowCacheEntry value) {
    byte[] k = codec.key(key);
    byte[] v = encode(value, startEpoch);
    boolean[] done = {false};
    watch(key);
    sentinels.compute(key, (kk, cur) -> {
      if (cur != null || holdsServable(key, k)) {
        return cur;
      }
      done[0] = true;
      if (value instanceof RowCacheSentinel s) {
        return new Pending(s, records.now()); // the read starts now: its partition is stamped with this
      }
      cache.put(k, v, classes.of(key.tableId));
      return null;
    });
    return done[0];
  }

  @Override
  public boolean replace(RowCacheKey key, IRowCacheEntry old, IRowCacheEntry value) {
    return gated(() -> replaceInside(key, old, value), false, null);
  }

  private boolean replaceInside(RowCacheKey key, IRowCacheEntry old, IRowCacheEntry value) {
    byte[] k = codec.key(key);
    byte[] v = encode(value, startEpoch);
    byte[] expected = encode(old, startEpoch);
    boolean[] done = {false};
    watch(key);
    sentinels.compute(key, (kk, cur) -> {
      if (old instanceof RowCacheSentinel) {
        if (cur == null || !old.equals(cur.sentinel())) {
          return cur; // a write (remove), clear or another reader's sentinel came first
        }
      } else if (cur != null
          || !Boolean.TRUE.equals(cache.readArray(k, stored -> RowCacheCodec.sameContent(stored, expected)))) {
        return cur;
      }
      done[0] = true;
      if (value instanceof RowCacheSentinel s) {
        cache.remove(k);
        return new Pending(s, records.now());
      }
      // a partition read under our sentinel carries the epoch the read started at: if an invalidation was
      // recorded since, the partition may predate it and reads as stale
      cache.put(k, v == null ? null : cur != null ? RowCacheCodec.stamp(v, cur.epoch()) : v, classes.of(key.tableId));
      return null;
    });
    return done[0];
  }

  /** A write's invalidation: both tiers before it returns; refused (counted, never thrown) after close. */
  @Override
  public void remove(RowCacheKey key) {
    byte[] k = codec.key(key);
    gated(() -> sentinels.compute(key, (kk, cur) -> {
      cache.remove(k);
      return null;
    }), null, "a write's invalidation (remove)");
  }

  @Override
  public void clear() {
    gated(() -> {
      clearInside();
      return null;
    }, null, "clear (nodetool invalidaterowcache)");
  }

  private void clearInside() {
    sentinels.clear();
    cache.clear();
  }

  @Override
  public boolean containsKey(RowCacheKey key) {
    return gated(() -> sentinels.containsKey(key) || holdsServable(key, codec.key(key)), false, null);
  }

  /**
   * The keys Cassandra walks to invalidate. When {@link InvalidationHooks} recognises the call as the
   * invalidation a stream, TRUNCATE or DROP of this thread just announced, that invalidation is recorded
   * ({@link InvalidationRecords}: older entries in its bounds read as misses) and only the keys with a
   * sentinel are returned: no flash read, nothing a device error can cut short (counted in
   * {@link #lazyInvalidations()}). Otherwise (cleanup, cache saving, an unrecognised caller): keys with a
   * sentinel, then every key of both tiers ({@link HybridCache#keys()}: a sequential pass over flash),
   * counted in {@link #scanInvalidations()}. {@code remove()} removes the last key returned from both
   * tiers. After close it is empty, and one that close cuts short ends early, each counted as a refused
   * invalidation.
   */
  @Override
  public Iterator<RowCacheKey> keyIterator() {
    return gated(this::keyIteratorInside, Collections.emptyIterator(), "a TRUNCATE or DROP key scan");
  }

  private Iterator<RowCacheKey> keyIteratorInside() {
    Iterator<RowCacheKey> pending = new ArrayList<>(sentinels.keySet()).iterator();
    InvalidationHooks.Arm arm = hooks == null ? null : hooks.claim();
    Iterator<byte[]> stored;
    if (arm != null) {
      hooks.apply(arm); // recorded again now: entries read before this moment are older than the record
      lazyInvalidations.increment();
      stored = Collections.emptyIterator();
    } else {
      scanInvalidations.increment();
      stored = cache.keys();
    }
    return new Iterator<>() {
      private RowCacheKey next; // fetched inside the gate by hasNext, so next() never touches the cache
      private RowCacheKey last;
      private boolean done;

      @Override
      public boolean hasNext() {
        if (next == null && !done) {
          next = gated(() -> pending.hasNext() ? pending.next() : stored.hasNext() ? codec.key(stored.next()) : null,
              null, "a TRUNCATE or DROP key scan (cut short by close)");
          done = next == null;
        }
        return next != null;
      }

      @Override
      public RowCacheKey next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        last = next;
        next = null;
        return last;
      }

      @Override
      public void remove() {
        if (last == null) {
          throw new IllegalStateException("next() first");
        }
        HybridRowCache.this.remove(last);
        last = null;
      }
    };
  }

  /** The DRAM tier's hottest keys (Caffeine's frequency sketch): no flash I/O. None after close. */
  @Override
  public Iterator<RowCacheKey> hotKeyIterator(int n) {
    return gated(() -> {
      List<RowCacheKey> keys = new ArrayList<>();
      for (byte[] k : cache.hottestKeys(n)) {
        keys.add(codec.key(k));
      }
      return keys.iterator();
    }, Collections.emptyIterator(), null);
  }

  @Override
  public long capacity() {
    return capacity;
  }

  @Override
  public void setCapacity(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("row cache capacity must be >= 0, was " + bytes);
    }
    capacity = bytes;
    gated(() -> {
      cache.setDramCapacity(Math.max(CacheConfig.MIB, bytes));
      if (bytes == 0) {
        clearInside();
      }
      return null;
    }, null, bytes == 0 ? "setCapacity(0)" : null);
  }

  /** Entries of both tiers plus pending sentinels (a partition promoted to DRAM counts in both tiers). */
  @Override
  public int size() {
    CacheStats s = cache.stats(); // answered while closing too, and with the last figures once closed
    return (int) Math.min(Integer.MAX_VALUE, s.dramEntries() + s.flashEntries() + sentinels.size());
  }

  /** Bytes held: the DRAM tier's weighted bytes plus the flash tier's live bytes. */
  @Override
  public long weightedSize() {
    CacheStats s = cache.stats(); // answered while closing too, and with the last figures once closed
    return s.dramWeightedBytes() + s.flashLiveBytes();
  }

  @Override
  public long getTooLargeRejected() {
    return cache.stats().tooLargeRejected();
  }

  @Override
  public long getUndecodable() {
    return undecodable();
  }

  @Override
  public long getRefusedInvalidations() {
    return refusedInvalidations();
  }

  @Override
  public long getLazyInvalidations() {
    return lazyInvalidations();
  }

  @Override
  public long getScanInvalidations() {
    return scanInvalidations();
  }

  @Override
  public long getStaleMisses() {
    return staleMisses();
  }

  @Override
  public boolean isStartedWarm() {
    return startedWarm;
  }

  @Override
  public boolean isClosed() {
    return closed;
  }

  /** Registers {@link HybridRowCacheMXBean} as {@code io.hybridcache:type=CassandraRowCache,name="NAME"}. */
  void registerMBean() {
    try {
      ObjectName n = new ObjectName("io.hybridcache:type=CassandraRowCache,name=" + ObjectName.quote(name()));
      if (!ManagementFactory.getPlatformMBeanServer().isRegistered(n)) {
        ManagementFactory.getPlatformMBeanServer().registerMBean(this, n);
        mbeanName = n;
      }
    } catch (JMException e) {
      LOG.warn("{}: JMX registration failed: {}", name(), e.toString());
    }
  }

  /**
   * Notes the key's table as having entries ({@link InvalidationRecords#noteStored}) and subscribes to it
   * ({@link InvalidationHooks#watch}) before its first entry is stored.
   */
  private void watch(RowCacheKey key) {
    records.noteStored(key.tableId);
    if (hooks != null) {
      hooks.watch(key.tableId);
    }
  }

  private byte[] encode(IRowCacheEntry value, long epoch) {
    if (value instanceof CachedPartition p) {
      return RowCacheCodec.stamp(codec.value(p), epoch);
    }
    if (value instanceof RowCacheSentinel) {
      return null;
    }
    throw new IllegalArgumentException("not a row cache entry: " + value);
  }

  /**
   * Closes: shuts the gate, waits for the calls inside (up to the cache's close timeout), closes the
   * hybrid cache (dirty DRAM entries, and clean ones flash no longer holds, written to flash, index saved), then writes the
   * {@link WarmStartMarker} if every call left in time and no invalidation was refused. Idempotent;
   * never throws (it runs inside Cassandra's drain).
   */
  @Override
  public void close() {
    if (!gate.shut()) {
      return;
    }
    try {
      boolean drained = gate.awaitEmpty(System.nanoTime() + cache.config().closeTimeout().toNanos());
      cache.close();
      closed = true;
      if (caching != null) {
        caching.unregister(); // a change from now on is after Cassandra's drain: nothing of it is durable
      }
      synchronized (markerLock) {
        long n = refused.get();
        if (marker == null) {
          LOG.info("{}: closed", name());
        } else if (!drained || n > 0 || records.ranges() > 0 || fingerprint == null || caching == null
            || !caching.complete()) {
          LOG.warn("{}: closed, but {}: the next start will be cold", name(),
              !drained ? "calls into the row cache did not finish in time" : n > 0 ? n + " invalidation(s) were refused"
                  : records.ranges() > 0 ? records.ranges() + " token range invalidation record(s) (incoming streams),"
                  + " which live in memory only" : "a caching change of a table may not have been recorded");
        } else {
          writeMarker();
        }
      }
    } catch (RuntimeException | Error e) {
      LOG.error("{}: close failed: the next start will be cold", name(), e);
    } finally {
      if (mbeanName != null) {
        try {
          ManagementFactory.getPlatformMBeanServer().unregisterMBean(mbeanName);
        } catch (JMException e) {
          LOG.debug("JMX unregister failed", e);
        }
      }
    }
  }

  /**
   * Writes the {@link WarmStartMarker} (under {@code markerLock}): a floor for every table with entries on
   * flash that does not cache rows now ({@link CachingChanges#floorTablesNotCachingRows}), then the clock,
   * the sstable fingerprint, the tables with entries and their floors, so the next start may be warm and
   * carries them over. A fingerprint that fails or takes longer than its deadline: no marker.
   */
  private void writeMarker() {
    String sstables;
    int notCaching;
    java.util.Set<org.apache.cassandra.schema.TableId> stored = records.storedTables();
    try {
      notCaching = CachingChanges.floorTablesNotCachingRows(records, stored);
      sstables = fingerprint.call();
    } catch (Exception e) {
      LOG.warn("{}: closed, but could not record the tables' caching or the live sstables ({}): the next start will"
          + " be cold", name(), e.toString());
      return;
    }
    StringBuilder content = new StringBuilder("clean close after Cassandra's drain at " + Instant.now()
        + ", 0 invalidations refused, " + stored.size() + " table(s) with entries, " + notCaching
        + " of them not caching rows\n");
    content.append(WarmStartMarker.FORMAT).append(WarmStartMarker.CURRENT_FORMAT).append('\n');
    content.append(WarmStartMarker.EPOCH).append(records.now()).append('\n');
    content.append(WarmStartMarker.SSTABLES).append(sstables).append('\n');
    for (org.apache.cassandra.schema.TableId id : stored) {
      content.append(WarmStartMarker.STORED).append(id.asUUID()).append('\n');
    }
    records.floors().forEach((id, epoch) -> {
      if (stored.contains(id)) { // a table with nothing on flash needs no floor
        content.append(WarmStartMarker.FLOOR).append(id.asUUID()).append(' ').append(epoch).append('\n');
      }
    });
    IOException e = marker.write(content.toString());
    markerWritten = e == null;
    if (e != null) {
      LOG.warn("{}: closed, but could not write {} ({}): the next start will be cold", name(), marker.file(),
          e.toString());
    } else {
      LOG.info("{}: closed with no invalidation refused: the next start may be warm ({} live sstables)", name(),
          SSTableFingerprint.count(sstables));
    }
  }
}
