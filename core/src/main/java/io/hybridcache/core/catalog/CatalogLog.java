package io.hybridcache.core.catalog;

import io.hybridcache.core.device.Device;
import io.hybridcache.core.device.DirectoryLock;
import io.hybridcache.core.engine.RecordLog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The catalogue's append-only log, not thread-safe (used under the catalogue's commit lock):
 * records in the engine's {@link RecordLog} on a small device of their own, read back whole at open
 * (CaSSanDra paper, section V: "a collection of segment files, each storing a contiguous subset of
 * schema ID and schema tuples"). This class knows the catalogue's records, not the segment format.
 *
 * <p>Concurrency: every method runs under {@link SchemaCatalog}'s commit lock; the counters are
 * volatile for {@code stats()}.
 *
 * <p>Durability: {@link #sync} writes every buffered record (zero padded to a 4 KiB page, so each group
 * commit costs at least one page) and forces the device; a record counts only after that.
 *
 * <p>Recovery ({@link RecordLog#scan}) returns every segment's verified records and its torn ones: a
 * torn or corrupt record is skipped and counted, which is safe because an id is handed out only after
 * its record was synced; a torn DEFINE's key still raises the next id (bounded by a window). The newest
 * COMPACT record supersedes every segment below its base.
 *
 * <p>Compaction writes every live definition and then a COMPACT record through a {@link
 * RecordLog.Rewrite}, which syncs and only then releases the old segments, so a crash at any point
 * leaves either the old log or the new one complete.
 *
 * <p>Directory: {@code segments/slot-NNNNN.seg} (the device), {@code catalog.properties} (layout),
 * {@code LOCK} (held while open: one process at a time).
 */
final class CatalogLog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CatalogLog.class);
  static final String LAYOUT = "catalog.properties";
  private static final int BUFFER_BYTES = 512 * 1024;
  /** Largest id a corrupt record's key may hint beyond the valid ones before the hint is ignored. */
  private static final long HINT_WINDOW = 1 << 20;

  /** Opens the device a catalogue lives on; tests wrap it. */
  @FunctionalInterface
  interface DeviceFactory {
    Device open(Path directory, int slots, long slotBytes, boolean directIo) throws IOException;
  }

  /** What recovery found. */
  record Recovered(List<CatalogRecord.Decoded> defines, long nextId, long corruptRecords, long supersededSegments) {}

  private final CatalogConfig config;
  private final Device device;
  private final RecordLog log;
  private final DirectoryLock lock;
  // written under the commit lock, read by stats() from any thread
  private volatile long recordsWritten;
  private volatile long syncs;
  private volatile long compactions;

  private CatalogLog(CatalogConfig config, Device device, DirectoryLock lock) {
    this.config = config;
    this.device = device;
    this.lock = lock;
    this.log = new RecordLog(device, config.segmentBytes(), BUFFER_BYTES);
  }

  static CatalogLog open(CatalogConfig config, DeviceFactory devices) throws IOException {
    Path dir = config.directory();
    Files.createDirectories(dir);
    DirectoryLock lock = DirectoryLock.acquire(dir, null); // one process, one open, at a time
    try {
      checkLayout(config);
      Device device = devices.open(dir.resolve("segments"), config.segmentCount(), config.segmentBytes(),
          config.directIo());
      return new CatalogLog(config, device, lock);
    } catch (IOException | RuntimeException e) {
      lock.close();
      throw e;
    }
  }

  Device device() {
    return device;
  }

  /** Largest batch of record bytes one commit takes, so a batch always fits one fresh segment. */
  int maxBatchBytes() {
    return Math.min(BUFFER_BYTES, (config.segmentBytes() - Device.ALIGNMENT) / 2);
  }

  /** Bytes a record occupies in a segment (entry header, key, value, 16-byte alignment). */
  static int recordBytes(int valueBytes) {
    return RecordLog.recordBytes(CatalogRecord.KEY_BYTES, valueBytes);
  }

  // ---- recovery ----

  Recovered recover() {
    List<RecordLog.Found> found = log.scan((slot, why) ->
        LOG.warn("catalogue {}: slot {} skipped ({})", config.directory(), slot, why));
    List<Long> hints = new ArrayList<>();
    long corrupt = 0;
    long base = 0;
    long nextId = 1;
    for (RecordLog.Found f : found) {
      for (byte[] torn : f.tornKeys()) {
        corrupt++; // torn by a crash or damaged
        long hint = CatalogRecord.defineIdHint(torn);
        if (hint >= 0) {
          hints.add(hint);
        }
      }
      for (RecordLog.Record r : f.records()) {
        CatalogRecord.Decoded d = decode(f, r);
        if (d.kind() == CatalogRecord.COMPACT) {
          base = Math.max(base, d.baseSegment());
          nextId = Math.max(nextId, d.nextId());
        } else {
          nextId = Math.max(nextId, d.id() + 1); // ids of superseded segments count too: never reused
        }
      }
    }
    long validNext = nextId;
    for (long hint : hints) {
      if (hint >= validNext && hint < validNext + HINT_WINDOW) {
        nextId = Math.max(nextId, hint + 1); // a damaged last record may have been handed out
      }
    }
    Map<Long, CatalogRecord.Decoded> defines = new LinkedHashMap<>();
    Set<Long> reclaimed = new HashSet<>();
    long superseded = 0;
    for (RecordLog.Found f : found) {
      if (f.segmentId() < base) {
        superseded++;
        log.drop(f);
        continue;
      }
      log.keep(f);
      for (RecordLog.Record r : f.records()) {
        CatalogRecord.Decoded d = decode(f, r);
        if (d.kind() == CatalogRecord.DEFINE) {
          defines.put(d.id(), d);
        } else if (d.kind() == CatalogRecord.RECLAIM) {
          reclaimed.add(d.id());
        }
      }
    }
    reclaimed.forEach(defines::remove);
    log.recovered();
    if (corrupt > 0) {
      LOG.warn("catalogue {}: {} records failed their checksum at open (torn by a crash or damaged); "
          + "their schema ids do not resolve", config.directory(), corrupt);
    }
    return new Recovered(new ArrayList<>(defines.values()), nextId, corrupt, superseded);
  }

  private CatalogRecord.Decoded decode(RecordLog.Found f, RecordLog.Record r) {
    try {
      return CatalogRecord.decode(r.key(), r.value());
    } catch (RowFormatException ex) {
      throw new IllegalStateException("catalogue " + config.directory() + ", segment " + f.segmentId()
          + ": " + ex.getMessage(), ex);
    }
  }

  // ---- appends (commit lock held) ----

  /** Appends a record to the active segment's buffer; false when no segment could be opened (no free slot). */
  boolean append(int kind, long id, byte[] value) throws IOException {
    if (!log.append(CatalogRecord.key(kind, id), value)) {
      return false;
    }
    recordsWritten++;
    return true;
  }

  /** Makes every appended record durable: flush the buffers, wait, force the device. */
  void sync() throws IOException {
    log.sync();
    syncs++;
  }

  /** After a failed append or sync: drop the active segment; the next append opens a new one. */
  void abandon() {
    log.abandon();
  }

  int freeSlots() {
    return log.freeSlots();
  }

  int segments() {
    return log.segments();
  }

  /** Segments a compaction of {@code liveBytes} of records needs. */
  int segmentsFor(long liveBytes) {
    long usable = log.usableSegmentBytes();
    return (int) ((liveBytes + recordBytes(16) + usable - 1) / usable);
  }

  /**
   * Rewrites {@code live} (definitions in id order) and a COMPACT record into fresh segments, syncs,
   * then releases every older segment. On failure the old log stays as it was.
   */
  void compact(List<Schema> live, long nextId) throws IOException {
    RecordLog.Rewrite rewrite = log.rewrite();
    try {
      for (Schema s : live) {
        byte[] key = CatalogRecord.key(CatalogRecord.DEFINE, s.id());
        if (!rewrite.append(key, CatalogRecord.defineValue(s.namespace(), s.nameArray()))) {
          throw new IOException("catalogue full: no free segment for compaction (" + live.size()
              + " live definitions; raise segmentCount, now " + config.segmentCount() + ")");
        }
        recordsWritten++;
      }
      byte[] key = CatalogRecord.key(CatalogRecord.COMPACT, 0);
      if (!rewrite.append(key, CatalogRecord.compactValue(rewrite.baseSegment(), nextId))) {
        throw new IOException("catalogue full: no free segment for compaction");
      }
      recordsWritten++;
    } catch (IOException | RuntimeException e) {
      rewrite.abort();
      throw e;
    }
    rewrite.commit();
    syncs++;
    compactions++;
  }

  long recordsWritten() {
    return recordsWritten;
  }

  long syncs() {
    return syncs;
  }

  long compactions() {
    return compactions;
  }

  @Override
  public void close() throws IOException {
    try {
      log.close();
    } finally {
      lock.close();
    }
  }

  private static void checkLayout(CatalogConfig c) throws IOException {
    Path f = c.directory().resolve(LAYOUT);
    Properties want = new Properties();
    want.setProperty("segmentBytes", Integer.toString(c.segmentBytes()));
    want.setProperty("segmentCount", Integer.toString(c.segmentCount()));
    want.setProperty("catalogFormat", Integer.toString(CatalogRecord.FORMAT_VERSION));
    want.setProperty("entryFormat", Integer.toString(RecordLog.FORMAT_VERSION));
    if (Files.exists(f)) {
      Properties have = new Properties();
      try (var in = Files.newInputStream(f)) {
        have.load(in);
      }
      for (String k : want.stringPropertyNames()) {
        if (!want.getProperty(k).equals(have.getProperty(k))) {
          throw new IllegalArgumentException("catalogue " + c.directory() + " was made with " + k + "="
              + have.getProperty(k) + "; this configuration has " + want.getProperty(k)
              + " (open it with the values in " + f + ")");
        }
      }
      return;
    }
    Path tmp = f.resolveSibling(LAYOUT + ".tmp");
    try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      var bytes = new java.io.ByteArrayOutputStream();
      want.store(bytes, "hybridcache schema catalogue layout; reopen with the same values");
      out.write(ByteBuffer.wrap(bytes.toByteArray()));
      out.force(true);
    }
    Files.move(tmp, f, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }
}
