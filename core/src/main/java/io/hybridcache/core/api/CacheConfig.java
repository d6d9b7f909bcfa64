package io.hybridcache.core.api;

import io.hybridcache.core.device.Device;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

/**
 * Immutable, validated configuration of a {@link HybridCache}. Built with {@link #builder(Path)};
 * {@link Builder#build()} validates every field and the error names the field and its bad value.
 * Thread-safe: immutable (the admission policy instance it carries is itself thread-safe).
 *
 * <p>The defaults and their meaning are listed in the configuration table, src/site/config.md.
 *
 * <p>Files: the cache owns its {@link #directory()}. It refuses to open a directory holding anything it
 * did not make, deletes only its own files (on a layout change, see {@link #onLayoutChange()}), locks
 * the directory while open (a second open, in this process or another, fails naming the holder's pid)
 * and makes its files with {@link #filePermissions()}.
 */
public final class CacheConfig {
  public static final long KIB = 1024;
  public static final long MIB = 1024 * KIB;
  public static final long GIB = 1024 * MIB;
  /** Segments the flash tier needs at least: one active per lifetime class, spares for reclaim. */
  public static final int MIN_SEGMENTS = 4;
  /** Largest segment a flash address can point into (23 offset bits in 16-byte units): 128 MiB. */
  public static final long MAX_SEGMENT_BYTES = 128 * MIB;
  /** Largest flash entry (header + key + value) a flash address can describe: 8,519,616 bytes. */
  public static final int MAX_ENTRY_BYTES = 8_519_616;
  /** Longest key (bytes) the cache takes: a longer one is refused by a write and by a read. */
  public static final int MAX_KEY_BYTES = 0xFFFF;
  /** Bytes a flash entry takes besides its key and value (its header). */
  public static final int FLASH_ENTRY_HEADER_BYTES = 40;
  /** Bytes the DRAM tier charges an entry besides its key and value (map node, entry, key wrapper). */
  public static final int DRAM_ENTRY_OVERHEAD_BYTES = 112;
  /**
   * The one name in a cache directory the cache neither reads nor deletes: a directory for a companion
   * store that shares the cache's directory (the schema catalogue's {@code catalog/}).
   */
  public static final String COMPANION_DIRECTORY = "catalog";
  /**
   * Default {@link #reinsertionBudget()}: reclaim may reinsert a tenth of a byte per byte admitted, so
   * reinsertion adds at most about 0.1 to the application's write amplification.
   */
  public static final double DEFAULT_REINSERTION_BUDGET = 0.1;

  private final Path directory;
  private final String name;
  private final long dramBytes;
  private final long flashBytes;
  private final int segmentBytes;
  private final long segmentBytesSetting; // as given: 0 = derived, so toBuilder keeps deriving
  private final double smallObjectShare;
  private final int smallObjectMaxBytes;
  private final double smallObjectLogShare;
  private final int writeBufferBytes;
  private final boolean directIo;
  private final IndexType indexType;
  private final Durability durability;
  private final long expectedEntries;
  private final VictimPolicy victimPolicy;
  private final int reclaimFreeSegments;
  private final double reinsertAllBelowLiveRatio;
  private final double reinsertionBudget;
  private final int writeBuffers;
  private final int writeBuffersTotal;
  private final int writeBuffersTotalSetting; // as given: 0 = derived, so toBuilder keeps deriving
  private final int readBuffers;
  private final Duration cascadeWait;
  private final AdmissionPolicy admission;
  private final Duration faultRetryInterval;
  private final int faultThreshold;
  private final Duration faultWindow;
  private final Duration closeTimeout;
  private final Path writeTrace;
  private final boolean jmx;
  private final boolean trimReclaimed;
  private final MapperKind streamMapper;
  private final int streams;
  private final long placementEpochBytes;
  private final long placementEpochSetting; // as given: 0 = derived, so toBuilder keeps deriving
  private final int dsmGroups;
  private final int dsmAlpha;
  private final LayoutChange onLayoutChange;
  private final String filePermissions;
  private final RemovalListener removalListener;
  private final Executor removalExecutor;
  private final EvictionHook evictionHook;
  private final int evictionKeyBytes;
  private final KeyGroups keyGroups;

