package io.hybridcache.core.catalog;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.device.FileDevice;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongPredicate;

/**
 * The dynamic schema catalogue, thread-safe (CaSSanDra paper, section V): a durable, global mapping between schema
 * ids (monotonic unsigned 32-bit integers, 1..2^32-1) and schema definitions (a namespace and a sorted
 * set of column names), so rows can be stored as a schema id plus values without repeating their
 * column names ({@link RowCodec}).
 *
 * <p>Thread-safe: every method may be called from any number of threads.
 *
 * <p><b>Contract.</b> {@link #idFor} returns the id of an existing definition at once; for a new one it
 * assigns the next id and returns only after the definition's record is on the device (appended and
 * synced), so an id a caller has seen resolves to the same schema after a crash and restart. Many
 * threads asking for the same new schema at once all get the same id. {@link #schema} resolves an id.
 * Ids are never reused for a different schema, also after reclaim and compaction.
 *
 * <p><b>Beyond the paper.</b> A cap on distinct live schemas per namespace (the paper's 2^n explosion
 * of highly variable tables): past it {@code idFor} returns {@link #NO_ID} for new schemas of that
 * namespace and {@link RowCodec} writes those rows with inline names, counted in {@link #stats}.
 * {@link #reclaim} drops definitions no row references any more, given the live ids; {@link #compact}
 * (also run automatically when the log's slots run low) rewrites the live definitions and frees the rest.
 *
 * <p><b>Concurrency.</b> Lookups are lock-free: a {@link ConcurrentHashMap} from namespace + sorted names
 * to {@link Schema} and an {@link IdIndex} from id to {@link Schema}. A new schema is
 * created under {@code assignLock} (in memory only: id, reverse-map entry marked not durable, queue),
 * then its caller waits for durability by group commit: it takes {@code commitLock}; if its schema is
 * not durable yet it becomes the leader, drains the queue (everything enqueued by then), appends every
 * record, syncs once, publishes them all and marks them durable. Callers that queued while a leader was
 * syncing wait on the lock and find their schema durable or lead the next batch. Lock order:
 * {@code commitLock} before {@code assignLock}; the log is touched only under {@code commitLock}.
 *
 * <p><b>Reclaim protocol.</b> {@link #reclaimMark()} starts a reclaim epoch; every {@code idFor}
 * records the epoch on the schema it returns. {@link #reclaim(long, LongPredicate)} drops a definition
 * only if it was not returned by {@code idFor} since the mark and the caller's predicate says no row
 * references it: take the mark, then collect the ids referenced by every stored row
 * ({@link RowCodec#forEachSchemaId}), then reclaim. (A row encoded before the mark must be stored before
 * the collection starts.) Reclaim marks a candidate, then re-reads its last use; {@code idFor} records
 * its use, then re-reads the mark: with volatile accesses on both sides one of them sees the other, so
 * an id is never handed out and dropped at once.
 *
 * <p><b>Format</b>: {@link CatalogRecord} (records) and {@link CatalogLog} (segments, recovery,
 * compaction); {@code src/site/format.md}.
 */
public final class SchemaCatalog implements AutoCloseable {
  /** What {@link #idFor} returns when the namespace is at its cap and the schema is new. */
  public static final long NO_ID = 0;
  /** The largest schema id (unsigned 32-bit). */
  public static final long MAX_ID = 0xFFFF_FFFFL;
  public static final String DEFAULT_NAMESPACE = "default";
  /** Conventional subdirectory of a cache directory for its catalogue (the engine never wipes it). */
  public static final String SUBDIRECTORY = CacheConfig.COMPANION_DIRECTORY;
  /** Longest column name or namespace, in bytes of UTF-8. */
  public static final int MAX_NAME_BYTES = Names.MAX_NAME_BYTES;
  /** Most columns in one schema (and one row level). */
  public static final int MAX_COLUMNS = Names.MAX_COLUMNS;

  private static final byte[] EMPTY = new byte[0];

  private final CatalogConfig config;
  private final ConcurrentHashMap<Schema.Key, Schema> byKey = new ConcurrentHashMap<>();
  /** id -> schema; written under assignLock, read lock-free. */
  private final IdIndex byId = new IdIndex();
  private final ConcurrentHashMap<String, Namespace> namespaces = new ConcurrentHashMap<>();
  /** Lock order: commitLock, then assignLock. Guards the log. */
  private final ReentrantLock commitLock = new ReentrantLock();
  private final Object assignLock = new Object();
  private final CatalogLog log; // commitLock
  private final ArrayDeque<Schema> queue = new ArrayDeque<>(); // assignLock
  private long nextId; // assignLock (read racily by stats)
  private long liveRecordBytes; // assignLock
  private volatile long epoch;
  private final long corruptAtOpen;
  private final LongAdder assigned = new LongAdder();
  private final LongAdder reclaimed = new LongAdder();
  private final LongAdder fallbacks = new LongAdder();
  private volatile boolean closed;

