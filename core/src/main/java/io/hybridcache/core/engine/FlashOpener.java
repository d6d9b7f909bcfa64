package io.hybridcache.core.engine;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.device.Device;
import io.hybridcache.core.format.SegmentHeader;
import io.hybridcache.core.index.ChronicleIndex;
import io.hybridcache.core.index.HeapIndex;
import io.hybridcache.core.index.Index;
import io.hybridcache.core.index.IndexEntry;
import io.hybridcache.core.index.IndexType;
import io.hybridcache.core.placement.LifetimeClasses;
import io.hybridcache.core.placement.Placement;
import io.hybridcache.core.segment.Segment;
import io.hybridcache.core.segment.SegmentTable;
import io.hybridcache.core.segment.SegmentWriter;
import io.hybridcache.core.stats.Counters;
import io.hybridcache.core.stats.WriteTrace;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the flash tier in a cache directory: warm after a clean close, recovered after a crash, cold
 * when the directory was made with an incompatible layout.
 *
 * <p>Not thread-safe: used once by the opening thread, before the writer thread starts.
 *
 * <p>Restart: a clean close leaves {@value #CLEAN_MARKER}, the saved segment table and the flushed
 * index; open deletes the marker first, so a crash at any later point is seen as unclean. Warm open
 * reuses index and segments without reading any entry. Unclean open reads only the slot header pages,
 * rebuilds each segment's live bytes from the index and drops index entries of segments that no longer
 * exist; every other stale or torn entry fails its CRC, segment or key check when read and is a miss.
 *
 * <p>Directory layout: {@code layout.properties} (segment size, slot count, format), {@code segments/}
 * (slot files), {@code index.cm} or {@code index.heap}, {@code segments.meta}, {@value #CLEAN_MARKER}.
 */
final class FlashOpener {
  private static final Logger LOG = LoggerFactory.getLogger(FlashOpener.class);
  static final String CLEAN_MARKER = "CLEAN";
  private static final String LAYOUT = "layout.properties";
  private static final String META = "segments.meta";

  /** Creates the device for a directory; tests pass a fault-injecting one. */
  @FunctionalInterface
  interface DeviceFactory {
    Device open(Path directory, int slots, long slotBytes, boolean directIo) throws IOException;
  }

  private FlashOpener() {}

  static Path metaFile(CacheConfig c) {
    return c.directory().resolve(META);
  }

  static Path chronicleFile(CacheConfig c) {
    return c.directory().resolve("index.cm");
  }

  static Path heapIndexFile(CacheConfig c) {
    return c.directory().resolve("index.heap");
  }

  static FlashTier open(CacheConfig config, DeviceFactory devices, Counters counters, AtomicLong sequence,
      LifetimeClasses classes) throws IOException {
    return open(config, devices, counters, sequence, classes, IndexEntry.SEGMENT_TAG_BITS);
  }

  /** As above, with {@code tagBits} of segment tag in the index (tests use a narrow one). */
  static FlashTier open(CacheConfig config, DeviceFactory devices, Counters counters, AtomicLong sequence,
      LifetimeClasses classes, int tagBits) throws IOException {
    Path dir = config.directory();
    Files.createDirectories(dir);
    boolean clean = Files.exists(dir.resolve(CLEAN_MARKER));
    if (!layoutMatches(config)) {
      LOG.warn("{}: {} was made with another layout; starting cold", config.name(), dir);
      wipe(dir);
      clean = false;
    }
    Files.deleteIfExists(dir.resolve(CLEAN_MARKER));
    writeLayout(config);

    Device device = devices.open(dir.resolve("segments"), config.segmentCount(), config.segmentBytes(),
        config.directIo());
    SegmentTable table = new SegmentTable(config.segmentCount(), tagBits);
    long savedSequence = clean ? table.load(metaFile(config), classes) : -1;
    if (clean && savedSequence < 0) {
      LOG.warn("{}: segment table unreadable; recovering from slot headers", config.name());
      clean = false;
    }
    Index index = openIndex(config, clean);
    if (clean && index.size() == 0 && table.segments().stream().anyMatch(s -> s.liveBytes() > 0)) {
      LOG.warn("{}: the index came back empty (damaged and reset); rebuilding the segment table", config.name());
      clean = false;
    }
    if (!clean) {
      recover(config, device, table, index, classes);
    }
    SequenceLease lease = SequenceLease.open(dir);
    if (!clean && lease.limit() == 0 && index.size() > 0) {
      LOG.warn("{}: no sequence lease after an unclean stop; dropping the index (starting cold)", config.name());
      index.clear();
      recover(config, device, table, index, classes);
    }
    // Every entry on flash is below the lease: a crash never restarts the sequence under one of them.
    sequence.set(Math.max(sequence.get(), Math.max(savedSequence, lease.limit())));
    WriteTrace trace = config.writeTrace() == null ? null : new WriteTrace(config.writeTrace());
    Placement placement = new Placement(device, table, classes, config.streamMapper(), config.streams(),
        config.dsmGroups(), config.dsmAlpha(), config.placementEpochBytes(), trace != null);
    SegmentWriter writer = new SegmentWriter(device, table, counters, trace, config.writeBufferBytes(),
        sequence::get, placement);
    for (Segment s : table.segments()) {
      if (s.state() == Segment.State.ACTIVE) {
        writer.resume(s);
      }
    }
    LOG.info("{}: opened {} ({}, {} segments, {} index entries, direct I/O {})", config.name(), dir,
        clean ? "warm" : "recovered", table.segments().size(), index.size(), device.directIo());
    return new FlashTier(config, device, index, table, writer, placement, trace, counters, sequence, lease);
  }

  private static Index openIndex(CacheConfig config, boolean clean) {
    if (config.indexType() == IndexType.HEAP) {
      Path f = heapIndexFile(config);
      Index idx = clean && Files.exists(f)
          ? HeapIndex.loadFrom(f, config.expectedEntries())
          : new HeapIndex(config.expectedEntries());
      try {
        Files.deleteIfExists(f);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return idx;
    }
    return ChronicleIndex.open(chronicleFile(config), config.expectedEntries(), !clean);
  }

  /** Rebuilds the segment table from slot headers and live bytes from the index. */
  private static void recover(CacheConfig config, Device device, SegmentTable table, Index index,
      LifetimeClasses classes) {
    table.clear();
    ByteBuffer page = Device.allocateAligned(Device.ALIGNMENT);
    Map<Segment, Long> sequences = new java.util.IdentityHashMap<>();
    long maxId = 0;
    for (int slot = 0; slot < table.slotCount(); slot++) {
      if (!device.allocated(slot)) {
        continue;
      }
      try {
        page.clear();
        device.read(slot, 0, page);
      } catch (IOException e) {
        LOG.warn("{}: slot {} unreadable at recovery ({}); it will be reused", config.name(), slot, e.toString());
        continue;
      }
      SegmentHeader.Decoded h = SegmentHeader.decode(page.flip());
      if (h == null || h.segmentId() == 0 || table.tagOf(h.segmentId()) == 0) {
        continue;
      }
      // Headers carry the id's low 32 bits. Two headers with one tag: a live segment and the stale
      // header of a released one in a free slot; the newer (higher sequence at open) is the live one.
      Segment other = table.byTag(table.tagOf(h.segmentId()));
      if (other != null) {
        if (sequences.get(other) >= h.sequence()) {
          continue;
        }
        table.forget(other);
      }
      Segment s = new Segment(h.segmentId(), slot, classes.byId(h.lifetimeClass()), Segment.State.SEALED);
      sequences.put(s, h.sequence());
      table.add(s);
      maxId = Math.max(maxId, h.segmentId());
    }
    Map<Long, long[]> live = new HashMap<>(); // by tag
    index.forEach((hash, packed) -> {
      long tag = IndexEntry.segmentTag(packed);
      if (table.byTag(tag) == null) {
        index.remove(hash, packed);
      } else {
        live.computeIfAbsent(tag, k -> new long[1])[0] += IndexEntry.sizeBytes(packed);
      }
    });
    long usable = config.segmentBytes() - SegmentHeader.FIRST_ENTRY_OFFSET;
    for (Segment s : table.segments().toArray(new Segment[0])) {
      long l = live.getOrDefault(table.tagOf(s.id()), new long[1])[0];
      s.restoreRecovered(usable, Math.max(0, usable - l), config.segmentBytes());
    }
    table.raiseNextSegmentId(maxId + 1);
    table.rebuildFreeList();
    for (Segment s : table.segments().toArray(new Segment[0])) {
      if (!live.containsKey(table.tagOf(s.id()))) {
        table.release(s); // nothing indexed lives here: free it now
      }
    }
  }

  private static boolean layoutMatches(CacheConfig c) throws IOException {
    Path f = c.directory().resolve(LAYOUT);
    if (!Files.exists(f)) {
      return !Files.exists(c.directory().resolve("segments"));
    }
    Properties p = new Properties();
    try (var in = Files.newInputStream(f)) {
      p.load(in);
    }
    return layout(c).equals(p);
  }

  private static Properties layout(CacheConfig c) {
    Properties p = new Properties();
    p.setProperty("segmentBytes", Integer.toString(c.segmentBytes()));
    p.setProperty("segmentCount", Integer.toString(c.segmentCount()));
    p.setProperty("index", c.indexType().name());
    p.setProperty("formatVersion", Integer.toString(io.hybridcache.core.format.EntryFormat.FORMAT_VERSION));
    return p;
  }

  private static void writeLayout(CacheConfig c) throws IOException {
    try (var out = Files.newOutputStream(c.directory().resolve(LAYOUT))) {
      layout(c).store(out, "hybridcache layout; a different layout starts the cache cold");
    }
  }

  /**
   * Deletes the cache's files, but not a schema catalogue in {@code catalog/}: its ids may be referenced
   * elsewhere, and keeping it is always safe (ids are never reused).
   */
  private static void wipe(Path dir) throws IOException {
    Path catalog = dir.resolve(io.hybridcache.core.catalog.SchemaCatalog.SUBDIRECTORY);
    try (var files = Files.walk(dir)) {
      for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        if (!p.equals(dir) && !p.startsWith(catalog)) {
          Files.delete(p);
        }
      }
    }
  }
}