  /** The largest {@link #evictionKeyBytes()}. */
  public static final int MAX_EVICTION_KEY_BYTES = 8;
  /** Streams a mapper may use at most. */
  public static final int MAX_STREAMS = 64;
  /** Default {@link Builder#writeBuffers}: one filling and up to three device writes in flight per class. */
  public static final int DEFAULT_WRITE_BUFFERS = 4;
  /** The derived {@link Builder#writeBuffersTotal} is at most this many classes' worth of {@link #writeBuffers()}. */
  public static final int DEFAULT_WRITE_BUFFER_CLASSES = 4;
  /**
   * The derived {@link Builder#writeBuffersTotal} is at least this many classes' worth of {@link
   * #writeBuffers()}: every cache writes two, FRESH (evictions) and SURVIVOR (reclaim's reinsertion). With
   * fewer, one class's writes in flight would hold every buffer and the two would take each other's
   * filling buffer at every switch behind a busy device (a padded page and a wait each time).
   */
  public static final int MIN_WRITE_BUFFER_CLASSES = 2;
  /**
   * The derived {@link Builder#writeBuffersTotal} is {@code dramBytes} / this in whole buffers, within the
   * bounds below: write buffers are DRAM beside the DRAM tier, kept proportionate to it.
   */
  public static final int WRITE_BUFFERS_DRAM_DIVISOR = 16;
  /** Default {@link Builder#readBuffers}: device reads in flight at once (a queue depth) before one waits. */
  public static final int DEFAULT_READ_BUFFERS = 64;
  /** Most {@link Builder#writeBuffersTotal} and {@link Builder#readBuffers} allowed. */
  public static final int MAX_BUFFERS = 4096;
  /**
   * Default {@link Builder#cascadeWait}: when the device falls behind, the write whose eviction found no
   * room waits up to this long (bounded back-pressure) instead of dropping the evicted entry. 200 ms: on
   * the shared virtio disk this was developed on one direct write in a few thousand took 100 ms (the
   * stall report's "last device write completed 98 ms ago"), and 50 ms refused thousands of evictions.
   */
  public static final Duration DEFAULT_CASCADE_WAIT = Duration.ofMillis(200);
  /** Longest {@link Builder#cascadeWait} allowed. */
  public static final Duration MAX_CASCADE_WAIT = Duration.ofSeconds(10);
  /** Longest {@link Builder#closeTimeout} allowed. */
  public static final Duration MAX_CLOSE_TIMEOUT = Duration.ofMinutes(10);
  /** Default {@link Builder#smallObjectMaxBytes}: entries whose key + value fit in 2 KiB are small. */
  public static final int DEFAULT_SMALL_OBJECT_MAX_BYTES = 2048;
  /**
   * Largest {@link Builder#smallObjectMaxBytes}: key + value of one entry of a 4 KiB set page (the page's
   * 32-byte header and a bound of 24 bytes on the entry's header leave 4,040 bytes).
   */
  public static final int MAX_SMALL_OBJECT_BYTES = 4040;
  /** Largest {@link Builder#smallObjectShare}: the log engine keeps at least a tenth of the budget. */
  public static final double MAX_SMALL_OBJECT_SHARE = 0.9;
  /**
   * Default {@link Builder#smallObjectLogShare}: a quarter of the small-object engine's flash is its log
   * (issue 27's steady state, 100 B objects: app write amplification 4.3, 1.17 B of DRAM per object).
   */
  public static final double DEFAULT_SMALL_OBJECT_LOG_SHARE = 0.25;
  /** Smallest {@link Builder#smallObjectLogShare}: one twentieth of the engine's flash. */
  public static final double MIN_SMALL_OBJECT_LOG_SHARE = 0.05;
  /** Largest {@link Builder#smallObjectLogShare}: half of the engine's flash. */
  public static final double MAX_SMALL_OBJECT_LOG_SHARE = 0.5;
  /** Smallest budget of the small-object engine when it is on: 80 KiB (20 slots of one 4 KiB page). */
  public static final long MIN_SMALL_OBJECT_BYTES = 80 * KIB;
  /** Largest derived segment: the segment size before the rule, kept for budgets of 1 GiB and more. */
  public static final long DEFAULT_MAX_SEGMENT_BYTES = 64 * MIB;
  /** Segments a derived segment size aims at: the log engine's budget / this, rounded down to a power of two. */
  public static final int DERIVED_SEGMENTS = 16;

  private CacheConfig(Builder b) {
    this.directory = b.directory;
    this.name = b.name;
    this.dramBytes = b.dramBytes;
    this.flashBytes = b.flashBytes;
    this.segmentBytesSetting = b.segmentBytes;
    this.smallObjectShare = b.smallObjectShare;
    this.smallObjectMaxBytes = b.smallObjectMaxBytes;
    this.smallObjectLogShare = b.smallObjectLogShare;
    this.segmentBytes = (int) b.effectiveSegmentBytes(); // validated <= 128 MiB
    this.writeBufferBytes = (int) b.writeBufferBytes;
    this.directIo = b.directIo;
    this.indexType = b.indexType;
    this.durability = b.durability;
    this.expectedEntries = b.expectedEntries > 0 ? b.expectedEntries : Math.max(16_384, b.flashBytes / 512);
    this.victimPolicy = b.victimPolicy;
    this.reclaimFreeSegments = b.reclaimFreeSegments;
    this.reinsertAllBelowLiveRatio = b.reinsertAllBelowLiveRatio;
    this.reinsertionBudget = b.reinsertionBudget;
    this.writeBuffers = b.writeBuffers;
    this.writeBuffersTotalSetting = b.writeBuffersTotal;
    this.writeBuffersTotal = b.writeBuffersTotal > 0 ? b.writeBuffersTotal
        : derivedWriteBuffersTotal(b.dramBytes, b.writeBufferBytes, b.writeBuffers);
    this.readBuffers = b.readBuffers;
    this.cascadeWait = b.cascadeWait;
    this.admission = b.admission;
    this.faultRetryInterval = b.faultRetryInterval;
    this.faultThreshold = b.faultThreshold;
    this.faultWindow = b.faultWindow;
    this.closeTimeout = b.closeTimeout;
    this.writeTrace = b.writeTrace;
    this.jmx = b.jmx;
    this.trimReclaimed = b.trimReclaimed;
    this.streamMapper = b.streamMapper;
    this.streams = b.streams;
    this.placementEpochSetting = b.placementEpochBytes;
    this.placementEpochBytes = b.placementEpochBytes > 0 ? b.placementEpochBytes
        : Math.max(b.effectiveSegmentBytes(), b.flashBytes / 4);
    this.dsmGroups = b.dsmGroups;
    this.dsmAlpha = b.dsmAlpha;
    this.onLayoutChange = b.onLayoutChange;
    this.filePermissions = b.filePermissions;
    this.removalListener = b.removalListener;
    this.removalExecutor = b.removalExecutor;
    this.evictionHook = b.evictionHook;
    this.evictionKeyBytes = b.evictionKeyBytes;
    this.keyGroups = b.keyGroups;
  }