  /** Live definition count and cap of one namespace. */
  private static final class Namespace {
    final int cap;
    long live; // assignLock
    final LongAdder fallbacks = new LongAdder();

    Namespace(int cap) {
      this.cap = cap;
    }
  }

  private SchemaCatalog(CatalogConfig config, CatalogLog log) {
    this.config = config;
    this.log = log;
    CatalogLog.Recovered r = log.recover();
    synchronized (assignLock) {
      for (CatalogRecord.Decoded d : r.defines()) {
        Schema s = new Schema(d.id(), d.namespace(), d.names());
        s.durable = true;
        byKey.put(Schema.Key.of(s.namespace(), s.nameArray()), s);
        namespace(s.namespace()).live++;
        liveRecordBytes += recordBytes(s);
        byId.put(s);
      }
      nextId = r.nextId();
    }
    this.corruptAtOpen = r.corruptRecords();
  }

  /** Opens (creating if needed) the catalogue in {@code directory} with default settings. */
  public static SchemaCatalog open(Path directory) {
    return open(CatalogConfig.builder(directory).build());
  }

  public static SchemaCatalog open(CatalogConfig config) {
    return open(config, FileDevice::open);
  }

  static SchemaCatalog open(CatalogConfig config, CatalogLog.DeviceFactory devices) {
    Objects.requireNonNull(config, "config");
    CatalogLog log;
    try {
      log = CatalogLog.open(config, devices);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open schema catalogue in " + config.directory() + ": " + e.getMessage(), e);
    }
    try {
      return new SchemaCatalog(config, log);
    } catch (RuntimeException e) {
      try {
        log.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  public CatalogConfig config() {
    return config;
  }

  /** {@link #idFor(String, Collection)} in {@link #DEFAULT_NAMESPACE}. */
  public long idFor(Collection<String> columns) {
    return idFor(DEFAULT_NAMESPACE, columns);
  }

  /**
   * The id of the set {@code columns} (any order; sorted here) in {@code namespace}: an existing id at
   * once, or a new one after its definition is durable. Returns {@link #NO_ID} if the schema is new
   * and the namespace is at its cap.
   *
   * @throws IllegalArgumentException a column name is null, empty, longer than {@value #MAX_NAME_BYTES}
   *     bytes of UTF-8, not valid Unicode, or repeated; more than {@value #MAX_COLUMNS} columns; a bad
   *     namespace (same rules as a name)
   * @throws UncheckedIOException the definition could not be made durable (the id is not returned and
   *     never used)
   * @throws IllegalStateException the catalogue is closed, or all 2^32-1 ids are used
   */
  public long idFor(String namespace, Collection<String> columns) {
    Names.check("namespace", namespace);
    return idForSorted(namespace, Names.sortedChecked(columns));
  }

  /** {@link #idFor} for names already validated and sorted (the codec's rows). */
  long idForSorted(String namespace, String[] sortedNames) {
    Schema s = byKey.get(Schema.Key.of(namespace, sortedNames));
    if (s != null && s.durable) {
      touch(s);
      if (!s.reclaimed) {
        return s.id();
      }
    }
    return assign(namespace, sortedNames);
  }

  private long assign(String namespace, String[] sortedNames) {
    checkOpen();
    Schema.Key key = Schema.Key.of(namespace, sortedNames);
    Schema s;
    synchronized (assignLock) {
      s = byKey.get(key);
      if (s == null) {
        Namespace ns = namespace(namespace);
        if (ns.live >= ns.cap) {
          ns.fallbacks.increment();
          fallbacks.increment();
          return NO_ID;
        }
        if (nextId > MAX_ID) {
          throw new IllegalStateException("schema ids exhausted: all " + MAX_ID + " ids were assigned");
        }
        s = new Schema(nextId++, namespace, sortedNames.clone());
        s.lastUsedEpoch = epoch;
        ns.live++;
        byKey.put(Schema.Key.of(namespace, s.nameArray()), s); // the schema's own copy of the names
        queue.add(s);
      }
    }
    awaitDurable(s);
    touch(s);
    return s.id();
  }

  private void touch(Schema s) {
    long e = epoch;
    if (s.lastUsedEpoch < e) {
      s.lastUsedEpoch = e;
    }
  }

  /** Group commit: lead a batch or find the schema committed by the batch that took it. */
  private void awaitDurable(Schema s) {
    while (!s.durable) {
      if (s.failure != null) {
        throw failed(s);
      }
      commitLock.lock();
      try {
        if (!s.durable && s.failure == null) {
          commitBatchLocked();
        }
      } finally {
        commitLock.unlock();
      }
    }
  }

  private UncheckedIOException failed(Schema s) {
    RuntimeException f = s.failure;
    IOException io = f instanceof UncheckedIOException u ? u.getCause() : new IOException(f);
    return new UncheckedIOException("schema " + s.namespace() + Names.abbreviate(s.columns().toString())
        + " could not be made durable in " + config.directory() + ": " + io.getMessage(), io);
  }

  private void commitBatchLocked() {
    checkOpen();
    List<Schema> batch = new ArrayList<>();
    long bytes = 0;
    synchronized (assignLock) {
      while (!queue.isEmpty()) {
        int b = recordBytes(queue.peek());
        if (!batch.isEmpty() && bytes + b > log.maxBatchBytes()) {
          break;
        }
        batch.add(queue.poll());
        bytes += b;
      }
    }
    if (batch.isEmpty()) {
      return;
    }
    try {
      ensureRoomLocked();
      for (Schema s : batch) {
        if (!log.append(CatalogRecord.DEFINE, s.id(), CatalogRecord.defineValue(s.namespace(), s.nameArray()))) {
          throw new IOException("catalogue full: no free segment (raise segmentCount, now " + config.segmentCount()
              + ", or reclaim unused schemas)");
        }
      }
      log.sync();
    } catch (IOException | RuntimeException e) {
      log.abandon();
      RuntimeException f = e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
      synchronized (assignLock) {
        for (Schema s : batch) {
          byKey.remove(Schema.Key.of(s.namespace(), s.nameArray()), s);
          namespace(s.namespace()).live--;
          s.failure = f;
        }
      }
      return;
    }
    synchronized (assignLock) {
      for (Schema s : batch) {
        byId.put(s);
        liveRecordBytes += recordBytes(s);
      }
    }
    for (Schema s : batch) {
      s.durable = true;
    }
    assigned.add(batch.size());
  }

  /** Compacts when the free slots would not hold a compaction plus one new segment. */
  private void ensureRoomLocked() throws IOException {
    long live;
    synchronized (assignLock) {
      live = liveRecordBytes;
    }
    int needed = log.segmentsFor(live);
    if (log.freeSlots() >= needed + 1) {
      return;
    }
    if (log.segments() > needed && log.freeSlots() >= needed) {
      compactLocked();
    }
    if (log.freeSlots() < 1) {
      throw new IOException("catalogue full: " + log.segments() + " of " + config.segmentCount()
          + " segments hold live definitions (raise segmentCount or reclaim unused schemas)");
    }
  }

  /**
   * The schema with {@code id}.
   *
   * @throws UnknownSchemaException if the id was never assigned, was reclaimed, or its record was lost
   */
  public Schema schema(long id) {
    Schema s = lookup(id);
    if (s == null) {
      throw unknown(id);
    }
    return s;
  }

  /** The schema with {@code id}, or null. Lock-free. */
  Schema lookup(long id) {
    return byId.get(id);
  }

  UnknownSchemaException unknown(long id) {
    long next;
    synchronized (assignLock) {
      next = nextId;
    }
    String why;
    if (id <= 0 || id > MAX_ID) {
      why = "is out of range (1.." + MAX_ID + ")";
    } else if (id >= next) {
      why = "was never assigned (next id is " + next + ")";
    } else {
      why = "is not in the catalogue: it was reclaimed, or its record was lost"
          + (corruptAtOpen > 0 ? " (" + corruptAtOpen + " catalogue records failed their checksum at open)" : "");
    }
    return new UnknownSchemaException(id, "schema id " + id + " " + why + " [catalogue " + config.directory() + "]");
  }

  private Namespace namespace(String name) {
    return namespaces.computeIfAbsent(name, n -> new Namespace(config.capFor(n)));
  }

  private static int recordBytes(Schema s) {
    return s.storedBytes();
  }

  // ---- reclaim and compaction ----

  /** Starts a reclaim epoch: schemas {@code idFor} returns from now on are kept by {@link #reclaim}. */
  public long reclaimMark() {
    synchronized (assignLock) {
      return ++epoch;
    }
  }

  /**
   * Drops every definition that {@code idFor} has not returned since {@code mark} and for which
   * {@code referenced} is false; returns how many. The ids are never assigned again. {@code referenced}
   * runs under the catalogue's locks: keep it to a set lookup. See the class comment for the protocol.
   *
   * @throws UncheckedIOException the reclaim records could not be made durable; the definitions are
   *     dropped from memory all the same and may come back at the next open (harmless: same ids, same
   *     schemas)
   */
  public int reclaim(long mark, LongPredicate referenced) {
    Objects.requireNonNull(referenced, "referenced");
    commitLock.lock();
    try {
      checkOpen();
      List<Schema> victims = new ArrayList<>();
      synchronized (assignLock) {
        if (mark <= 0 || mark > epoch) {
          throw new IllegalArgumentException("reclaim mark " + mark + " was not returned by reclaimMark() (epoch " + epoch + ")");
        }
        List<Schema> candidates = new ArrayList<>();
        forEachLive(s -> {
          if (s.lastUsedEpoch < mark && !referenced.test(s.id())) {
            s.reclaimed = true;
            candidates.add(s);
          }
        });
        for (Schema s : candidates) {
          if (s.lastUsedEpoch >= mark) {
            s.reclaimed = false; // idFor returned it meanwhile
          } else {
            victims.add(s);
            byKey.remove(Schema.Key.of(s.namespace(), s.nameArray()), s);
            namespace(s.namespace()).live--;
            liveRecordBytes -= recordBytes(s);
          }
        }
      }
      victims.forEach(byId::remove);
      reclaimed.add(victims.size());
      try {
        for (int i = 0; i < victims.size(); ) {
          ensureRoomLocked();
          int bytes = 0;
          for (; i < victims.size() && bytes < log.maxBatchBytes() / 2; i++) {
            if (!log.append(CatalogRecord.RECLAIM, victims.get(i).id(), EMPTY)) {
              throw new IOException("catalogue full: no free segment for reclaim records");
            }
            bytes += CatalogLog.recordBytes(0);
          }
          log.sync();
        }
      } catch (IOException e) {
        log.abandon();
        throw new UncheckedIOException("reclaim records could not be made durable in " + config.directory(), e);
      }
      return victims.size();
    } finally {
      commitLock.unlock();
    }
  }

  /**
   * Rewrites the live definitions into fresh segments and frees the old ones (ids unchanged; a
   * high-water record keeps reclaimed ids from being reused). Runs automatically when slots run low.
   */
  public void compact() {
    commitLock.lock();
    try {
      checkOpen();
      compactLocked();
    } catch (IOException e) {
      throw new UncheckedIOException("catalogue compaction failed in " + config.directory(), e);
    } finally {
      commitLock.unlock();
    }
  }

  private void compactLocked() throws IOException {
    List<Schema> live = new ArrayList<>();
    long next;
    synchronized (assignLock) {
      forEachLive(live::add);
      next = nextId;
    }
    log.compact(live, next);
  }

  /** Durable, live schemas in id order. */
  private void forEachLive(java.util.function.Consumer<Schema> action) {
    byId.forEach(s -> {
      if (s.durable) {
        action.accept(s);
      }
    });
  }

  // ---- stats, close ----

  public CatalogStats stats() {
    Map<String, CatalogStats.NamespaceStats> ns = new TreeMap<>();
    long live = 0;
    long next;
    synchronized (assignLock) {
      for (Map.Entry<String, Namespace> e : namespaces.entrySet()) {
        Namespace n = e.getValue();
        ns.put(e.getKey(), new CatalogStats.NamespaceStats(n.live, n.cap, n.fallbacks.sum()));
        live += n.live;
      }
      next = nextId;
      live -= queue.size();
    }
    return new CatalogStats(live, next, assigned.sum(), reclaimed.sum(), fallbacks.sum(), log.syncs(),
        log.recordsWritten(), log.compactions(), log.segments(), log.freeSlots(), corruptAtOpen,
        Collections.unmodifiableMap(ns));
  }

  /** Closes the log. Resolving ids keeps working from memory; {@code idFor} of a new schema fails. */
  @Override
  public void close() {
    commitLock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      log.close();
    } catch (IOException e) {
      throw new UncheckedIOException("closing schema catalogue " + config.directory() + " failed", e);
    } finally {
      commitLock.unlock();
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("schema catalogue " + config.directory() + " is closed");
    }
  }

  /** New schemas waiting for a group commit (tests). */
  int pendingCount() {
    synchronized (assignLock) {
      return queue.size();
    }
  }
}
