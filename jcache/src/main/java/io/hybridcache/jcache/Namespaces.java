package io.hybridcache.jcache;

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
 * ({@code name=id.epoch}), replaced atomically and synced before a new id or epoch is used, so a cleared
 * or destroyed cache's entries never come back after a restart. Beside the names, keys starting with NUL
 * (no cache name of the table does): the directory id, the {@code cache-version} the table was written
 * under and the next namespace id. Thread-safe: state under {@code this}, the table's writes one at a time under
 * {@code writeLock}; concurrent bumps (clears) share one write ({@link #bump}: group commit).
 *
 * <p>A new generation ({@link #open}): when the table is missing, is not the engine's (its directory id is
 * not the one {@link EngineMark} keeps in the engine's directory) or was written under another
 * {@code cache-version}, every name is forgotten and namespace ids go on from the highest either side
 * has recorded, so no cache can meet an entry of an earlier generation (its own or another cache's): O(1),
 * no scan; the old entries are never read and the engine evicts them as it evicts any cold entry. Only an
 * engine with neither a table nor a mark (or a mark lost beside a table that has an id), whose ids nothing
 * bounds, is emptied ({@code HybridCache.clear()}). A table of an earlier version of the provider (no
 * directory id) beside an engine without a mark is trusted once and given an id, so an upgrade stays warm.
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
  /** Tests: writes of the table (each a synced replace) since open. */
  final java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();
  /** Tests: run by a bump once it is asked for, before it waits for the table's write. */
  volatile Runnable bumpRequested = () -> { };
  /** Tests: run by the thread about to write the table for bumps, before it takes what to write. */
  volatile Runnable beforeBumpWrite = () -> { };

  private Namespaces(Path file, Path engineDirectory, String directoryId, String cacheVersion,
      Map<String, Namespace> byName, int nextId) {
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
   * @param clearEngine empties the engine, for the one case no recorded id bounds its keys
   */
  static Namespaces open(Path directory, Path engineDirectory, String cacheVersion, boolean engineExisted,
      Runnable clearEngine) {
    Path file = directory.resolve(FILE);
    Properties table;
    try {
      table = PropertiesFile.read(file);
    } catch (IOException e) {
      throw new CacheException("cannot read " + file, e);
    }
    EngineMark.Mark mark = EngineMark.read(engineDirectory);
    Map<String, Namespace> byName = new HashMap<>();
    int tableNext = table == null ? 0 : parse(file, table, byName);
    String tableId = table == null ? null : table.getProperty(DIRECTORY_ID);
    int next = Math.max(tableNext, mark == null ? 0 : mark.nextId());
    String why = null;
    if (table == null) {
      why = engineExisted || mark != null ? "there is no namespace table " + file : null;
    } else if (tableId == null ? mark != null : mark == null || !tableId.equals(mark.directoryId())) {
      why = "the namespace table " + file + " is not the one written with the engine in " + engineDirectory
          + " (directory id " + tableId + ", the engine's " + (mark == null ? "none" : mark.directoryId()) + ")";
    } else if (!Objects.equals(table.getProperty(CACHE_VERSION), cacheVersion)) {
      why = "cache-version is " + describe(cacheVersion) + ", the directory's entries are of "
          + describe(table.getProperty(CACHE_VERSION));
    }
    if (why == null && table != null && tableId != null) {
      return new Namespaces(file, engineDirectory, tableId, cacheVersion, byName, next);
    }
    boolean unbounded = engineExisted && mark == null && (table == null || tableId != null);
    if (unbounded) {
      clearEngine.run(); // nothing records which namespace ids its keys hold
    }
    if (why != null) {
      LOG.info("CacheManager directory {}: {}: every cache starts empty (a new namespace generation{})", directory,
          why, unbounded ? "; the engine was emptied, nothing recorded which ids its entries hold" : ", no scan");
      byName.clear();
    }
    Namespaces fresh = new Namespaces(file, engineDirectory, newDirectoryId(), cacheVersion, byName, next);
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

  private void write(Properties p) {
    try {
      PropertiesFile.write(file, p, "hybridcache JCache namespaces: cache name = id.epoch");
      writes.incrementAndGet();
    } catch (IOException e) {
      throw new CacheException("cannot write " + file, e);
    }
  }
}