  public static Builder builder(Path directory) {
    return new Builder().directory(directory);
  }

  public Builder toBuilder() {
    Builder b = new Builder();
    b.directory = directory;
    b.name = name;
    b.dramBytes = dramBytes;
    b.flashBytes = flashBytes;
    b.segmentBytes = segmentBytesSetting;
    b.smallObjectShare = smallObjectShare;
    b.smallObjectMaxBytes = smallObjectMaxBytes;
    b.smallObjectLogShare = smallObjectLogShare;
    b.writeBufferBytes = writeBufferBytes;
    b.directIo = directIo;
    b.indexType = indexType;
    b.durability = durability;
    b.expectedEntries = expectedEntries;
    b.victimPolicy = victimPolicy;
    b.reclaimFreeSegments = reclaimFreeSegments;
    b.reinsertAllBelowLiveRatio = reinsertAllBelowLiveRatio;
    b.reinsertionBudget = reinsertionBudget;
    b.writeBuffers = writeBuffers;
    b.writeBuffersTotal = writeBuffersTotalSetting;
    b.readBuffers = readBuffers;
    b.cascadeWait = cascadeWait;
    b.admission = admission;
    b.faultRetryInterval = faultRetryInterval;
    b.faultThreshold = faultThreshold;
    b.faultWindow = faultWindow;
    b.closeTimeout = closeTimeout;
    b.writeTrace = writeTrace;
    b.jmx = jmx;
    b.trimReclaimed = trimReclaimed;
    b.streamMapper = streamMapper;
    b.streams = streams;
    b.placementEpochBytes = placementEpochSetting;
    b.dsmGroups = dsmGroups;
    b.dsmAlpha = dsmAlpha;
    b.onLayoutChange = onLayoutChange;
    b.filePermissions = filePermissions;
    b.removalListener = removalListener;
    b.removalExecutor = removalExecutor;
    b.evictionHook = evictionHook;
    b.evictionKeyBytes = evictionKeyBytes;
    b.keyGroups = keyGroups;
    return b;
  }

  /**
   * Directory holding segment files, the index and the clean-shutdown marker; the cache owns it: it must
   * be absent, empty, or hold only files of a hybridcache (and a {@code catalog/}).
   */
  public Path directory() { return directory; }
  /** Name used in logs and the JMX ObjectName. */
  public String name() { return name; }
  /** Byte budget of the DRAM tier (keys + values + per-entry overhead). */
  public long dramBytes() { return dramBytes; }
  /** Byte budget of the flash tier: the segment files never exceed it. */
  public long flashBytes() { return flashBytes; }
  /**
   * Size of one segment of the log engine: as set, or derived from the log engine's budget ({@link
   * #logFlashBytes()}): that budget / {@value #DERIVED_SEGMENTS} rounded down to a power of two, at most 64
   * MiB, and at least the power of two that holds a write buffer and the header and summary pages (2 MiB at
   * the default 1 MiB write buffer). So 1 GiB and more keep 64 MiB segments; 256 MiB gets 16 of 16 MiB.
   */
  public int segmentBytes() { return segmentBytes; }
  /** Segments of the log engine: {@link #logFlashBytes()} / {@link #segmentBytes()}. */
  public int segmentCount() { return (int) (logFlashBytes() / segmentBytes); }
  /**
   * Share of {@link #flashBytes()} given to the small-object engine (Kangaroo-style sets of 4 KiB pages
   * with a small log in front); 0 (the default) = off: every flash entry goes to the log engine, as before.
   */
  public double smallObjectShare() { return smallObjectShare; }
  /** Entries whose key + value take at most this many bytes go to the small-object engine when it is on. */
  public int smallObjectMaxBytes() { return smallObjectMaxBytes; }
  /**
   * Share of the small-object engine's flash that is its log, in twentieths (the rest is its sets): the
   * trade between flash writes and DRAM, see {@link Builder#smallObjectLogShare}.
   */
  public double smallObjectLogShare() { return smallObjectLogShare; }
  /** Bytes of the small-object engine: {@code flashBytes x smallObjectShare} rounded down to 4 KiB (0 when off). */
  public long smallObjectBytes() { return smallBytes(flashBytes, smallObjectShare); }
  /** Bytes of the log engine: {@link #flashBytes()} less {@link #smallObjectBytes()}. */
  public long logFlashBytes() { return flashBytes - smallObjectBytes(); }
  /** True when the small-object engine is on ({@link #smallObjectShare()} above 0). */
  public boolean smallObjectsEnabled() { return smallObjectShare > 0; }
  /** Whether an entry of these lengths goes to the small-object engine (when it is on). */
  public boolean isSmallObject(int keyLength, int valueLength) {
    return smallObjectShare > 0 && (long) keyLength + valueLength <= smallObjectMaxBytes;
  }

  static long smallBytes(long flashBytes, double share) {
    return share <= 0 ? 0 : Device.roundDown((long) (flashBytes * share));
  }

