package io.hybridcache.core.catalog;

import io.hybridcache.core.device.Device;
import io.hybridcache.core.device.DirectoryLock;
import io.hybridcache.core.format.EntryFormat;
import io.hybridcache.core.format.SegmentHeader;
import io.hybridcache.core.index.IndexEntry;
import io.hybridcache.core.index.KeyHash;
import io.hybridcache.core.placement.LifetimeClass;
import io.hybridcache.core.segment.Segment;
import io.hybridcache.core.segment.SegmentTable;
import io.hybridcache.core.segment.SegmentWriter;
import io.hybridcache.core.stats.Counters;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The catalogue's append-only log, not thread-safe (used under the catalogue's commit lock):
 * CATALOG-class segments on a small device of their own, written with
 * the engine's {@link SegmentWriter} and read back whole at open (CaSSanDra paper, section V: "a
 * collection of segment files, each storing a contiguous subset of schema ID and schema tuples").
 *
 * <p>Concurrency: every method runs under {@link SchemaCatalog}'s commit lock (the writer's flusher
 * thread is internal to {@link SegmentWriter}); the counters are volatile for {@code stats()}.
 *
 * <p>Durability: {@link #sync} writes every buffered record (zero padded to a 4 KiB page, so each group
 * commit costs at least one page) and forces the device; a record counts only after that.
 *
 * <p>Recovery reads every allocated slot (they are small), keeps slots whose header names a CATALOG
 * segment, and parses entries at 16-byte steps verifying each CRC: a torn or corrupt record is skipped
 * and counted, which is safe because an id is handed out only after its record was synced. Entries of
 * an older segment left in a reused slot fail the segment id check and are not counted. The newest
 * COMPACT record supersedes every segment below its base.
 *
 * <p>Compaction writes every live definition and then a COMPACT record through a fresh writer into new
 * segments, syncs, and only then releases (and discards) the old segments, so a crash at any point
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
  private final SegmentTable table;
  private final Counters counters = new Counters();
  private final AtomicLong sequence = new AtomicLong();
  private final DirectoryLock lock;
  private SegmentWriter writer;
  // written under the commit lock, read by stats() from any thread
  private volatile long recordsWritten;
  private volatile long syncs;
  private volatile long compactions;

  private CatalogLog(CatalogConfig config, Device device, DirectoryLock lock) {
    this.config = config;
    this.device = device;
    this.lock = lock;
    this.table = new SegmentTable(config.segmentCount());
    this.writer = newWriter();
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

  private SegmentWriter newWriter() {
    SegmentWriter w = new SegmentWriter(device, table, counters, null, BUFFER_BYTES, sequence::get);
    w.slotSource(table::takeFreeSlot);
    return w;
  }

  /** Largest batch of record bytes one commit takes, so a batch always fits one fresh segment. */
  int maxBatchBytes() {
    return Math.min(BUFFER_BYTES, (config.segmentBytes() - Device.ALIGNMENT) / 2);
  }

  /** Bytes a record occupies in a segment (entry header, key, value, 16-byte alignment). */
  static int recordBytes(int valueBytes) {
    return align16(EntryFormat.entryBytes(CatalogRecord.KEY_BYTES, valueBytes));
  }

  // ---- recovery ----

  Recovered recover() {
    int slotBytes = config.segmentBytes();
    ByteBuffer buf = Device.allocateAligned(slotBytes).order(ByteOrder.LITTLE_ENDIAN);
    record Found(long id, int slot, long sequence, List<CatalogRecord.Decoded> records, long bytes) {}
    List<Found> found = new ArrayList<>();
    List<Long> hints = new ArrayList<>();
    long corrupt = 0;
    long maxSegmentId = 0;
    long maxSequence = 0;
    for (int slot = 0; slot < config.segmentCount(); slot++) {
      if (!device.allocated(slot)) {
        continue;
      }
      try {
        buf.clear();
        device.read(slot, 0, buf);
      } catch (IOException e) {
        LOG.warn("catalogue {}: slot {} unreadable ({}); skipped", config.directory(), slot, e.toString());
        continue;
      }
      SegmentHeader.Decoded h = SegmentHeader.decode(buf.duplicate().position(0).limit(Device.ALIGNMENT));
      if (h == null || h.segmentId() == 0 || table.tagOf(h.segmentId()) == 0) {
        continue;
      }
      if (h.lifetimeClass() != LifetimeClass.CATALOG.id()) {
        LOG.warn("catalogue {}: slot {} holds a segment of class {}, not CATALOG; skipped", config.directory(), slot,
            h.lifetimeClass());
        continue;
      }
      maxSegmentId = Math.max(maxSegmentId, h.segmentId());
      maxSequence = Math.max(maxSequence, h.sequence());
      List<CatalogRecord.Decoded> records = new ArrayList<>();
      long bytes = 0;
      int off = SegmentHeader.FIRST_ENTRY_OFFSET;
      while (off + EntryFormat.HEADER_BYTES <= slotBytes) {
        if (buf.getInt(off) != EntryFormat.MAGIC) {
          off += IndexEntry.OFFSET_ALIGNMENT;
          continue;
        }
        EntryFormat.Entry e = EntryFormat.read(buf.duplicate().position(off), h.segmentId());
        if (e == null) {
          if (Integer.toUnsignedLong(buf.getInt(off + 16)) == h.segmentId()) {
            corrupt++; // torn by a crash or damaged; an entry of an older segment in this slot is not counted
            if (buf.getShort(off + 10) == CatalogRecord.KEY_BYTES && buf.get(off + EntryFormat.HEADER_BYTES) == CatalogRecord.DEFINE) {
              hints.add(Integer.toUnsignedLong(buf.getInt(off + EntryFormat.HEADER_BYTES + 1)));
            }
          }
          off += IndexEntry.OFFSET_ALIGNMENT;
          continue;
        }
        maxSequence = Math.max(maxSequence, e.sequence());
        try {
          records.add(CatalogRecord.decode(e.key(), e.value()));
        } catch (RowFormatException ex) {
          throw new IllegalStateException("catalogue " + config.directory() + ", segment " + h.segmentId()
              + " offset " + off + ": " + ex.getMessage(), ex);
        }
        bytes += align16(e.bytes());
        off += align16(e.bytes());
      }
      found.add(new Found(h.segmentId(), slot, h.sequence(), records, bytes));
    }
    found.sort(Comparator.comparingLong(Found::id));
    long base = 0;
    long nextId = 1;
    for (Found f : found) {
      for (CatalogRecord.Decoded r : f.records()) {
        if (r.kind() == CatalogRecord.COMPACT) {
          base = Math.max(base, r.baseSegment());
          nextId = Math.max(nextId, r.nextId());
        } else {
          nextId = Math.max(nextId, r.id() + 1); // ids of superseded segments count too: never reused
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
    for (Found f : found) {
      if (f.id() < base || table.byTag(table.tagOf(f.id())) != null) { // superseded, or a stray copy of its tag
        superseded++;
        try {
          device.discard(f.slot());
        } catch (IOException e) {
          LOG.debug("catalogue {}: discard of slot {} failed: {}", config.directory(), f.slot(), e.toString());
        }
        continue;
      }
      Segment s = new Segment(f.id(), f.slot(), LifetimeClass.CATALOG, Segment.State.SEALED);
      s.restoreRecovered(f.bytes(), 0, slotBytes);
      table.add(s);
      for (CatalogRecord.Decoded r : f.records()) {
        if (r.kind() == CatalogRecord.DEFINE) {
          defines.put(r.id(), r);
        } else if (r.kind() == CatalogRecord.RECLAIM) {
          reclaimed.add(r.id());
        }
      }
    }
    reclaimed.forEach(defines::remove);
    table.raiseNextSegmentId(maxSegmentId + 1);
    table.rebuildFreeList();
    sequence.set(maxSequence + 1);
    if (corrupt > 0) {
      LOG.warn("catalogue {}: {} records failed their checksum at open (torn by a crash or damaged); "
          + "their schema ids do not resolve", config.directory(), corrupt);
    }
    return new Recovered(new ArrayList<>(defines.values()), nextId, corrupt, superseded);
  }

  // ---- appends (commit lock held) ----

  /** Appends a record to the active segment's buffer; false when no segment could be opened (no free slot). */
  boolean append(int kind, long id, byte[] value) throws IOException {
    return appendWith(writer, kind, id, value);
  }

  private boolean appendWith(SegmentWriter w, int kind, long id, byte[] value) throws IOException {
    byte[] key = CatalogRecord.key(kind, id);
    long packed = w.append(LifetimeClass.CATALOG, KeyHash.of(key), key, value, 0, sequence.incrementAndGet());
    if (packed == IndexEntry.NONE) {
      return false;
    }
    recordsWritten++;
    return true;
  }

  /** Makes every appended record durable: flush the buffers, wait, force the device. */
  void sync() throws IOException {
    writer.flushAllToWholePages();
    device.sync();
    syncs++;
  }

  /** After a failed append or sync: drop the active segment; the next append opens a new one. */
  void abandon() {
    writer.abandonAll();
  }

  int freeSlots() {
    return table.freeSlots();
  }

  int segments() {
    return table.segments().size();
  }

  /** Segments a compaction of {@code liveBytes} of records needs. */
  int segmentsFor(long liveBytes) {
    long usable = config.segmentBytes() - SegmentHeader.FIRST_ENTRY_OFFSET - Device.ALIGNMENT;
    return (int) ((liveBytes + recordBytes(16) + usable - 1) / usable);
  }

  /**
   * Rewrites {@code live} (definitions in id order) and a COMPACT record into fresh segments, syncs,
   * then releases every older segment. On failure the old log stays as it was.
   */
  void compact(List<Schema> live, long nextId) throws IOException {
    SegmentWriter fresh = newWriter();
    long base = table.nextSegmentIdPeek();
    try {
      for (Schema s : live) {
        if (!appendWith(fresh, CatalogRecord.DEFINE, s.id(), CatalogRecord.defineValue(s.namespace(), s.nameArray()))) {
          throw new IOException("catalogue full: no free segment for compaction (" + live.size()
              + " live definitions; raise segmentCount, now " + config.segmentCount() + ")");
        }
      }
      if (!appendWith(fresh, CatalogRecord.COMPACT, 0, CatalogRecord.compactValue(base, nextId))) {
        throw new IOException("catalogue full: no free segment for compaction");
      }
      fresh.flushAllToWholePages();
      device.sync();
      syncs++;
    } catch (IOException | RuntimeException e) {
      fresh.abandonAll();
      fresh.close();
      for (Segment s : table.segments().toArray(new Segment[0])) {
        if (s.id() >= base) {
          table.release(s);
        }
      }
      throw e;
    }
    writer.abandonAll();
    writer.close();
    writer = fresh;
    for (Segment s : table.segments().toArray(new Segment[0])) {
      if (s.id() < base) {
        table.release(s);
        try {
          device.discard(s.slot());
        } catch (IOException e) {
          LOG.debug("catalogue {}: discard of slot {} failed: {}", config.directory(), s.slot(), e.toString());
        }
      }
    }
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
      writer.flushAllToWholePages();
      writer.close();
      device.close();
    } finally {
      lock.close();
    }
  }

  private static int align16(int n) {
    return (n + IndexEntry.OFFSET_ALIGNMENT - 1) & -IndexEntry.OFFSET_ALIGNMENT;
  }

  private static void checkLayout(CatalogConfig c) throws IOException {
    Path f = c.directory().resolve(LAYOUT);
    Properties want = new Properties();
    want.setProperty("segmentBytes", Integer.toString(c.segmentBytes()));
    want.setProperty("segmentCount", Integer.toString(c.segmentCount()));
    want.setProperty("catalogFormat", Integer.toString(CatalogRecord.FORMAT_VERSION));
    want.setProperty("entryFormat", Integer.toString(EntryFormat.FORMAT_VERSION));
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
