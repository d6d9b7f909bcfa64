package io.hybridcache.core.engine;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.Durability;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.api.LayoutChange;
import io.hybridcache.core.device.AtomicFile;
import io.hybridcache.core.device.Device;
import io.hybridcache.core.device.DirectoryLock;
import io.hybridcache.core.device.FileModes;
import io.hybridcache.core.device.TrustedDirectory;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the flash tier in a cache directory: warm after a clean close, recovered after a crash, cold
 * when the directory was made with an incompatible layout.
 *
 * <p>Not thread-safe: used once by the opening thread, before the writer thread starts.
 *
 * <p>Ownership: open first refuses an existing directory of another user or one its group or others may
 * write beyond the configured permissions ({@link TrustedDirectory}), then one holding anything but the cache's own files
 * ({@link OwnedFiles}; before making anything, so a foreign directory does not even get a lock file),
 * makes the directory (permissions from {@link CacheConfig#filePermissions()}) if needed, then takes the
 * {@link DirectoryLock} before it reads or deletes anything else, checks again, and hands the lock to
 * the tier, which releases it last in close; an open that fails part way closes what it opened and
 * releases the lock. A directory made with another layout (segment size or count, index type, format
 * version, or no readable layout record beside a {@code segments/}) has its own files replaced (logged
 * with both layouts at WARN) or, with {@link LayoutChange#FAIL}, is refused.
 *
 * <p>Permissions: the directory and {@code segments/} get the configured file permissions plus x where
 * r, own files the configured ones (both set at every open, so a change of the setting or an upgrade
 * from files made 0644 applies), and files made later follow their directory ({@link FileModes}).
 *
 * <p>The INFO line of an open says "new" for a directory the cache never used (no layout record, no
 * {@code segments/}), else "warm", "recovered from checkpoint" or "recovered".
 *
 * <p>Restart: a clean close leaves {@value #CLEAN_MARKER}, the saved segment table and the flushed
 * index; open deletes the marker first, so a crash at any later point is seen as unclean. Warm open
 * reuses index and segments without reading any entry (with key groups, the tier then reads the segment
 * summaries, and the segments without one, to count each group's bytes: {@link GroupBytes#rebuild}). Unclean
 * open reads only the slot header pages, rebuilds each segment's live bytes from the index and drops index
 * entries of segments that no longer exist; every other stale or torn entry fails its CRC, segment or key
 * check when read and is a miss.
 *
 * <p>Compact index: a clean open loads the checkpoint written at close; an unclean one in the same boot
 * (a process kill) rebuilds it from the last checkpoint, the invalidation journal and the entries written
 * since ({@link WarmRecovery}), unless the durability is NONE (cold). Either way open then writes a fresh
 * checkpoint and journal and hands them to a {@link Checkpointer}. An unclean stop in another boot
 * ({@link BootId}: OS crash or power loss) starts cold for both index types, unless the compact index
 * runs with durability POWER.
 *
 * <p>Directory layout: {@code layout.properties} (segment size, slot count, format), {@code segments/}
 * (slot files), {@code index.cm} or {@code index.ckpt} and {@code index.journal}, {@code segments.meta},
 * {@code boot.id}, {@value #CLEAN_MARKER}, {@code LOCK}; the full list of names is in {@link OwnedFiles}.
 */
final class FlashOpener {
  private static final Logger LOG = LoggerFactory.getLogger(FlashOpener.class);
  static final String CLEAN_MARKER = OwnedFiles.CLEAN;

  /** Creates the device for a directory; tests pass a fault-injecting one. */
  @FunctionalInterface
  interface DeviceFactory {
    Device open(Path directory, int slots, long slotBytes, boolean directIo) throws IOException;
  }

  private FlashOpener() {}

  static Path metaFile(CacheConfig c) {
    return c.directory().resolve(OwnedFiles.META);
  }

  static Path chronicleFile(CacheConfig c) {
    return c.directory().resolve(OwnedFiles.CHRONICLE_INDEX);
  }

  /** The snapshot of the compact index an older version saved at a clean close (read once, then deleted). */
  static Path heapIndexFile(CacheConfig c) {
    return c.directory().resolve(OwnedFiles.HEAP_INDEX);
  }

  static Path checkpointFile(CacheConfig c) {
    return c.directory().resolve(OwnedFiles.CHECKPOINT);
  }

  static Path journalFile(CacheConfig c) {
    return c.directory().resolve(InvalidationJournal.FILE);
  }

  static FlashTier open(CacheConfig config, DeviceFactory devices, Counters counters, AtomicLong sequence,
      LifetimeClasses classes) throws IOException {
    return open(config, devices, counters, sequence, classes, IndexEntry.SEGMENT_TAG_BITS, UnaryOperator.identity());
  }

  /**
   * As above, with {@code tagBits} of segment tag in the index (tests use a narrow one) and the tier's view
   * of the index made by {@code indexView} (tests: an index that refuses keys; checkpoints copy the index).
   */
  static FlashTier open(CacheConfig config, DeviceFactory devices, Counters counters, AtomicLong sequence,
      LifetimeClasses classes, int tagBits, UnaryOperator<Index> indexView) throws IOException {
    Path dir = config.directory();
    OwnedFiles own = new OwnedFiles(dir, config.writeTrace());
    Set<PosixFilePermission> perms = FileModes.supported(dir) ? config.filePermissionSet() : null;
    TrustedDirectory.check(dir, FileModes.forDirectory(perms)); // before anything in it is read or made
    own.refuseForeign();
    Path parent = dir.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    FileModes.createDirectory(dir, FileModes.forDirectory(perms));
    DirectoryLock lock = DirectoryLock.acquire(dir, perms);
    try {
      own.refuseForeign(); // again under the lock: nothing can change it from here on
      FlashTier tier = openLocked(config, own, perms, devices, counters, sequence, classes, tagBits, indexView);
      tier.holdUntilClose(lock);
      return tier;
    } catch (Throwable t) {
      closeQuietly(lock, t);
      throw t;
    }
  }

  private static FlashTier openLocked(CacheConfig config, OwnedFiles own, Set<PosixFilePermission> perms,
      DeviceFactory devices, Counters counters, AtomicLong sequence, LifetimeClasses classes, int tagBits,
      UnaryOperator<Index> indexView) throws IOException {
    Path dir = config.directory();
    boolean fresh = !Files.exists(dir.resolve(OwnedFiles.LAYOUT)) && !Files.exists(dir.resolve(OwnedFiles.SEGMENTS));
    boolean clean = Files.exists(dir.resolve(CLEAN_MARKER));
    if (checkLayout(config, own)) {
      clean = false;
    }
    Files.deleteIfExists(dir.resolve(CLEAN_MARKER));
    FileModes.createDirectory(dir.resolve(OwnedFiles.SEGMENTS), FileModes.forDirectory(perms));
    own.applyPermissions(perms);
    List<Closeable> opened = new ArrayList<>(); // closed if the open fails part way
    try {
      return openFiles(config, devices, counters, sequence, classes, fresh, clean, opened, tagBits, indexView);
    } catch (Throwable t) {
      for (Closeable c : opened) {
        closeQuietly(c, t);
      }
      throw t;
    }
  }

  private static FlashTier openFiles(CacheConfig config, DeviceFactory devices, Counters counters,
      AtomicLong sequence, LifetimeClasses classes, boolean fresh, boolean clean, List<Closeable> opened, int tagBits,
      UnaryOperator<Index> indexView) throws IOException {
    Path dir = config.directory();
    Device device = devices.open(dir.resolve(OwnedFiles.SEGMENTS), config.segmentCount(), config.segmentBytes(),
        config.directIo());
    opened.add(device);
    SegmentTable table = new SegmentTable(config.segmentCount(), tagBits);
    long savedSequence = clean ? table.load(metaFile(config), classes) : -1;
    if (clean && savedSequence < 0) {
      LOG.warn("{}: segment table unreadable; recovering from slot headers", config.name());
      clean = false;
    }
    boolean sameBoot = BootId.sameBoot(dir);
    // After an OS crash (an unclean stop in another boot) memory-mapped writes that were never synced are
    // gone: neither index may be trusted, unless the compact index forced its journal (POWER).
    boolean trusted = clean || sameBoot || config.durability() == Durability.POWER;
    WarmRecovery.Result recovered = null;
    long t0 = System.nanoTime();
    // a directory with neither a checkpoint nor a journal is new (or was never checkpointed): cold, nothing to warn of
    boolean everCheckpointed = Files.exists(checkpointFile(config)) || Files.exists(journalFile(config));
    if (!clean && trusted && everCheckpointed && config.indexType() == IndexType.HEAP
        && config.durability() != Durability.NONE) {
      recovered = WarmRecovery.recover(config.name(), device, table, checkpointFile(config), journalFile(config),
          config.expectedEntries());
    }
    Index index = recovered != null ? recovered.index() : openIndex(config, clean);
    opened.add(index);
    if (!trusted && index.size() > 0) {
      LOG.warn("{}: unclean stop in another boot (OS crash or power loss): unsynced index writes may be lost;"
          + " starting cold", config.name());
      index.clear();
    }
    if (clean && index.size() == 0 && table.segments().stream().anyMatch(s -> s.liveBytes() > 0)) {
      LOG.warn("{}: the index came back empty (damaged and reset); rebuilding the segment table", config.name());
      clean = false;
    }
    long t1 = System.nanoTime();
    if (!clean) {
      recover(config, device, table, index, classes);
    }
    long t2 = System.nanoTime();
    SequenceLease lease = SequenceLease.open(dir);
    if (!clean && lease.limit() == 0 && index.size() > 0) {
      LOG.warn("{}: no sequence lease after an unclean stop; dropping the index (starting cold)", config.name());
      index.clear();
      recover(config, device, table, index, classes);
    }
    // Every entry on flash is below the lease: a crash never restarts the sequence under one of them.
    sequence.set(Math.max(sequence.get(), Math.max(savedSequence, lease.limit())));
    if (recovered != null) {
      sequence.set(Math.max(sequence.get(), recovered.maxSequence())); // above every journaled record too
    }
    WriteTrace trace = config.writeTrace() == null ? null
        : new WriteTrace(config.writeTrace(), FileModes.supported(config.writeTrace()) ? config.filePermissionSet() : null);
    if (trace != null) {
      opened.add(trace);
    }
    Placement placement = new Placement(device, table, classes, config.streamMapper(), config.streams(),
        config.dsmGroups(), config.dsmAlpha(), config.placementEpochBytes(), trace != null);
    SegmentWriter writer = new SegmentWriter(device, table, counters, trace, config.writeBufferBytes(),
        config.writeBuffers(), config.writeBuffersTotal(), sequence::get, placement);
    for (Segment s : table.segments()) {
      if (s.state() == Segment.State.ACTIVE) {
        writer.resume(s);
      }
    }
    Checkpointer checkpointer = null;
    long t3 = System.nanoTime();
    if (index instanceof HeapIndex heap && config.durability() != Durability.NONE) {
      checkpointer = startCheckpoints(config, heap, writer, table, sequence, counters,
          recovered != null ? recovered.maxEpoch() : 0, opened);
    }
    long t4 = System.nanoTime();
    BootId.record(dir); // last: until the state of another boot is made safe, the next open distrusts it too
    LOG.info("{}: opened {} ({}, {} segments, {} index entries, direct I/O {}; index {} ms, segment table {} ms,"
        + " base checkpoint {} ms)", config.name(), dir,
        fresh ? "new" : clean ? "warm" : recovered != null ? "recovered from checkpoint" : "recovered",
        table.segments().size(),
        index.size(), device.directIo(), (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000, (t4 - t3) / 1_000_000);
    FlashTier tier = new FlashTier(config, device, indexView.apply(index), table, writer, placement, trace, counters,
        sequence, lease);
    if (checkpointer != null) {
      tier.checkpoints(checkpointer);
    }
    return tier;
  }

  /**
   * The base of a crash-consistent compact index: a checkpoint of the index as opened (nothing to replay
   * before it), then a fresh journal in the same epoch. A kill between the two leaves the new checkpoint
   * and the old journal, whose records can only remove entries (a miss, never a wrong value).
   */
  private static Checkpointer startCheckpoints(CacheConfig config, HeapIndex heap, SegmentWriter writer,
      SegmentTable table, AtomicLong sequence, Counters counters, long seenEpoch, List<Closeable> opened)
      throws IOException {
    long epoch = seenEpoch + 2; // an older checkpoint beside this journal is then found out (WarmRecovery)
    long[][] active = writer.appendPositions();
    IndexCheckpoint.write(checkpointFile(config), heap, epoch, true,
        new IndexCheckpoint.Start(table.nextSegmentIdPeek(), sequence.get(), active[0], active[1]));
    InvalidationJournal journal = InvalidationJournal.create(journalFile(config), epoch,
        InvalidationJournal.capacityFor(config.expectedEntries()), config.durability() == Durability.POWER);
    opened.add(journal);
    long interval = Math.max(2L * config.segmentBytes(), config.logFlashBytes() / 8);
    return new Checkpointer(config.name(), checkpointFile(config), heap, journal, writer, table, sequence,
        () -> counters.flushBytesWritten.sum() + counters.reclaimBytesWritten.sum(), interval, counters);
  }

  private static Index openIndex(CacheConfig config, boolean clean) {
    if (config.indexType() == IndexType.HEAP) {
      Path legacy = heapIndexFile(config);
      IndexCheckpoint.Loaded c = clean ? IndexCheckpoint.read(checkpointFile(config), config.expectedEntries()) : null;
      Index idx = c != null ? c.index()
          : clean && Files.exists(legacy) ? HeapIndex.loadFrom(legacy, config.expectedEntries())
          : new HeapIndex(config.expectedEntries());
      try {
        Files.deleteIfExists(legacy);
        if (config.durability() == Durability.NONE) {
          Files.deleteIfExists(checkpointFile(config)); // NONE: a crash later must not find it
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return idx;
    }
    ChronicleSupport.check(); // a missing jar or flag named, not a Chronicle stack trace
    return ChronicleIndex.open(chronicleFile(config), config.expectedEntries(), !clean);
  }

  /** Rebuilds the segment table from slot headers and live bytes from the index. */
  private static void recover(CacheConfig config, Device device, SegmentTable table, Index index,
      LifetimeClasses classes) {
    table.clear();
    long maxId = 0;
    List<SlotScan.Found> headers = SlotScan.headers(device, table, (slot, e) ->
        LOG.warn("{}: slot {} unreadable at recovery ({}); it will be reused", config.name(), slot, e.toString()));
    for (SlotScan.Found h : headers) {
      table.add(new Segment(h.segmentId(), h.slot(), classes.byId(h.lifetimeClass()), Segment.State.SEALED));
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

  /**
   * Compares the directory's layout record with the config's; on a change, replaces the cache's own
   * files or, with {@link LayoutChange#FAIL}, throws naming both layouts. Writes the record when there
   * is none (a new directory, or after a replace). True if the files were replaced.
   */
  private static boolean checkLayout(CacheConfig c, OwnedFiles own) throws IOException {
    Path dir = c.directory();
    Properties want = layout(c);
    Properties found;
    String unreadable = null;
    try {
      found = readLayout(dir.resolve(OwnedFiles.LAYOUT));
    } catch (IOException | IllegalArgumentException e) {
      found = null;
      unreadable = e.toString();
    }
    boolean replaced = false;
    if (!want.equals(found) && (found != null || unreadable != null
        || Files.exists(dir.resolve(OwnedFiles.SEGMENTS)))) {
      String old = found != null ? describe(found)
          : "unknown (" + OwnedFiles.LAYOUT + (unreadable == null ? " missing" : " unreadable: " + unreadable) + ")";
      if (c.onLayoutChange() == LayoutChange.FAIL) {
        throw new IOException("cache directory " + dir + " was made with layout " + old
            + " but this configuration needs " + describe(want) + "; onLayoutChange is FAIL, so nothing was "
            + "deleted (open it with its old settings, or move it away to start cold)");
      }
      LOG.warn("{}: {} was made with layout {}, this configuration needs {}: replacing the cache's files, "
          + "starting cold", c.name(), dir, old, describe(want));
      own.deleteForLayoutChange();
      found = null;
      replaced = true;
    }
    if (found == null) {
      AtomicFile.replace(dir.resolve(OwnedFiles.LAYOUT), ch -> {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        want.store(out, "hybridcache layout; another layout replaces the cache's files (or fails, by config)");
        AtomicFile.writeFully(ch, ByteBuffer.wrap(out.toByteArray()));
      });
    }
    return replaced;
  }

  /** The layout record, or null if there is none. */
  private static Properties readLayout(Path f) throws IOException {
    if (!Files.exists(f)) {
      return null;
    }
    Properties p = new Properties();
    try (var in = Files.newInputStream(f)) {
      p.load(in);
    }
    return p;
  }

  /** A layout as sorted {@code key=value} pairs, for messages. */
  private static String describe(Properties p) {
    return new TreeMap<>(p).toString();
  }

  private static Properties layout(CacheConfig c) {
    Properties p = new Properties();
    p.setProperty("segmentBytes", Integer.toString(c.segmentBytes()));
    p.setProperty("segmentCount", Integer.toString(c.segmentCount()));
    p.setProperty("index", c.indexType().name());
    p.setProperty("formatVersion", Integer.toString(io.hybridcache.core.engine.EntryFormat.FORMAT_VERSION));
    return p;
  }

  private static void closeQuietly(Closeable c, Throwable failure) {
    try {
      c.close();
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
    }
  }
}