  /**
   * The {@link #writeBuffersTotal()} a configuration gets unless set: as many whole buffers as {@code
   * dramBytes} / {@value #WRITE_BUFFERS_DRAM_DIVISOR} holds, at least {@value #MIN_WRITE_BUFFER_CLASSES} x
   * {@code writeBuffers} (FRESH and SURVIVOR at full depth) and at most {@value #DEFAULT_WRITE_BUFFER_CLASSES}
   * x {@code writeBuffers}. At the defaults (1 MiB buffers, 4 a class): 8 buffers up to a 128 MiB DRAM tier
   * (the default 64 MiB included), one more a 16 MiB beyond, 16 from 256 MiB.
   */
  public static int derivedWriteBuffersTotal(long dramBytes, long writeBufferBytes, int writeBuffers) {
    long fits = dramBytes / WRITE_BUFFERS_DRAM_DIVISOR / Math.max(1, writeBufferBytes);
    return (int) Math.max((long) MIN_WRITE_BUFFER_CLASSES * writeBuffers,
        Math.min((long) DEFAULT_WRITE_BUFFER_CLASSES * writeBuffers, fits));
  }

  /** The rule of {@link #segmentBytes()} for a log engine of {@code logBytes} and this write buffer. */
  public static long derivedSegmentBytes(long logBytes, long writeBufferBytes) {
    long target = Long.highestOneBit(Math.max(1, logBytes / DERIVED_SEGMENTS));
    long floor = Long.highestOneBit(Math.max(1, writeBufferBytes + 2 * Device.ALIGNMENT - 1)) << 1;
    return Math.min(MAX_SEGMENT_BYTES, Math.max(floor, Math.min(DEFAULT_MAX_SEGMENT_BYTES, Math.max(64 * KIB, target))));
  }
  public int writeBufferBytes() { return writeBufferBytes; }
  public boolean directIo() { return directIo; }
  public IndexType indexType() { return indexType; }
  /**
   * What an unclean stop keeps ({@link Durability#PROCESS} by default): with the compact index, periodic
   * checkpoints and an invalidation journal make a restart after a process kill warm. With Chronicle only
   * {@code PROCESS} is accepted (its map file is its own checkpoint); after an OS crash either index starts
   * cold unless the compact index runs with {@link Durability#POWER}.
   */
  public Durability durability() { return durability; }
  /** Index capacity hint (Chronicle Map is sized by it). */
  public long expectedEntries() { return expectedEntries; }
  public VictimPolicy victimPolicy() { return victimPolicy; }
  /** Reclaim runs while fewer free segments than this remain. */
  public int reclaimFreeSegments() { return reclaimFreeSegments; }
  /** While live bytes are below this fraction of the flash budget, reclaim reinserts every live entry. */
  public double reinsertAllBelowLiveRatio() { return reinsertAllBelowLiveRatio; }
  /**
   * Bytes reclaim may reinsert (live entries it moves instead of evicting) per byte admitted to flash since
   * the cache opened; once spent, reclaim evicts what it would have moved until admissions earn more. It
   * bounds what reclaim adds to the write amplification; 0 never reinserts, {@link Double#POSITIVE_INFINITY}
   * moves whatever {@link #reinsertAllBelowLiveRatio()} and the read-since-written rule keep.
   */
  public double reinsertionBudget() { return reinsertionBudget; }
  /**
   * Write buffers of {@link #writeBufferBytes()} per lifetime class that writes: one filling, the others
   * being written to the device (several device writes in flight). Memory: at most this many buffers per
   * class, and {@link #writeBuffersTotal()} for all classes together. The evicting thread copies each entry
   * into the filling one itself; this is the bound on what the cascade holds in flight.
   */
  public int writeBuffers() { return writeBuffers; }
  /**
   * Write buffers of all lifetime classes together, made as needed and shared: the direct memory of the
   * write path is at most this many times {@link #writeBufferBytes()} (plus 4 KiB each) however many
   * classes write. A class that needs one while all are in use takes the one of the class that appended
   * least recently (its entries are written first). Unless set, {@link #derivedWriteBuffersTotal}: in
   * proportion to {@link #dramBytes()}, between {@value #MIN_WRITE_BUFFER_CLASSES} x and {@value
   * #DEFAULT_WRITE_BUFFER_CLASSES} x {@link #writeBuffers()}.
   */
  public int writeBuffersTotal() { return writeBuffersTotal; }
  /**
   * Aligned direct buffers that lookups' device reads land in, shared by every reading thread: at most
   * this many reads run at once (more wait for a buffer), and the read path holds at most this many
   * buffers of 64 KiB (plus 4 KiB each), and 4 of the largest entry's span where an entry can exceed
   * 60 KiB, however many threads read.
   */
  public int readBuffers() { return readBuffers; }
  /**
   * How long a dirty DRAM eviction waits for room (a free write buffer, or a segment slot from reclaim)
   * before it is refused (counted in {@link CacheStats#queueRejected()}); {@link #DEFAULT_CASCADE_WAIT} by
   * default, zero never waits. Waiting happens on the thread whose write caused the eviction, so it
   * throttles writers to the device's pace; an eviction on a thread that is reading waits at most 5 ms
   * (a write buffer), never for reclaim.
   */
  public Duration cascadeWait() { return cascadeWait; }
  public AdmissionPolicy admission() { return admission; }
  /** How long the flash tier stays out of service after it degraded before the writer recovers it. */
  public Duration faultRetryInterval() { return faultRetryInterval; }
  /**
   * Device errors within {@link #faultWindow()} that take the whole flash tier out of service (default
   * 8). Fewer cost only what they touched: a read error its segment, a write error the active segments.
   */
  public int faultThreshold() { return faultThreshold; }
  /** The window {@link #faultThreshold()} errors must fall in to degrade the tier (default 60 s). */
  public Duration faultWindow() { return faultWindow; }
  /**
   * The longest {@link HybridCache#close()} waits, in all, for calls in flight, the write-back and the
   * flash writer (default 30 s); a writer that does not finish by then (a hung device) is left behind
   * and the next open recovers instead of starting warm.
   */
  public Duration closeTimeout() { return closeTimeout; }
  /** Device write trace file, or null for none. */
  public Path writeTrace() { return writeTrace; }
  public boolean jmx() { return jmx; }
  /**
   * Discard (punch hole / trim) a segment's slot when reclaim empties it. Off by default: on a file
   * system the next write must then allocate again, which measured at half the speed of an overwrite
   * here; turn it on where the device benefits from trims.
   */
  public boolean trimReclaimed() { return trimReclaimed; }

