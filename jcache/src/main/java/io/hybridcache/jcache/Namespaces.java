package io.hybridcache.jcache;

import io.hybridcache.core.device.AtomicFile;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import javax.cache.CacheException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The namespace table of one manager directory: cache name to (id, epoch), in {@code namespaces.properties}
 * ({@code name=id.epoch}), replaced atomically (a temp file renamed over it) before a new id or epoch is used, so a
 * cleared or destroyed cache's entries never come back after a restart. Beside the names, keys starting with NUL
 * (no cache name of the table does): the directory id, the {@code cache-version} the table was written
 * under and the next namespace id. Thread-safe: state under {@code this}, the table's writes one at a time under
 * {@code writeLock}; concurrent bumps (clears) share one write ({@link #bump}: group commit).
 *
 * <p>Durability follows the engine's ({@code durability}, {@link ManagerSettings}). Under {@code POWER} each write
 * is forced to the device before the new id or epoch is used (the engine is warm after a power loss, so the table
 * must be too). Otherwise no write is forced: a process kill keeps what was written and renamed (the kernel's page
 * cache survives it), and after an OS crash or power loss the engine starts cold (an unclean stop seen in another
 * boot), so a table that lost its last writes has no entries to mis-attribute; clears one after another cost no
 * sync each. A clean close forces the table once ({@link #syncAtClose}) before the engine's own clean close makes
 * the engine warm after any later stop. A table an OS crash tore, emptied or garbled is told apart by its checksum
 * ({@link PropertiesFile.Damaged}) and treated as lost, with a WARN naming it: a new generation, as below, so no
 * cache can map to another cache's entries or an older epoch's, whether the engine came back cold or warm.
 *
 * <p>A new generation ({@link #open}): when the table is missing or damaged, is not the engine's (its directory id
 * is not the one {@link EngineMark} keeps in the engine's directory) or was written under another
 * {@code cache-version}, every name is forgotten and namespace ids go on from the highest either side
 * has recorded, so no cache can meet an entry of an earlier generation (its own or another cache's): O(1),
 * no scan; the old entries are never read and the engine evicts them as it evicts any cold entry. Only an
 * engine with neither a table nor a mark (or a mark lost beside a table that has an id), whose ids nothing
 * bounds, is emptied ({@code HybridCache.clear()}). A table of an earlier version of the provider (no
 * directory id) beside an engine without a mark is trusted once and given an id, so an upgrade stays warm. The
 * mark is always forced: it is written only when a new namespace id is handed out, and it bounds them all.
 */
final class Namespaces {
  static final String FILE = "namespaces.properties";
  private static final Logger LOG = LoggerFactory.getLogger(Namespaces.class);
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String DIRECTORY_ID = "\0directory-id";
  private static final String CACHE_VERSION = "\0cache-version";
  private static final String NEXT_ID = "\0next-id";

  private final Path file;
  private final Path engineDirectory;
  private final String directoryId;
  private final String cacheVersion;
  private final Map<String, Namespace> byName;
  private int nextId;
  /** Each write forced to the device ({@code durability=POWER}, or once {@link #syncAtClose} ran). */
  private volatile boolean force;
  /** A write not forced yet, for {@link #syncAtClose}. Guarded by {@code writeLock}. */
  private boolean unsynced;
  /**
   * Held by the one thread writing the table (a bump's group write, a new namespace): writes never overtake one
   * another. Lock order: {@code writeLock}, then {@code this}.
   */
  private final Object writeLock = new Object();
  /** Bumps asked for and not yet taken by a write: the epoch each namespace moves to. Guarded by {@code this}. */
  private final Map<Namespace, Integer> pending = new HashMap<>();
  /** The epochs the write under way makes durable (empty when none). Guarded by {@code this}. */
  private Map<Namespace, Integer> writing = Map.of();
  /** Bumps asked for, and how many of the first of them are durable. Guarded by {@code this}. */
  private long requested;
  private long durable;
  /** Tests: writes of the table (each a replace, forced or not: {@link #force}) since open. */
  final java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();
  /** Tests: forces of the table to the device (a forced replace, or the sync of an unforced one) since open. */
  final java.util.concurrent.atomic.AtomicInteger forcedWrites = new java.util.concurrent.atomic.AtomicInteger();
  /** Tests: run by a bump once it is asked for, before it waits for the table's write. */
  volatile Runnable bumpRequested = () -> { };
  /** Tests: run by the thread about to write the table for bumps, before it takes what to write. */
  volatile Runnable beforeBumpWrite = () -> { };

  private Namespaces(Path file, Path engineDirectory, String directoryId, String cacheVersion,
      Map<String, Namespace> byName, int nextId, boolean force) {
    this.force = force;
    this.file = file;
    this.engineDirectory = engineDirectory;
    this.directoryId = directoryId;
    this.cacheVersion = cacheVersion;
    this.byName = byName;
    this.nextId = nextId;
  }

  /**
   * The table of {@code directory} for the engine in {@code engineDirectory} (open), under {@code cacheVersion}
   * (null if not set): the recorded one if it is the engine's and of that version, else a new generation.
   *
   * @param engineExisted whether the engine's directory existed before the engine opened (it may hold entries)
   * @param force whether each write of the table is forced to the device (the engine's durability is POWER)
   * @param clearEngine empties the engine, for the one case no recorded id bounds its keys
   */
  static Namespaces open(Path directory, Path engineDirectory, String cacheVersion, boolean engineExisted,
      boolean force, Runnable clearEngine) {
    Path file = directory.resolve(FILE);
    Properties table;
    String damaged = null;
    try {
      table = PropertiesFile.read(file);
    } catch (PropertiesFile.Damaged e) {
      table = null; // an OS crash's unforced write: lost, as a missing table
      damaged = e.getMessage();
    } catch (IOException e) {
      throw new CacheException("cannot read " + file, e);
    }
    EngineMark.Mark mark = EngineMark.read(engineDirectory);
    Map<String, Namespace> byName = new HashMap<>();
    int tableNext = table == null ? 0 : parse(file, table, byName);
    String tableId = table == null ? null : table.getProperty(DIRECTORY_ID);
    int next = Math.max(tableNext, mark == null ? 0 : mark.nextId());
    String why = null;
    if (damaged != null) {
      why = "the namespace table is not trusted: " + damaged + " (an OS crash or power loss during its write)";
    } else if (table == null) {
      why = engineExisted || mark != null ? "there is no namespace table " + file : null;
    } else if (tableId == null ? mark != null : mark == null || !tableId.equals(mark.directoryId())) {
      why = "the namespace table " + file + " is not the one written with the engine in " + engineDirectory
          + " (directory id " + tableId + ", the engine's " + (mark == null ? "none" : mark.directoryId()) + ")";
    } else if (!Objects.equals(table.getProperty(CACHE_VERSION), cacheVersion)) {
      why = "cache-version is " + describe(cacheVersion) + ", the directory's entries are of "
          + describe(table.getProperty(CACHE_VERSION));
    }
    if (why == null && table != null && tableId != null) {
      return new Namespaces(file, engineDirectory, tableId, cacheVersion, byName, next, force);
    }
    boolean unbounded = engineExisted && mark == null && (table == null || tableId != null);
    if (unbounded) {
      clearEngine.run(); // nothing records which namespace ids its keys hold
    }
    if (why != null) {
      String message = "CacheManager directory {}: {}: every cache starts empty (a new namespace generation{})";
      String how = unbounded ? "; the engine was emptied, nothing recorded which ids its entries hold" : ", no scan";
      if (damaged != null) {
        LOG.warn(message, directory, why, how);
      } else {
        LOG.info(message, directory, why, how);
      }
      byName.clear();
    }
    Namespaces fresh = new Namespaces(file, engineDirectory, newDirectoryId(), cacheVersion, byName, next, force);
    synchronized (fresh) {
      fresh.persistLocked();
    }
    return fresh;
  }

  private static String describe(String version) {
    return version == null ? "none (not set)" : version;
  }

  private static String newDirectoryId() {
    byte[] id = new byte[16];
    RANDOM.nextBytes(id);
    return HexFormat.of().formatHex(id);
  }

  /** Reads the table's namespaces into {@code byName}; returns its next id. */
  private static int parse(Path file, Properties p, Map<String, Namespace> byName) {
    int next = 0;
    for (String name : p.stringPropertyNames()) {
      String v = p.getProperty(name);
      try {
        if (name.equals(NEXT_ID)) {
          next = Math.max(next, Integer.parseInt(v));
        } else if (!name.startsWith("\0")) {
          int dot = v.indexOf('.');
          int id = Integer.parseInt(v.substring(0, dot));
          int epoch = Integer.parseInt(v.substring(dot + 1));
          byName.put(name, new Namespace(name, id, epoch));
          next = Math.max(next, id + 1);
        }
      } catch (RuntimeException e) {
        throw new CacheException(file + ": bad namespace entry " + name + "=" + v, e);
      }
    }
    return next;
  }

  /** The namespace of {@code cacheName}, made (and persisted: the engine's mark first) on first use. */
  Namespace of(String cacheName) {
    synchronized (writeLock) { // after any bump's write under way, with the epochs it made durable
      synchronized (this) {
        Namespace ns = byName.get(cacheName);
        if (ns == null) {
          ns = new Namespace(cacheName, nextId++, 0);
          byName.put(cacheName, ns);
          persistLocked();
        }
        return ns;
      }
    }
  }

  /** The namespace of {@code cacheName} if it has one, else null (nothing is made). */
  synchronized Namespace find(String cacheName) {
    return byName.get(cacheName);
  }

  /**
   * Moves {@code ns} to a new epoch, persisted before it is used: every entry of the old one is dropped. Group
   * commit: bumps asked for while another bump writes the table wait for that write, then the first of them writes
   * once for all (one synced replace for any number of concurrent clears); each returns once its epoch is in the
   * table on disk, as before. Two bumps of one namespace waiting together share one new epoch (each drops every
   * entry written before it was asked).
   *
   * @throws CacheException if the table cannot be written (the bump stays asked for: a later write makes it)
   */
  void bump(Namespace ns) {
    long ticket;
    synchronized (this) {
      pending.putIfAbsent(ns, writing.getOrDefault(ns, ns.epoch()) + 1);
      ticket = ++requested;
    }
    bumpRequested.run();
    synchronized (writeLock) {
      synchronized (this) {
        if (durable >= ticket) {
          return; // a write that took this bump is done
        }
      }
      beforeBumpWrite.run();
      Map<Namespace, Integer> taken;
      Properties p;
      long upTo;
      synchronized (this) {
        taken = new HashMap<>(pending);
        pending.clear();
        writing = taken;
        upTo = requested;
        p = snapshotLocked();
        taken.forEach((n, epoch) -> p.setProperty(n.name(), n.id() + "." + epoch));
      }
      try {
        write(p);
      } catch (RuntimeException | Error e) {
        synchronized (this) {
          writing = Map.of();
          taken.forEach(pending::putIfAbsent); // the waiting bumps write them again
        }
        throw e;
      }
      synchronized (this) {
        taken.forEach(Namespace::setEpoch);
        writing = Map.of();
        durable = upTo;
      }
    }
  }

  private Properties snapshotLocked() {
    Properties p = new Properties();
    for (Namespace ns : byName.values()) {
      p.setProperty(ns.name(), ns.id() + "." + ns.epoch());
    }
    p.setProperty(DIRECTORY_ID, directoryId);
    p.setProperty(NEXT_ID, Integer.toString(nextId));
    if (cacheVersion != null) {
      p.setProperty(CACHE_VERSION, cacheVersion);
    }
    return p;
  }

  /** Writes the engine's mark (first: it bounds every id the table hands out), then the table. */
  private void persistLocked() {
    try {
      EngineMark.write(engineDirectory, new EngineMark.Mark(directoryId, nextId));
    } catch (IOException e) {
      throw new CacheException("cannot write the namespace mark in " + engineDirectory, e);
    }
    write(snapshotLocked());
  }

  /** Writes the table, forced if {@link #force}; called holding {@code writeLock} (or before the table is shared). */
  private void write(Properties p) {
    boolean forced = force;
    try {
      PropertiesFile.write(file, p, "hybridcache JCache namespaces: cache name = id.epoch", forced);
    } catch (IOException e) {
      throw new CacheException("cannot write " + file, e);
    }
    writes.incrementAndGet();
    if (forced) {
      forcedWrites.incrementAndGet();
    }
    unsynced = !forced;
  }

  /**
   * A clean close: forces the table if a write was not forced, before the engine's clean close (after which the
   * engine is warm after any stop, so the table must be on the device); each later write is forced. Should the
   * force fail, the engine's mark is deleted, so the next open empties the engine rather than trust the table.
   */
  void syncAtClose() {
    synchronized (writeLock) {
      force = true;
      if (!unsynced) {
        return;
      }
      try {
        AtomicFile.sync(file);
        forcedWrites.incrementAndGet();
        unsynced = false;
      } catch (IOException | RuntimeException e) {
        LOG.warn("cannot force {} to the device at close: the engine's mark is deleted, so the next open starts every "
            + "cache empty (the engine emptied) rather than trust a table a power loss may have cut", file, e);
        try {
          EngineMark.delete(engineDirectory);
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
          LOG.warn("cannot delete the namespace mark in {} either", engineDirectory, suppressed);
        }
      }
    }
  }
}
