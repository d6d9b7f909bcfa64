package io.hybridcache.core.engine;

import io.hybridcache.core.device.AtomicFile;
import io.hybridcache.core.device.FileModes;
import io.hybridcache.core.device.FileSpace;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import net.openhft.chronicle.hash.ChronicleHashCorruption;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import net.openhft.chronicle.map.MapSegmentContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe: every operation is delegated to a persisted Chronicle Map ({@code ChronicleMap<Long,
 * Long>}), which locks per segment; {@link #get} takes a segment read lock, so readers never block
 * each other. Survives restarts: the map lives in a memory-mapped file, so a warm restart reopens it
 * without reading the flash tier.
 *
 * <h2>Concurrency</h2>
 *
 * Chronicle Map segments each carry a read/update/write lock in the mapped file. {@code replace(hash,
 * expected, update)} and {@code remove(hash, expected)} are Chronicle's {@code ConcurrentMap}
 * operations, atomic on the whole packed value. {@link #forEach} copies one segment at a time under
 * Chronicle's segment context and visits the copy with no lock held, so the visitor may call back
 * into this index. {@link #close} must not race with other calls (Chronicle throws {@code
 * IllegalStateException} on a closed map). The boxed {@code Long} keys and values cost about 48
 * allocated bytes per {@code get}; a {@code LongValue} value with {@code getUsing} measured no faster
 * here (about 245 ns per get either way at 1M entries) and took 14% more off-heap memory, so values
 * stay boxed.
 *
 * <h2>Format/Persistence</h2>
 *
 * <ul>
 *   <li>The map file is Chronicle Map's own format (Chronicle Map 2026.1), sized once at creation
 *       from {@code expectedEntries}: reopening an existing file keeps the file's sizing and ignores
 *       the argument. Chronicle reserves the whole file up front: {@link #memoryBytes} is its mapped
 *       size whatever the number of mappings (about 29 bytes per expected entry at 1M).
 *   <li>Files: the map file and its seal get the permissions of their directory without the x bits
 *       ({@link FileModes}).
 *   <li>Clean-close seal: {@link #close} writes {@code <file>.seal} (layout at {@link #SEAL_BYTES}),
 *       holding the map file's length and CRC32C. {@link #open} checks and then deletes it before the
 *       map can change, so a seal exists only beside a file that has not changed since a clean close.
 *       Chronicle itself does not verify entries when it opens a file normally; the seal is what lets
 *       a normal open trust the file.
 *   <li>Opening, by case: no file or an empty one: a new map. A file whose header was never
 *       committed or is out of bounds (Chronicle would wait a minute for it, then fail): corrupt.
 *       {@code recover = true}: Chronicle's {@code recoverPersistedTo}, which rebuilds segment
 *       headers and drops entries failing their checksum (each logged). {@code recover = false}
 *       with a valid seal: {@code createPersistedTo}; without a seal (the previous process did not
 *       close the index): recovery as above, since the caller's belief in a clean shutdown is not
 *       backed by the file; with a seal that does not match: corrupt.
 *   <li><b>A corrupt or unreadable file is deleted and replaced by a fresh, empty map</b>, with a
 *       warning logged; {@link #open} never throws for bad file content. The cache then starts cold
 *       (the flash entries the index pointed at are lost). It throws {@link UncheckedIOException} only
 *       if the fresh file cannot be created (e.g. an unwritable directory).
 * </ul>
 *
 * <p>Loading this class sets the system properties {@code chronicle.analytics.disable} and {@code
 * chronicle.announcer.disable} to {@code true} unless already set, before any Chronicle class is
 * initialized: Chronicle libraries otherwise send usage analytics and print a banner.
 */
final class ChronicleIndex implements Index {

  static {
    // First static member: runs before any Chronicle class is initialized by this class.
    if (System.getProperty("chronicle.analytics.disable") == null) {
      System.setProperty("chronicle.analytics.disable", "true");
    }
    if (System.getProperty("chronicle.announcer.disable") == null) {
      System.setProperty("chronicle.announcer.disable", "true");
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(ChronicleIndex.class);

  /** Suffix of the clean-close seal file beside the map file ({@code <file>.seal}). */
  public static final String SEAL_SUFFIX = ".seal";
  static final int MIN_SEGMENTS = 16;
  static final byte[] SEAL_MAGIC = "HCIXSEAL".getBytes(StandardCharsets.US_ASCII);
  /** Bump on any change of the seal layout; a seal of another version reads as not matching. */
  static final int SEAL_VERSION = 1;
  /**
   * Seal file layout, little-endian:
   *
   * <pre>
   *  offset 0   magic            8 bytes  "HCIXSEAL"
   *  offset 8   seal version     int      {@link #SEAL_VERSION}
   *  offset 12  map file length  long
   *  offset 20  map file CRC32C  int      over the whole map file
   *  offset 24  seal CRC32C      int      over bytes 0..23
   * </pre>
   */
  static final int SEAL_BYTES = 8 + 4 + 8 + 4 + 4;

  /** Chronicle's committed-header word: an int at offset 8, ready when bit 31 is clear (SizePrefixedBlob). */
  private static final int CHRONICLE_SIZE_WORD_OFFSET = 8;
  private static final int CHRONICLE_HEADER_OFFSET = 12;
  private static final int CHRONICLE_NOT_COMPLETE = 0x8000_0000;
  private static final int CHRONICLE_SIZE_MASK = 0x3FFF_FFFF;
  private static final int CORRUPTIONS_LOGGED = 10;
  private static final int CRC_BUFFER_BYTES = 1 << 20;

  /** Free disk space below which new keys are refused: Chronicle may need to grow the file for them. */
  static final long MIN_FREE_BYTES = 64L << 20;
  private static final long SPACE_CHECK_NANOS = 100_000_000L;

  private final Path file;
  private final ChronicleMap<Long, Long> map;
  private volatile long spaceCheckedAt;
  private volatile boolean lowSpace;
  private volatile long backedLength = -1; // the file length last backed whole, -1 before that succeeded

  private ChronicleIndex(Path file, ChronicleMap<Long, Long> map) {
    this.file = file;
    this.map = map;
    checkSpace(); // backs the whole file now: no SIGBUS on a full disk later
  }

  /**
   * True while new keys are refused: the file is not yet backed whole (a full disk at open), or the disk
   * has less than {@link #MIN_FREE_BYTES} free. Chronicle grows its file (an extra tier) when a segment
   * overflows, and a write onto a hole the disk cannot fill faults; keys already in the map live in
   * backed pages. Checked at most every 100 ms.
   */
  private boolean lowOnSpace() {
    if (System.nanoTime() - spaceCheckedAt >= SPACE_CHECK_NANOS) {
      checkSpace();
    }
    return lowSpace;
  }

  private void checkSpace() {
    spaceCheckedAt = System.nanoTime();
    try {
      long length = Files.size(file);
      if (length != backedLength) { // at open, or Chronicle grew the file: back the new part too
        FileSpace.backWhole(file);
        backedLength = length;
      }
      lowSpace = Files.getFileStore(file).getUsableSpace() < Math.max(MIN_FREE_BYTES, map.offHeapMemoryUsed() / 8);
    } catch (IOException e) {
      if (!lowSpace) {
        LOG.warn("Index file {}: {}; new keys are refused until it can be backed", file, e.getMessage());
      }
      lowSpace = true;
    }
  }

  /**
   * Opens the index persisted at {@code file}, creating it if absent (see the class comment for
   * each case). Never throws for a corrupt or unreadable file: it is deleted and a fresh empty map
   * created in its place, with a warning logged.
   *
   * @param expectedEntries capacity of a newly created map (ignored for an existing file)
   * @param recover true after an unclean shutdown: open with Chronicle's recovery
   * @throws UncheckedIOException if no map file can be created at {@code file}
   */
  public static ChronicleIndex open(Path file, long expectedEntries, boolean recover) {
    Objects.requireNonNull(file, "file");
    if (expectedEntries <= 0) {
      throw new IllegalArgumentException("expectedEntries must be > 0: " + expectedEntries);
    }
    file = file.toAbsolutePath();
    try {
      Files.createDirectories(file.getParent());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the directory of " + file, e);
    }
    ChronicleMapBuilder<Long, Long> builder = builder(expectedEntries);
    long length = lengthOrZero(file);
    if (length == 0) {
      deleteSeal(file);
      return fresh(file, builder);
    }
    SealState seal = checkSeal(file, length);
    deleteSeal(file); // the map may change from here on
    String problem = headerProblem(file, length);
    if (problem == null && !recover && seal == SealState.MISMATCH) {
      problem = "contents changed since its clean-close seal";
    }
    if (problem != null) {
      LOG.warn("Index file {} is corrupt ({}): deleting it and starting with an empty index", file, problem);
      return replaceWithFresh(file, builder);
    }
    try {
      ChronicleMap<Long, Long> map;
      if (recover || seal == SealState.ABSENT) {
        if (!recover) {
          LOG.info("Index file {} has no clean-close seal: opening it with recovery", file);
        }
        CorruptionLogger corruptions = new CorruptionLogger(file);
        map = builder.recoverPersistedTo(file.toFile(), false, corruptions);
        if (corruptions.seen.get() > 0) {
          LOG.warn(
              "Index file {} recovered with {} corruption(s) repaired or dropped; {} entries kept",
              file,
              corruptions.seen.get(),
              map.longSize());
        }
      } else {
        map = builder.createPersistedTo(file.toFile());
      }
      return new ChronicleIndex(file, map);
    } catch (IOException | RuntimeException | AssertionError | InternalError e) {
      LOG.warn("Index file {} cannot be opened: deleting it and starting with an empty index", file, e);
      return replaceWithFresh(file, builder);
    }
  }

  /**
   * At least {@value #MIN_SEGMENTS} lock segments, which is what Chronicle picks for 100k entries. Each
   * segment costs memory: at 100k entries 31.8 B per entry with 16, 32.3 with 32, 35.8 with 256. (256
   * were needed when one flash writer thread installed every entry and contended with every caller's
   * reads: a third of YCSB's load-phase evictions then missed flash with 16. Since evicting threads
   * install their own entries, the main job refuses none with 16.)
   */
  private static ChronicleMapBuilder<Long, Long> builder(long expectedEntries) {
    return ChronicleMap.of(Long.class, Long.class).name("hybridcache-index").entries(expectedEntries)
        .minSegments(MIN_SEGMENTS);
  }

  private static ChronicleIndex replaceWithFresh(Path file, ChronicleMapBuilder<Long, Long> builder) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete corrupt index file " + file, e);
    }
    return fresh(file, builder);
  }

  private static ChronicleIndex fresh(Path file, ChronicleMapBuilder<Long, Long> builder) {
    try {
      FileModes.createFile(file); // empty, with the directory's permissions: Chronicle keeps them
      return new ChronicleIndex(file, builder.createPersistedTo(file.toFile()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create index file " + file, e);
    }
  }

  // ---------------------------------------------------------------- Index

  @Override
  public long get(long hash) {
    Long value = map.get(hash);
    return value == null ? IndexEntry.NONE : value;
  }

  /**
   * {@inheritDoc}
   *
   * @throws IndexFullException if the map has no room for a new key (Chronicle refuses to allocate
   *     another segment tier; it allows some slack over {@code expectedEntries}, about 2x measured
   *     at 1000); the map is unchanged
   * @throws IllegalArgumentException if {@code hash} is 0 or {@code entry} is {@link IndexEntry#NONE}
   */
  @Override
  public long put(long hash, long entry) {
    HeapIndex.checkHash(hash);
    HeapIndex.checkEntry(entry);
    Long previous;
    if (lowOnSpace() && !map.containsKey(hash)) {
      throw new IndexFullException("no new key in " + file + ": less than " + (MIN_FREE_BYTES >> 20)
          + " MiB free, or the file could not be backed whole (its growth could fault)");
    }
    try {
      previous = map.put(hash, entry);
    } catch (IllegalStateException e) {
      if (!map.isOpen()) {
        throw e;
      }
      throw new IndexFullException("index full at " + map.longSize() + " entries: " + file, e);
    }
    return previous == null ? IndexEntry.NONE : previous;
  }

  /**
   * {@inheritDoc} Never inserts: an absent key (including {@code expected == NONE}) returns false.
   *
   * @throws IllegalArgumentException if {@code hash} is 0 or {@code update} is {@link IndexEntry#NONE}
   */
  @Override
  public boolean replace(long hash, long expected, long update) {
    HeapIndex.checkHash(hash);
    HeapIndex.checkEntry(update);
    if (expected == IndexEntry.NONE) {
      return false;
    }
    return map.replace(hash, expected, update);
  }

  @Override
  public boolean remove(long hash, long expected) {
    if (hash == 0 || expected == IndexEntry.NONE) {
      return false;
    }
    return map.remove(hash, expected);
  }

  @Override
  public long remove(long hash) {
    if (hash == 0) {
      return IndexEntry.NONE;
    }
    Long previous = map.remove(hash);
    return previous == null ? IndexEntry.NONE : previous;
  }

  @Override
  public long size() {
    return map.longSize();
  }

  /** Chronicle's off-heap (memory-mapped) bytes: the whole preallocated file, not just used entries. */
  @Override
  public long memoryBytes() {
    return map.offHeapMemoryUsed();
  }

  @Override
  public void forEach(EntryVisitor visitor) {
    Objects.requireNonNull(visitor, "visitor");
    long[][] copy = {new long[64]};
    int[] n = new int[1];
    for (int segment = 0, segments = map.segments(); segment < segments; segment++) {
      n[0] = 0;
      try (MapSegmentContext<Long, Long, ?> context = map.segmentContext(segment)) {
        context.forEachSegmentEntry(
            e -> {
              if (n[0] + 2 > copy[0].length) {
                copy[0] = Arrays.copyOf(copy[0], copy[0].length * 2);
              }
              copy[0][n[0]++] = e.key().get();
              copy[0][n[0]++] = e.value().get();
            });
      }
      long[] pairs = copy[0];
      for (int i = 0; i < n[0]; i += 2) {
        visitor.visit(pairs[i], pairs[i + 1]);
      }
    }
  }

  @Override
  public void clear() {
    map.clear();
  }

  /** Forces the mapped file to disk ({@code msync}); the seal is written by {@link #close} only. */
  @Override
  public void flush() {
    if (map instanceof VanillaChronicleHash) {
      ((VanillaChronicleHash<?, ?, ?, ?>) map).msync();
    }
  }

  /**
   * Closes the map, then writes the clean-close seal. Idempotent. A seal that cannot be written is
   * logged, not thrown: the next open then recovers the file instead of trusting it.
   */
  @Override
  public void close() {
    if (!map.isOpen()) {
      return;
    }
    map.close();
    try {
      writeSeal(file);
    } catch (IOException e) {
      LOG.warn("Cannot write the clean-close seal of {}; the next open will recover it", file, e);
    }
  }

  /** The map file. */
  public Path file() {
    return file;
  }

  // ---------------------------------------------------------------- file checks

  enum SealState {
    VALID,
    ABSENT,
    MISMATCH
  }

  static Path sealPath(Path file) {
    return file.resolveSibling(file.getFileName() + SEAL_SUFFIX);
  }

  private static long lengthOrZero(Path file) {
    try {
      return Files.size(file);
    } catch (NoSuchFileException e) {
      return 0;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot stat index file " + file, e);
    }
  }

  private static void deleteSeal(Path file) {
    try {
      Files.deleteIfExists(sealPath(file));
    } catch (IOException e) {
      LOG.warn("Cannot delete the clean-close seal of {}", file, e);
    }
  }

  private static void writeSeal(Path file) throws IOException {
    long length = Files.size(file);
    int fileCrc = crc32c(file);
    ByteBuffer seal = ByteBuffer.allocate(SEAL_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    seal.put(SEAL_MAGIC).putInt(SEAL_VERSION).putLong(length).putInt(fileCrc);
    CRC32C crc = new CRC32C();
    crc.update(seal.array(), 0, seal.position());
    seal.putInt((int) crc.getValue()).flip();
    AtomicFile.replace(sealPath(file), ch -> AtomicFile.writeFully(ch, seal));
  }

  private static SealState checkSeal(Path file, long length) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(sealPath(file));
    } catch (NoSuchFileException e) {
      return SealState.ABSENT;
    } catch (IOException e) {
      LOG.warn("Cannot read the clean-close seal of {}", file, e);
      return SealState.MISMATCH;
    }
    if (bytes.length != SEAL_BYTES) {
      return SealState.MISMATCH;
    }
    ByteBuffer seal = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, SEAL_BYTES - 4);
    if (!Arrays.equals(bytes, 0, SEAL_MAGIC.length, SEAL_MAGIC, 0, SEAL_MAGIC.length)
        || seal.getInt(8) != SEAL_VERSION
        || seal.getInt(24) != (int) crc.getValue()
        || seal.getLong(12) != length) {
      return SealState.MISMATCH;
    }
    try {
      return crc32c(file) == seal.getInt(20) ? SealState.VALID : SealState.MISMATCH;
    } catch (IOException e) {
      LOG.warn("Cannot read index file {} to check its seal", file, e);
      return SealState.MISMATCH;
    }
  }

  private static int crc32c(Path file) throws IOException {
    CRC32C crc = new CRC32C();
    ByteBuffer buf = ByteBuffer.allocateDirect(CRC_BUFFER_BYTES);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      while (ch.read(buf.clear()) >= 0) {
        crc.update(buf.flip());
      }
    }
    return (int) crc.getValue();
  }

  /**
   * Why Chronicle cannot open {@code file}, or null if its committed header looks sane. Catches what
   * Chronicle would otherwise wait a minute on (a header never marked ready) or misread.
   */
  private static String headerProblem(Path file, long length) {
    if (length < CHRONICLE_HEADER_OFFSET) {
      return "shorter than a Chronicle header: " + length + " bytes";
    }
    ByteBuffer word = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      while (word.hasRemaining()) {
        if (ch.read(word, CHRONICLE_SIZE_WORD_OFFSET + word.position()) < 0) {
          return "truncated header";
        }
      }
    } catch (IOException e) {
      return "unreadable: " + e;
    }
    int sizeWord = word.getInt(0);
    int headerSize = sizeWord & CHRONICLE_SIZE_MASK;
    if ((sizeWord & CHRONICLE_NOT_COMPLETE) != 0) {
      return "header never committed";
    }
    if (headerSize == 0 || CHRONICLE_HEADER_OFFSET + (long) headerSize > length) {
      return "header size " + headerSize + " out of bounds for a " + length + "-byte file";
    }
    return null;
  }

  /** Logs Chronicle's recovery findings: the first few in full; {@link #open} logs the total. */
  private static final class CorruptionLogger implements ChronicleHashCorruption.Listener {
    private final Path file;
    private final AtomicLong seen = new AtomicLong();

    CorruptionLogger(Path file) {
      this.file = file;
    }

    @Override
    public void onCorruption(ChronicleHashCorruption corruption) {
      long n = seen.incrementAndGet();
      if (n <= CORRUPTIONS_LOGGED) {
        LOG.warn(
            "Index file {} recovery: segment {}: {}",
            file,
            corruption.segmentIndex(),
            corruption.message(),
            corruption.exception());
      } else if (n == CORRUPTIONS_LOGGED + 1) {
        LOG.warn("Index file {} recovery: more corruptions found; not logging each", file);
      }
    }
  }
}