  /** How lifetime classes map to device streams (write-life hints); default static. */
  public MapperKind streamMapper() { return streamMapper; }
  /** Streams the mapper may use (N; 8 like the seeds' SSDs). */
  public int streams() { return streams; }
  /** Length of a hotness epoch in device bytes written by the cache (default: a quarter of flashBytes). */
  public long placementEpochBytes() { return placementEpochBytes; }
  /** DSM: hotness groups K (at most streams). */
  public int dsmGroups() { return dsmGroups; }
  /** DSM: weight alpha of the outer groups (alpha = K: equal groups). */
  public int dsmAlpha() { return dsmAlpha; }
  /**
   * What open does with a directory made with another layout (segment size or count, index type,
   * format version): {@link LayoutChange#REPLACE} (default) replaces the cache's own files and starts
   * cold, {@link LayoutChange#FAIL} refuses to open.
   */
  public LayoutChange onLayoutChange() { return onLayoutChange; }
  /**
   * POSIX permissions of every file the cache makes, as {@link PosixFilePermissions#toString} writes
   * them (default {@code rw-------}); its directories get the same plus x for each class that may read
   * ({@code rwx------}). Ignored on file systems without POSIX permissions.
   */
  public String filePermissions() { return filePermissions; }
  /** Told of removals and DRAM evictions, or null for none. */
  public RemovalListener removalListener() { return removalListener; }
  /** Where {@link #removalListener()} runs. */
  public Executor removalExecutor() { return removalExecutor; }
  /** Told of evictions by key only, on the evicting thread, or null for none. */
  public EvictionHook evictionHook() { return evictionHook; }
  /**
   * Bytes of each key kept in its segment's summary (0 to {@link #MAX_EVICTION_KEY_BYTES}, default 0), so that
   * reclaim tells an {@link #evictionHook()} of an entry it drops without reading it from the device.
   */
  public int evictionKeyBytes() { return evictionKeyBytes; }
  /** Byte caps per key group ({@link KeyGroups}), or null: no group counted, none capped. */
  public KeyGroups keyGroups() { return keyGroups; }
  /** {@link #filePermissions()} as a set. */
  public Set<PosixFilePermission> filePermissionSet() { return PosixFilePermissions.fromString(filePermissions); }

  /** Largest entry (header + key + value) the flash tier stores; larger ones stay in DRAM only. */
  public int maxFlashEntryBytes() {
    return Math.min(MAX_ENTRY_BYTES, writeBufferBytes);
  }

  @Override
  public String toString() {
    return "CacheConfig{directory=" + directory + ", name=" + name + ", dramBytes=" + dramBytes
        + ", flashBytes=" + flashBytes + ", segmentBytes=" + segmentBytes + ", smallObjectShare=" + smallObjectShare
        + ", smallObjectMaxBytes=" + smallObjectMaxBytes + ", smallObjectLogShare=" + smallObjectLogShare
        + ", writeBufferBytes="
        + writeBufferBytes + ", directIo=" + directIo + ", index=" + indexType + ", durability=" + durability
        + ", expectedEntries="
        + expectedEntries + ", victimPolicy=" + victimPolicy.name() + ", reclaimFreeSegments="
        + reclaimFreeSegments + ", reinsertAllBelowLiveRatio=" + reinsertAllBelowLiveRatio
        + ", reinsertionBudget=" + reinsertionBudget
        + ", writeBuffers=" + writeBuffers + ", writeBuffersTotal=" + writeBuffersTotal + ", readBuffers="
        + readBuffers + ", cascadeWait=" + cascadeWait
        + ", admission=" + admission.name()
        + ", faultRetryInterval=" + faultRetryInterval + ", faultThreshold=" + faultThreshold + ", faultWindow="
        + faultWindow + ", closeTimeout=" + closeTimeout + ", writeTrace=" + writeTrace + ", jmx=" + jmx
        + ", trimReclaimed=" + trimReclaimed + ", streamMapper=" + streamMapper + ", streams=" + streams
        + ", placementEpochBytes=" + placementEpochBytes + ", dsmGroups=" + dsmGroups + ", dsmAlpha=" + dsmAlpha
        + ", onLayoutChange=" + onLayoutChange + ", filePermissions=" + filePermissions + "}";
  }

  /** Mutable builder; not thread-safe. Setters do not validate, {@link #build()} does. */
  public static final class Builder {
    private Path directory;
    private String name = "hybridcache";
    private long dramBytes = 64 * MIB;
    private long flashBytes = GIB;
    private long segmentBytes;
    private double smallObjectShare;
    private int smallObjectMaxBytes = DEFAULT_SMALL_OBJECT_MAX_BYTES;
    private double smallObjectLogShare = DEFAULT_SMALL_OBJECT_LOG_SHARE;
    private long writeBufferBytes = MIB;
    private boolean directIo = true;
    private IndexType indexType = IndexType.HEAP;
    private Durability durability = Durability.PROCESS;
    private long expectedEntries;
    private VictimPolicy victimPolicy = VictimPolicy.greedy();
    private int reclaimFreeSegments = 2;
    private double reinsertAllBelowLiveRatio = 0.5;
    private double reinsertionBudget = DEFAULT_REINSERTION_BUDGET;
    private int writeBuffers = DEFAULT_WRITE_BUFFERS;
    private int writeBuffersTotal;
    private int readBuffers = DEFAULT_READ_BUFFERS;
    private Duration cascadeWait = DEFAULT_CASCADE_WAIT;
    private AdmissionPolicy admission = new AcceptAll();
    private Duration faultRetryInterval = Duration.ofSeconds(5);
    private int faultThreshold = 8;
    private Duration faultWindow = Duration.ofSeconds(60);
    private Duration closeTimeout = Duration.ofSeconds(30);
    private Path writeTrace;
    private boolean jmx = true;
    private boolean trimReclaimed;
    private MapperKind streamMapper = MapperKind.STATIC;
    private int streams = 8;
    private long placementEpochBytes;
    private int dsmGroups = 4;
    private int dsmAlpha = 4;
    private LayoutChange onLayoutChange = LayoutChange.REPLACE;
    private String filePermissions = "rw-------";
    private RemovalListener removalListener;
    private Executor removalExecutor = ForkJoinPool.commonPool();
    private EvictionHook evictionHook;
    private int evictionKeyBytes;
    private KeyGroups keyGroups;

    private Builder() {}

    public Builder directory(Path v) { directory = v; return this; }
    public Builder name(String v) { name = v; return this; }
    public Builder dramBytes(long v) { dramBytes = v; return this; }
    public Builder flashBytes(long v) { flashBytes = v; return this; }
    /** 0 (the default) derives it from the log engine's budget: see {@link CacheConfig#segmentBytes()}. */
    public Builder segmentBytes(long v) { segmentBytes = v; return this; }
    /**
     * Share of flashBytes for the small-object engine, 0 (default: off) or in (0, {@value
     * CacheConfig#MAX_SMALL_OBJECT_SHARE}]; the rest is the log engine's and must still hold its segments.
     */
    public Builder smallObjectShare(double v) { smallObjectShare = v; return this; }
    /**
     * Entries whose key + value fit in this many bytes go to the small-object engine when it is on:
     * 1..{@value CacheConfig#MAX_SMALL_OBJECT_BYTES}, {@value CacheConfig#DEFAULT_SMALL_OBJECT_MAX_BYTES} by default.
     */
    public Builder smallObjectMaxBytes(int v) { smallObjectMaxBytes = v; return this; }
    /**
     * Share of the small-object engine's flash given to its log (the rest holds its sets), in [{@value
     * CacheConfig#MIN_SMALL_OBJECT_LOG_SHARE}, {@value CacheConfig#MAX_SMALL_OBJECT_LOG_SHARE}], rounded to
     * the nearest twentieth; {@value CacheConfig#DEFAULT_SMALL_OBJECT_LOG_SHARE} by default. A larger log
     * gathers more objects per set rewrite (fewer flash writes) and indexes more objects in DRAM: for 100 B
     * objects at 90% full (SmallLogSteadyStateTest), 0.1 holds 1.0 B of DRAM per object (mean; peak 1.1) at an
     * app write amplification of 9, 0.25 1.17 B at 4.3, 0.4 1.33 B (peak 1.6) at 2.7 (src/site/config.md).
     */
    public Builder smallObjectLogShare(double v) { smallObjectLogShare = v; return this; }

    private long effectiveSegmentBytes() {
      return segmentBytes != 0 ? segmentBytes
          : derivedSegmentBytes(flashBytes - smallBytes(flashBytes, smallObjectShare), writeBufferBytes);
    }
    public Builder writeBufferBytes(long v) { writeBufferBytes = v; return this; }
    public Builder directIo(boolean v) { directIo = v; return this; }
    public Builder indexType(IndexType v) { indexType = v; return this; }
    /** {@link Durability#PROCESS} (default), {@code NONE} or {@code POWER}; Chronicle takes only {@code PROCESS}. */
    public Builder durability(Durability v) { durability = v; return this; }
    public Builder expectedEntries(long v) { expectedEntries = v; return this; }
    public Builder victimPolicy(VictimPolicy v) { victimPolicy = v; return this; }
    public Builder reclaimFreeSegments(int v) { reclaimFreeSegments = v; return this; }
    public Builder reinsertAllBelowLiveRatio(double v) { reinsertAllBelowLiveRatio = v; return this; }
    /** At least 0 (infinity allowed), {@value CacheConfig#DEFAULT_REINSERTION_BUDGET} by default. */
    public Builder reinsertionBudget(double v) { reinsertionBudget = v; return this; }
    /** Write buffers per lifetime class, {@value CacheConfig#DEFAULT_WRITE_BUFFERS} by default, 2..64. */
    public Builder writeBuffers(int v) { writeBuffers = v; return this; }
    /**
     * Write buffers of all classes together, 2..{@value CacheConfig#MAX_BUFFERS}; 0 (the default) derives
     * them from dramBytes ({@link CacheConfig#derivedWriteBuffersTotal}).
     */
    public Builder writeBuffersTotal(int v) { writeBuffersTotal = v; return this; }
    /**
     * Read buffers shared by all reading threads, 1..{@value CacheConfig#MAX_BUFFERS},
     * {@value CacheConfig#DEFAULT_READ_BUFFERS} by default.
     */
    public Builder readBuffers(int v) { readBuffers = v; return this; }
    /** 0 = never wait (no room rejects at once); at most {@link CacheConfig#MAX_CASCADE_WAIT}. */
    public Builder cascadeWait(Duration v) { cascadeWait = v; return this; }
    public Builder admission(AdmissionPolicy v) { admission = v; return this; }
    public Builder faultRetryInterval(Duration v) { faultRetryInterval = v; return this; }
    /** At least 1; 1 = any device error degrades the whole tier. */
    public Builder faultThreshold(int v) { faultThreshold = v; return this; }
    public Builder faultWindow(Duration v) { faultWindow = v; return this; }
    /** Positive, at most {@link CacheConfig#MAX_CLOSE_TIMEOUT}. */
    public Builder closeTimeout(Duration v) { closeTimeout = v; return this; }
    public Builder writeTrace(Path v) { writeTrace = v; return this; }
    public Builder jmx(boolean v) { jmx = v; return this; }
    public Builder trimReclaimed(boolean v) { trimReclaimed = v; return this; }
    public Builder streamMapper(MapperKind v) { streamMapper = v; return this; }
    public Builder streams(int v) { streams = v; return this; }
    /** 0 = a quarter of flashBytes (at least one segment). */
    public Builder placementEpochBytes(long v) { placementEpochBytes = v; return this; }
    public Builder dsmGroups(int v) { dsmGroups = v; return this; }
    public Builder dsmAlpha(int v) { dsmAlpha = v; return this; }
    /** {@link LayoutChange#REPLACE} (default): start cold on another layout; {@link LayoutChange#FAIL}: refuse. */
    public Builder onLayoutChange(LayoutChange v) { onLayoutChange = v; return this; }
    /**
     * Permissions of the cache's files, e.g. {@code "rw-------"} (default) or {@code "rw-r-----"}: nine
     * characters of {@code r}, {@code w}, {@code -}; the owner must have {@code rw}, nobody {@code x}.
     */
    public Builder filePermissions(String v) { filePermissions = v; return this; }
    /** Told of removals and DRAM evictions (default none: no cost). */
    public Builder removalListener(RemovalListener v) { removalListener = v; return this; }
    /** Where the removal listener runs (default {@link ForkJoinPool#commonPool()}). */
    public Builder removalExecutor(Executor v) { removalExecutor = v; return this; }
    /** Told of evictions by key only, on the evicting thread (default none: no cost). */
    public Builder evictionHook(EvictionHook v) { evictionHook = v; return this; }
    /**
     * Bytes of each key kept in segment summaries (0 to {@link #MAX_EVICTION_KEY_BYTES}; default 0): what an
     * {@link EvictionHook} gets from a reclaim that drops an entry without reading it. Costs that many bytes
     * of flash per entry.
     */
    public Builder evictionKeyBytes(int v) { evictionKeyBytes = v; return this; }
    /**
     * Byte caps per key group (default none: no group counted, no cost); not with {@code smallObjectShare}
     * above 0 (the small-object engine keeps no per-group count).
     */
    public Builder keyGroups(KeyGroups v) { keyGroups = v; return this; }

    /** Validates every field; the exception message names the first bad field and its value. */
    public CacheConfig build() {
      require(directory != null, "directory", "must be set", directory);
      require(name != null && !name.isBlank() && name.matches("[A-Za-z0-9._-]+"), "name",
          "must be non-empty letters, digits, '.', '_' or '-'", name);
      require(keyGroups == null || smallObjectShare <= 0, "keyGroups",
          "cannot be combined with smallObjectShare above 0 (the small-object engine keeps no per-group count)",
          smallObjectShare);
      require(dramBytes >= MIB, "dramBytes", "must be >= 1 MiB", dramBytes);
      require(flashBytes > 0, "flashBytes", "must be > 0", flashBytes);
      require(segmentBytes == 0 || segmentBytes >= 64 * KIB && segmentBytes <= MAX_SEGMENT_BYTES
              && segmentBytes % Device.ALIGNMENT == 0,
          "segmentBytes", "must be 0 (derive) or a multiple of 4096 in [64 KiB, 128 MiB]", segmentBytes);
      require(smallObjectShare == 0 || smallObjectShare > 0 && smallObjectShare <= MAX_SMALL_OBJECT_SHARE,
          "smallObjectShare", "must be 0 (off) or in (0, " + MAX_SMALL_OBJECT_SHARE + "]", smallObjectShare);
      require(smallObjectMaxBytes >= 1 && smallObjectMaxBytes <= MAX_SMALL_OBJECT_BYTES, "smallObjectMaxBytes",
          "must be in [1, " + MAX_SMALL_OBJECT_BYTES + "] (key + value of one entry of a 4 KiB set page)",
          smallObjectMaxBytes);
      require(smallObjectLogShare >= MIN_SMALL_OBJECT_LOG_SHARE && smallObjectLogShare <= MAX_SMALL_OBJECT_LOG_SHARE,
          "smallObjectLogShare", "must be in [" + MIN_SMALL_OBJECT_LOG_SHARE + ", " + MAX_SMALL_OBJECT_LOG_SHARE
              + "] (of the small-object engine's flash)", smallObjectLogShare);
      require(smallObjectShare == 0 || smallBytes(flashBytes, smallObjectShare) >= MIN_SMALL_OBJECT_BYTES,
          "smallObjectShare", "must give the small-object engine at least 80 KiB of flashBytes " + flashBytes,
          smallObjectShare);
      long segment = effectiveSegmentBytes();
      long logBytes = flashBytes - smallBytes(flashBytes, smallObjectShare);
      require(writeBufferBytes >= Device.ALIGNMENT && writeBufferBytes % Device.ALIGNMENT == 0
              && writeBufferBytes <= segment - 2 * Device.ALIGNMENT,
          "writeBufferBytes", "must be a multiple of 4096 and at most segmentBytes - 8192 (the header page and "
          + "one summary page; segmentBytes " + segment + ")", writeBufferBytes);
      require(logBytes / Math.max(1, segment) >= MIN_SEGMENTS + reclaimFreeSegments, "flashBytes",
          "must hold at least " + MIN_SEGMENTS + " + reclaimFreeSegments segments of segmentBytes (" + segment
          + (segmentBytes == 0 ? ", derived" : "") + ") in the log engine's part (" + logBytes
          + " after smallObjectShare " + smallObjectShare + ")", flashBytes);
      require(indexType != null, "indexType", "must be set", indexType);
      require(durability != null, "durability", "must be set", durability);
      require(indexType != IndexType.CHRONICLE || durability == Durability.PROCESS, "durability",
          "must be PROCESS with indexType CHRONICLE (NONE and POWER apply to the compact HEAP index)", durability);
      require(expectedEntries >= 0, "expectedEntries", "must be >= 0 (0 = derive from flashBytes)", expectedEntries);
      require(victimPolicy != null, "victimPolicy", "must be set", victimPolicy);
      require(reclaimFreeSegments >= 1, "reclaimFreeSegments", "must be >= 1", reclaimFreeSegments);
      require(reinsertAllBelowLiveRatio >= 0 && reinsertAllBelowLiveRatio <= 1, "reinsertAllBelowLiveRatio",
          "must be in [0, 1]", reinsertAllBelowLiveRatio);
      require(reinsertionBudget >= 0, "reinsertionBudget", "must be >= 0 (infinity: no budget)", reinsertionBudget);
      require(writeBuffers >= 2 && writeBuffers <= 64, "writeBuffers", "must be between 2 and 64", writeBuffers);
      require(writeBuffersTotal == 0 || writeBuffersTotal >= 2 && writeBuffersTotal <= MAX_BUFFERS,
          "writeBuffersTotal", "must be 0 (derive) or between 2 and " + MAX_BUFFERS, writeBuffersTotal);
      require(readBuffers >= 1 && readBuffers <= MAX_BUFFERS, "readBuffers", "must be between 1 and " + MAX_BUFFERS,
          readBuffers);
      require(cascadeWait != null && !cascadeWait.isNegative() && cascadeWait.compareTo(MAX_CASCADE_WAIT) <= 0,
          "cascadeWait", "must be between 0 and 10 s", cascadeWait);
      require(admission != null, "admission", "must be set", admission);
      require(faultRetryInterval != null && !faultRetryInterval.isNegative(), "faultRetryInterval",
          "must be >= 0", faultRetryInterval);
      require(faultThreshold >= 1 && faultThreshold <= 1_000_000, "faultThreshold", "must be in [1, 1000000]",
          faultThreshold);
      require(faultWindow != null && faultWindow.compareTo(Duration.ofMillis(1)) >= 0
          && faultWindow.compareTo(Duration.ofDays(1)) <= 0, "faultWindow", "must be between 1 ms and 1 day",
          faultWindow);
      require(closeTimeout != null && closeTimeout.compareTo(Duration.ofMillis(1)) >= 0
          && closeTimeout.compareTo(MAX_CLOSE_TIMEOUT) <= 0, "closeTimeout", "must be between 1 ms and "
          + MAX_CLOSE_TIMEOUT, closeTimeout);
      require(streamMapper != null, "streamMapper", "must be set", streamMapper);
      require(streams >= 1 && streams <= MAX_STREAMS, "streams", "must be in [1, " + MAX_STREAMS + "]", streams);
      require(placementEpochBytes == 0 || placementEpochBytes >= segment, "placementEpochBytes",
          "must be 0 (derive) or >= segmentBytes", placementEpochBytes);
      require(dsmGroups >= 2 && dsmGroups <= Math.max(2, streams), "dsmGroups",
          "must be in [2, max(2, streams)]", dsmGroups);
      require(dsmAlpha >= 2, "dsmAlpha", "must be >= 2", dsmAlpha);
      require(onLayoutChange != null, "onLayoutChange", "must be set", onLayoutChange);
      require(validFilePermissions(filePermissions), "filePermissions",
          "must be nine characters like rw------- (r, w or -; the owner rw, no x)", filePermissions);
      require(removalExecutor != null, "removalExecutor", "must be set", removalExecutor);
      require(evictionKeyBytes >= 0 && evictionKeyBytes <= MAX_EVICTION_KEY_BYTES, "evictionKeyBytes",
          "must be in [0, " + MAX_EVICTION_KEY_BYTES + "]", evictionKeyBytes);
      return new CacheConfig(this);
    }

    private static boolean validFilePermissions(String v) {
      return v != null && v.matches("rw-[r-][w-]-[r-][w-]-");
    }

    private static void require(boolean ok, String field, String rule, Object value) {
      if (!ok) {
        throw new IllegalArgumentException(field + " " + rule + ", was " + value);
      }
    }
  }
}
