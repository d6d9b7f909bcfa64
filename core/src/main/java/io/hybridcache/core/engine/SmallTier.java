package io.hybridcache.core.engine;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.SmallObjectStats;
import io.hybridcache.core.device.AtomicFile;
import io.hybridcache.core.device.Device;
import io.hybridcache.core.device.FileDevice;
import io.hybridcache.core.device.FileModes;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The small-object engine as the cache drives it: a Kangaroo-style log ({@link SmallLog}, KLog) in front of
 * a set-associative region of 4 KiB pages ({@link SmallSets}, KSet; CacheLib's BigHash, OSDI 2020; Kangaroo,
 * SOSP 2021), on a device of its own in {@value OwnedFiles#SMALL}/ holding {@link CacheConfig#smallObjectBytes()}.
 * The {@link Engine} sends it the DRAM evictions of entries whose key + value fit in {@link
 * CacheConfig#smallObjectMaxBytes()}; everything else goes to the log engine
 * ({@link FlashTier}).
 *
 * <p>Thread-safe. <b>Concurrency.</b> Every call runs on the caller's thread but a removal's I/O; one thread
 * of its own, the reclaimer, writes the log's full buffer ({@link SmallLog#flushIfWanted}) and empties the
 * log's oldest pages ahead of the puts ({@link SmallLog#reclaimAhead}). An eviction ({@link #put}) never
 * writes on the caller's thread: with the buffer full it waits for the reclaimer's flush until its deadline (the log
 * engine's back-pressure: {@code cascadeWait}, 5 ms on a reading thread), then is refused and counted; a
 * wait that timed out stalls the engine (evictions refused at once) until a flush ends, so a hung device
 * costs one wait. Each wait (an eviction's for room, a remove's for the log's I/O) is a cascade wait of the
 * cache's figures, and a timeout is said in a WARN at most every {@value StallReports#SECONDS} s, as the log
 * engine's are. {@link #invalidate} of a key the engine may hold ({@link SmallLog#mayHold}, DRAM only; any
 * other costs no I/O) runs the removal (its wait for the log's I/O, its page reads and rewrite) on a second
 * thread of its own, the remover, and waits for it at most {@code max(cascadeWait, 1 s)}; past that it
 * empties the engine (a new epoch: no version of the key stays reachable; the hung write, when it lands, is
 * a page of the old epoch, a miss) rather than hang, and while that removal stays hung, later ones empty it
 * at once ({@link Removal}): a hung device costs one wait and holds the remover alone. The
 * engine calls {@link #put} inside Caffeine's atomic removal of the evicted key and {@link #invalidate}
 * and {@link #supersede} inside the DRAM tier's {@code compute} for the key, so a key's writes to this tier
 * are ordered by its map-bin lock, as for the log engine. {@link #invalidate} removes every version of the
 * key (log and set) before it returns, {@link #supersede} (a put that leaves them, see {@link Engine})
 * only looks in DRAM; both then bump the key's stamp (one of {@value #STAMP_STRIPES} striped counters); a
 * lookup that will promote what it read into DRAM takes the stamp before its read and promotes only if the
 * stamp and {@link #clears()} are unchanged under the key's map-bin lock ({@link #unchangedSince}), so an
 * older version read while a put or remove ran never lands in DRAM after it. The stamp is bumped after the
 * removal: a lookup whose read served the older version finished before the removal published, so it
 * took its stamp before the bump. TTL: every read checks expiry, and a lookup returns the entry's expiry,
 * which a promoted copy keeps.
 *
 * <p><b>Format.</b> {@link SmallSetPage} for set pages and log pages (src/site/format.md); slots
 * {@code [0, logSlots)} of the device are the log ({@link CacheConfig#smallObjectLogShare()} of its
 * {@value #SLOTS} slots), the rest the sets.
 *
 * <p><b>Reclaim.</b> The sets evict inside their page (RRIP); the log reclaims its oldest page into the
 * sets (threshold admission). {@link #clear} and any Throwable from the region replace the region by a new
 * one with a fresh epoch over the same slots: every page written before reads as empty, so nothing older
 * comes back (a write of the old region still in flight may overwrite a new page: a miss, never a value of
 * another epoch). Restart: warm after a clean close ({@link #close(boolean, long)} writes the log's buffer,
 * syncs the slot files and writes a {@link SmallCheckpoint} of the filters, counts, log index and the
 * highest sequence held, which the next open loads and deletes before serving; the cache then raises its
 * sequence counter to that, whatever state the log engine opened in), cold otherwise (also when the
 * checkpoint cannot be read or used, whatever the Throwable: it is deleted all the same; a new epoch, and
 * the slot files are recreated): after a kill -9 nothing records what was removed since the last save, so
 * nothing of the region is trusted.
 * Lifetime classes are ignored here (one log, one region).
 */
final class SmallTier implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(SmallTier.class);
  /**
   * Slots of the device: {@link #logSlots} for the log ({@link CacheConfig#smallObjectLogShare()}, a quarter by
   * default: {@link SmallLog#RECOMMENDED_LOG_SHARE}, chosen from SmallLogSteadyStateTest's figures), the rest
   * for the sets.
   */
  static final int SLOTS = 20;
  /** Log objects a set must gather before reclaim moves them (Kangaroo's threshold n). */
  static final int THRESHOLD = SmallLog.RECOMMENDED_THRESHOLD;
  static final int STAMP_STRIPES = 4096;

  private record Region(SmallSets sets, SmallLog log) {}

  private final String name;
  private final Device device;
  private final Path checkpoint;
  private final boolean warm;
  private volatile Region region;
  private final AtomicLongArray stamps = new AtomicLongArray(STAMP_STRIPES);
  private final AtomicLong clears = new AtomicLong();
  /**
   * True while a reset that had to empty the engine failed (no memory for the new region): lookups miss,
   * puts are refused and keys() lists nothing until the reclaimer's next reset succeeds.
   */
  private volatile boolean broken;
  /** Cache-wide clears under way ({@link #beginClear}): lookups miss meanwhile. */
  private final java.util.concurrent.atomic.AtomicInteger clearing = new java.util.concurrent.atomic.AtomicInteger();
  /** Reclaims log pages ahead of the puts, off their threads (null for a tier opened without it). */
  private final Thread reclaimer;
  /** Slots {@code [0, logSlots)} are the log, the rest the sets. */
  private final int logSlots;
  /**
   * Reads the log pages a reclaim's set moves need, {@value #IO_THREADS} at a time, and makes those
   * moves beside the reclaimer ({@link SmallLog#ioThreads}): daemon threads, stopped by close once the
   * reclaimer has ended.
   */
  private final java.util.concurrent.ExecutorService ioThreads;
  static final int IO_THREADS = 4;
  private final Runnable wakeReclaimer;
  private final LongAdder refusals = new LongAdder();
  private final StallReports stallReports = new StallReports();
  private final LongAdder stallTimeouts = new LongAdder();
  private final LongAdder stallWarnings = new LongAdder();
  /** How long an eviction waits for the log's room ({@code cascadeWait}): what a stall report says. */
  private final long cascadeWaitNanos;
  /** Told of each object that leaves the engine for room (key, value): the cache's removal listener. */
  private volatile java.util.function.BiConsumer<byte[], byte[]> onEvicted = (k, v) -> { };
  /**
   * The highest sequence of any version this engine may hold: of every put since the open, and of the
   * warm open's checkpoint. Saved with the checkpoint, and the cache's sequence counter is raised to it at
   * a warm open ({@link #maxSequence}), so no later put gets a sequence below a version held here.
   */
  private final java.util.concurrent.atomic.LongAccumulator maxSequence =
      new java.util.concurrent.atomic.LongAccumulator(Math::max, 0);
  /**
   * How long {@link #invalidate} waits for a removal (the log's I/O lock, then the removal's page reads and
   * writes) before it empties the engine instead: {@code cascadeWait}, at least {@value
   * #MIN_REMOVE_WAIT_MILLIS} ms (a reclaim's page takes milliseconds; only a device that hangs takes this
   * long).
   */
  private final long removeWaitNanos;
  /** The cache's close deadline once its close began ({@link #closing}), else {@link #NOT_CLOSING}. */
  private volatile long closeDeadlineNanos = NOT_CLOSING;
  private static final long NOT_CLOSING = Long.MIN_VALUE;
  static final long MIN_REMOVE_WAIT_MILLIS = 1000;
  /**
   * Runs every removal that may need I/O ({@link Removal}), so its caller waits at most {@link
   * #removeWaitNanos}: one daemon thread, started by the first removal (removals take the log's I/O lock,
   * one at a time, anyway), stopped by close once it is idle.
   */
  private final java.util.concurrent.ThreadPoolExecutor remover;
  /**
   * The removal whose caller gave up while it ran (a hung device holds the {@link #remover}), null once it
   * ended; until then, {@link #invalidate} empties the engine at once instead of waiting behind it.
   */
  private final java.util.concurrent.atomic.AtomicReference<Removal> stuckRemoval =
      new java.util.concurrent.atomic.AtomicReference<>();
  /**
   * The log whose flush an eviction waited for in vain, and its flush count then ({@link #put}): stalled
   * until a flush ends (of that log, or of the region that replaced it).
   */
  private volatile SmallLog stalledLog;
  private volatile long stalledFlushes;
  private volatile boolean stopping;
  /** Throwables the reclaimer caught (each also counted in {@code faults}); tests. */
  final LongAdder reclaimerFaults = new LongAdder();

  private final LongAdder bytesAdmitted = new LongAdder();
  private final LongAdder objectsAdmitted = new LongAdder();
  private final LongAdder hits = new LongAdder();
  private final LongAdder lookups = new LongAdder();
  private final LongAdder faults = new LongAdder();
  private final LongAdder regionResets = new LongAdder();
  /** Objects held by regions a fault emptied (their keys unknown: no removal event). */
  private final LongAdder objectsLostToResets = new LongAdder();
  /** Counters of regions replaced by {@link #clear} or a fault, so the figures stay cumulative. */
  private final long[] retired = new long[Figure.values().length];

  /** The cumulative figures a region keeps and a reset must carry over. */
  private enum Figure { BLOOM_FP, PAGE_READS, SET_REWRITES, OBJECTS_INSERTED, SET_BYTES, LOG_PAGES, LOG_HITS,
    DAMAGED, READ_ERRORS, WRITE_ERRORS, LOG_ERRORS, DROPPED,
    LOG_PAGE_READS, BUFFER_HITS, OOM_MISSES, EVICTED, WAITS, LOST }

  private SmallTier(String name, Device device, Path checkpoint, SmallCheckpoint.Loaded warm,
      java.time.Duration cascadeWait, int logSlots) {
    this.name = name;
    this.logSlots = logSlots;
    java.util.concurrent.atomic.AtomicInteger threads = new java.util.concurrent.atomic.AtomicInteger();
    this.ioThreads = java.util.concurrent.Executors.newFixedThreadPool(IO_THREADS, r -> {
      Thread t = new Thread(r, "hybridcache-small-io-" + name + "-" + threads.incrementAndGet());
      t.setDaemon(true); // never keeps the application's JVM alive
      return t;
    });
    this.removeWaitNanos = Math.max(cascadeWait.toNanos(), MIN_REMOVE_WAIT_MILLIS * 1_000_000L);
    this.cascadeWaitNanos = cascadeWait.toNanos();
    this.remover = new java.util.concurrent.ThreadPoolExecutor(1, 1, 0, java.util.concurrent.TimeUnit.NANOSECONDS,
        new java.util.concurrent.LinkedBlockingQueue<>(), r -> {
          Thread t = new Thread(r, "hybridcache-small-remove-" + name);
          t.setDaemon(true); // never keeps the application's JVM alive
          return t;
        });
    this.device = device;
    this.checkpoint = checkpoint;
    Region r = null;
    if (warm != null) {
      try {
        r = newRegion(warm);
        maxSequence.accumulate(warm.maxSequence());
      } catch (Throwable t) { // a state that does not fit, no memory for it: cold (a new epoch hides every old page)
        LOG.warn("{}: the small-object engine's saved state cannot be used ({}); starting cold", name, t.toString());
      }
    }
    this.region = r != null ? r : newRegion(null);
    this.warm = r != null;
    this.reclaimer = new Thread(this::reclaimLoop, "hybridcache-small-reclaim-" + name);
    reclaimer.setDaemon(true); // never keeps the application's JVM alive; close stops it
    Thread t = reclaimer;
    this.wakeReclaimer = () -> java.util.concurrent.locks.LockSupport.unpark(t);
  }

  /**
   * The reclaimer's loop: writes the log's buffer when an eviction waits for room (with the reclaim a full
   * ring then needs), and while the log is low on free pages reclaims its oldest page (moves, drops,
   * readmissions), one page per turn. Woken by an eviction that found the buffer full or made the log low,
   * and every 100 ms as a safety net. Any Throwable is
   * a counted fault that empties the engine ({@link #fault}); the thread lives on until close.
   */
  private void reclaimLoop() {
    while (!stopping) {
      try {
        if (broken && !retryReset()) {
          java.util.concurrent.locks.LockSupport.parkNanos(this, 100_000_000L);
          continue;
        }
        Region r = region;
        while (!stopping && (r.log().flushIfWanted() | r.log().reclaimAhead())) {
          // a waiting eviction's flush first, then one page of reclaim per turn
        }
      } catch (Throwable t) {
        reclaimerFaults.increment();
        fault("reclaim", t);
      }
      if (!stopping) {
        java.util.concurrent.locks.LockSupport.parkNanos(this, 100_000_000L);
      }
    }
  }

  /**
   * Opens the engine's device in {@code config.directory()/small}: warm from the checkpoint of a clean
   * close ({@link SmallCheckpoint}), which it deletes before anything is served, else cold (a new epoch,
   * and the slot files are recreated).
   */
  static SmallTier open(CacheConfig config, FlashOpener.DeviceFactory devices, Set<PosixFilePermission> perms)
      throws IOException {
    return open(config, devices, perms, SmallCheckpoint::read);
  }

  /** As above, reading the checkpoint with {@code reader} (tests: a read that throws). */
  static SmallTier open(CacheConfig config, FlashOpener.DeviceFactory devices, Set<PosixFilePermission> perms,
      SmallCheckpoint.Reader reader) throws IOException {
    Path dir = config.directory().resolve(OwnedFiles.SMALL);
    FileModes.createDirectory(dir, FileModes.forDirectory(perms));
    long slotBytes = Device.roundDown(config.smallObjectBytes() / SLOTS);
    Path checkpoint = dir.resolve(SmallCheckpoint.FILE);
    long started = System.nanoTime();
    int logSlots = logSlots(config.smallObjectLogShare());
    SmallCheckpoint.Loaded warm = readCheckpoint(config.name(), reader, checkpoint, geometry(slotBytes, logSlots));
    if (Files.deleteIfExists(checkpoint)) { // a bad one as well: it costs one cold open, never every later one
      AtomicFile.syncDirectory(dir); // gone before anything is served: a crash from now on opens cold
    }
    if (warm == null) {
      deleteSlotFiles(dir);
    }
    Device device = devices.open(dir, SLOTS, slotBytes, config.directIo());
    try {
      SmallTier tier = new SmallTier(config.name(), device, checkpoint, warm, config.cascadeWait(), logSlots);
      tier.reclaimer.start();
      LOG.info("{}: small-object engine on ({} bytes, a log of {}/{} of them, entries of key + value <= {} bytes,"
          + " {} sets, {})", config.name(), SLOTS * slotBytes, logSlots, SLOTS, config.smallObjectMaxBytes(),
          tier.region.sets().sets(),
          tier.warm ? "warm from the clean close's checkpoint: " + tier.region.sets().stats().entries()
              + " objects in sets, " + tier.region.log().liveObjects() + " in the log, "
              + (System.nanoTime() - started) / 1_000_000 + " ms" : "cold");
      return tier;
    } catch (RuntimeException | Error e) {
      device.close();
      throw e;
    }
  }

  /**
   * The direct memory the engine holds, however many threads call it: its sets' pools of page buffers (the
   * lookups' and the writers', which the log's page reads share) and the log's write page (about 0.27 MiB);
   * a {@link #keys} scan holds 1 MiB more while it runs.
   */
  static long directBoundBytes() {
    return ReadBuffers.boundBytes(SmallSets.Options.DEFAULT.readBuffers() + SmallSets.WRITER_BUFFERS,
        SmallSetPage.PAGE_BYTES) + Device.roundUp(SmallSetPage.PAGE_BYTES) + Device.ALIGNMENT;
  }

  /**
   * The checkpoint's state, or null (cold) if there is none or it cannot be read: any Throwable, an
   * OutOfMemoryError included (the state is as large as the engine's DRAM), is logged and opens cold.
   */
  private static SmallCheckpoint.Loaded readCheckpoint(String name, SmallCheckpoint.Reader reader, Path file,
      SmallCheckpoint.Geometry g) {
    try {
      return reader.read(file, g);
    } catch (Throwable t) {
      LOG.warn("{}: cannot read the small-object engine's checkpoint {} ({}); starting cold", name, file,
          t.toString());
      return null;
    }
  }

  /** The highest sequence of any version this engine may hold (the cache's counter starts above it). */
  long maxSequence() {
    return maxSequence.get();
  }

  /** Slots of the log for a {@link CacheConfig#smallObjectLogShare()}: the nearest twentieth, 1..10. */
  static int logSlots(double logShare) {
    return (int) Math.max(1, Math.min(SLOTS / 2, Math.round(logShare * SLOTS)));
  }

  /** The region's shape for a device of {@code slotBytes} slots: what a checkpoint must match. */
  static SmallCheckpoint.Geometry geometry(long slotBytes, int logSlots) {
    long sets = slotBytes / SmallSetPage.PAGE_BYTES * (SLOTS - logSlots);
    return new SmallCheckpoint.Geometry(SLOTS, slotBytes, logSlots, (int) Math.min(Integer.MAX_VALUE, sets),
        SmallSets.Options.DEFAULT.bloomBitsPerSet(), SmallSets.Options.DEFAULT.bloomHashes(), SmallLog.TAG_BITS);
  }

  /**
   * Deletes the slot files and checkpoint of the small region (own names only): for a cold open, whose
   * new epoch would hide their contents anyway, and a layout change.
   */
  static void deleteSlotFiles(Path dir) throws IOException {
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path p : entries) {
        if (isOwnFile(p.getFileName().toString()) && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
          Files.delete(p);
        }
      }
    }
  }

  /** The names this engine makes in its directory: slot files, the probe, the checkpoint and its temp file. */
  static boolean isOwnFile(String fileName) {
    return FileDevice.isOwnFile(fileName) || fileName.equals(SmallCheckpoint.FILE)
        || fileName.equals(SmallCheckpoint.FILE + AtomicFile.TEMP_SUFFIX);
  }

  /** Test seam: the next {@code n} new regions fail as with no memory left ({@link #cannotEmpty}). */
  void failNewRegions(int n) {
    failNewRegions.set(n);
  }

  private final java.util.concurrent.atomic.AtomicInteger failNewRegions = new java.util.concurrent.atomic.AtomicInteger();

  /** True unless a failed reset keeps the engine out of service ({@link #broken}). */
  boolean inService() {
    return !broken;
  }

  /** Test seam: the reclaimer's retry of a failed reset, on the caller's thread; true once emptied. */
  boolean retryResetNow() {
    return retryReset();
  }

  private Region newRegion(SmallCheckpoint.Loaded saved) {
    if (failNewRegions.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new OutOfMemoryError("test: no memory for a new region");
    }
    SmallSets sets = new SmallSets(device, logSlots, SLOTS - logSlots, SmallSets.Options.DEFAULT,
        saved == null ? null : saved.sets());
    SmallLog log = new SmallLog(device, 0, logSlots, sets, THRESHOLD, true, SmallLog.TAG_BITS,
        saved == null ? null : saved.log());
    log.ioThreads(ioThreads);
    log.onEvicted(e -> onEvicted.accept(e.key(), e.value()));
    return new Region(sets, log);
  }

  /** Pages of the log and sets of the region (tests). */
  long logPages() {
    return region.log().pages();
  }

  long sets() {
    return region.sets().sets();
  }

  /** Objects live in the log (tests). */
  long logObjects() {
    return region.log().liveObjects();
  }

  /** True if this open took over the state of a clean close. */
  boolean openedWarm() {
    return warm;
  }

  /** The key's stamp: changes whenever an {@link #invalidate} of a key of its stripe returns. */
  long stamp(long keyHash) {
    return stamps.get(stripe(keyHash));
  }

  /** Bumped by every {@link #clear}. */
  long clears() {
    return clears.get();
  }

  /** True if no invalidate of the key's stripe and no clear completed since the stamp and count were taken. */
  boolean unchangedSince(long keyHash, long stamp, long clearsSeen) {
    return stamps.get(stripe(keyHash)) == stamp && clears.get() == clearsSeen;
  }

  private static int stripe(long keyHash) {
    return (int) (keyHash ^ (keyHash >>> 32)) & (STAMP_STRIPES - 1);
  }

  /**
   * The newest version of {@code key} (value, sequence, expiry), or null (a fault is a miss, counted, and
   * resets the region).
   */
  SmallSetPage.Entry lookup(byte[] key) {
    lookups.increment();
    if (clearing.get() > 0 || broken) {
      return null; // a clear is under way (DRAM may have dropped a newer version this engine still shadows),
                   // or the engine could not be emptied: it serves nothing until it is
    }
    SmallSetPage.Entry e;
    try {
      e = region.log().lookup(key);
    } catch (Throwable t) {
      fault("lookup", t);
      return null;
    }
    if (e != null) {
      hits.increment();
    }
    return e;
  }

  /** The newest value of {@code key}, or null ({@link #lookup}). */
  byte[] get(byte[] key) {
    SmallSetPage.Entry e = lookup(key);
    return e == null ? null : e.value();
  }

  /**
   * Stores a version of an evicted entry; false if it was not stored (the key then misses). Never writes on
   * the caller's thread while the reclaimer runs: a full log buffer is the reclaimer's to write, and the
   * call waits for room until {@code deadlineNanos}, not at all while the engine is stalled (an earlier
   * eviction's wait timed out and no flush has ended since: a hung device costs one wait). A refusal for
   * want of room is counted ({@link #refusals}).
   */
  boolean put(byte[] key, long keyHash, byte[] value, long sequence, long expiryMillis, long deadlineNanos) {
    maxSequence.accumulate(sequence); // before it can be held: a save always covers it
    if (broken) {
      refusals.increment();
      return false;
    }
    try {
      SmallLog log = region.log();
      boolean stored;
      if (stopping || !reclaimer.isAlive()) { // no flusher (closing, or never started): the caller flushes
        stored = log.put(key, value, sequence, expiryMillis);
      } else {
        SmallLog st = stalledLog; // a region replaced since (a fault) is stalled until its first flush ends
        boolean stalled = st != null && log.flushes() == (st == log ? stalledFlushes : 0);
        stored = log.offer(key, value, sequence, expiryMillis, stalled ? System.nanoTime() : deadlineNanos,
            wakeReclaimer);
        if (!stored) {
          refusals.increment();
          if (!stalled && System.nanoTime() - deadlineNanos >= 0) {
            stalledFlushes = log.flushes();
            stalledLog = log;
            reportStall("an eviction", cascadeWaitNanos, "until a flush of the log ends, evictions into it are "
                + "refused without waiting");
          }
        }
      }
      if (log.low()) {
        java.util.concurrent.locks.LockSupport.unpark(reclaimer);
      }
      if (stored) {
        bytesAdmitted.add(EntryFormat.entryBytes(key.length, value.length));
        objectsAdmitted.increment();
      }
      return stored;
    } catch (Throwable t) {
      fault("write", t);
      return false;
    }
  }

  /** Waits that timed out: an eviction's for the log's room, a remove's for the log's I/O (tests). */
  long stallTimeouts() {
    return stallTimeouts.sum();
  }

  /** Timeouts reported by a WARN (at most one per {@value StallReports#SECONDS} s; tests). */
  long stallReports() {
    return stallWarnings.sum();
  }

  /**
   * A wait for the engine's device timed out ({@code what} waited {@code waitedNanos}): counted, and said
   * at most once per {@value StallReports#SECONDS} s, as the log engine says its own ({@link FlashTier}).
   */
  private void reportStall(String what, long waitedNanos, String then) {
    stallTimeouts.increment();
    if (!stallReports.due(System.nanoTime())) {
      return;
    }
    stallWarnings.increment();
    LOG.warn("{}: {} waited {} ms for the small-object engine's log and was refused; {} (last flush of its log "
        + "ended: {} flushes so far; reported at most every {} s)", name, what, waitedNanos / 1_000_000, then,
        region.log().flushes(), StallReports.SECONDS);
  }

  /**
   * The cache's close began, to end by {@code deadlineNanos}: from now on a remove (the close's write-back of
   * a flagged entry removes the older version here) waits at most until then, so close stays within its
   * {@code closeTimeout}; one that times out empties the engine as any other.
   */
  void closing(long deadlineNanos) {
    closeDeadlineNanos = deadlineNanos == NOT_CLOSING ? deadlineNanos + 1 : deadlineNanos;
  }

  /** Evictions refused for want of room in the log's buffer (a flush that did not come in time). */
  long refusals() {
    return refusals.sum();
  }

  /**
   * Makes every version of {@code key} unreachable before it returns, then bumps its stamp. True if a
   * version was found. Call inside the DRAM tier's compute for the key.
   */
  boolean invalidate(byte[] key, long keyHash) {
    boolean found;
    try {
      found = remove(region.log(), key, keyHash);
    } catch (Throwable t) {
      if (t instanceof SmallLog.IoWaitTimeout) {
        reportStall("a remove", removeWaitNanos, "the engine is emptied instead (a new epoch)");
      }
      fault("remove", t); // the region is replaced: no version of anything in it stays reachable
      found = false;
    }
    stamps.incrementAndGet(stripe(keyHash));
    return found;
  }

  /**
   * Removes every version of the key from {@code log} (and its sets), waiting at most {@link
   * #removeWaitNanos}: a key the engine cannot hold costs DRAM lookups only ({@link SmallLog#mayHold});
   * any other is removed on the {@link #remover} thread, which this caller waits for (the hand-off: a queue
   * offer and two thread wake-ups, beside a set page's device read and rewrite). Throws (the caller empties the
   * engine) if the removal did not end by then, or the remover is still held by one that did not: a hung
   * device costs one wait.
   */
  private boolean remove(SmallLog log, byte[] key, long keyHash) throws Throwable {
    if (!log.mayHold(keyHash)) {
      return false; // no version of it in the log or its set; only a put, ordered after this call, adds one
    }
    if (stuckRemoval.get() != null) {
      throw new IllegalStateException("an earlier remove still waits for the small-object engine's device");
    }
    long deadline = System.nanoTime() + removeWaitNanos;
    long closing = closeDeadlineNanos;
    if (closing != NOT_CLOSING && closing - deadline < 0) {
      deadline = closing; // the cache's close is bounded by its closeTimeout: no remove waits past it
    }
    Removal removal = new Removal(log, key, deadline);
    remover.execute(removal); // rejected once closed: a fault, the engine emptied
    return removal.await();
  }

  /**
   * One removal, run on the {@link #remover} thread and waited for by its caller until its deadline (the
   * log's wait for its I/O lock ends then too). A caller that gives up abandons it: one that has not
   * started never runs; one that runs (a device that hangs) is left to end when the device moves, its
   * region already replaced by the caller's fault, and marks the engine stalled until then ({@link
   * #stuckRemoval}); a Throwable it ends with then is counted (no reset: its region is gone).
   */
  private final class Removal implements Runnable {
    private static final int QUEUED = 0;
    private static final int RUNNING = 1;
    private static final int ENDED = 2;
    private static final int ABANDONED = 3;

    private final SmallLog log;
    private final byte[] key;
    private final long deadlineNanos;
    private final java.util.concurrent.atomic.AtomicInteger state =
        new java.util.concurrent.atomic.AtomicInteger(QUEUED);
    private final java.util.concurrent.CountDownLatch ended = new java.util.concurrent.CountDownLatch(1);
    /** Written by the remover before it counts {@link #ended} down, read by the caller after that. */
    private boolean found;
    private Throwable failed;

    Removal(SmallLog log, byte[] key, long deadlineNanos) {
      this.log = log;
      this.key = key;
      this.deadlineNanos = deadlineNanos;
    }

    @Override
    public void run() {
      if (!state.compareAndSet(QUEUED, RUNNING)) {
        return; // its caller gave up before it started
      }
      try {
        found = log.remove(key, deadlineNanos);
      } catch (Throwable t) {
        failed = t;
      } finally {
        ended.countDown(); // the outcome is written
        if (state.getAndSet(ENDED) == ABANDONED) { // its caller already emptied the engine for it
          stuckRemoval.compareAndSet(this, null); // the remover is free again
          if (failed != null && !(failed instanceof SmallLog.IoWaitTimeout)) {
            faults.increment(); // a late failure, counted; nothing to reset: its region is gone
          }
        }
      }
    }

    /** Its outcome, waiting until its deadline (an interrupt meanwhile is kept for after); throws past it. */
    boolean await() throws Throwable {
      boolean interrupted = false;
      try {
        while (true) {
          try {
            long left = Math.max(0, deadlineNanos - System.nanoTime());
            if (ended.await(left, java.util.concurrent.TimeUnit.NANOSECONDS)) {
              break;
            }
            if (abandon()) {
              throw new SmallLog.IoWaitTimeout("a remove waited " + removeWaitNanos / 1_000_000
                  + " ms for the small-object engine's device (a device that hangs)");
            }
          } catch (InterruptedException e) {
            interrupted = true; // the wait is bounded: an interrupt must not cost the engine
          }
        }
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
      if (failed != null) {
        throw failed;
      }
      return found;
    }

    /** Gives it up unless it has ended: true if it will never run, or runs on with no caller. */
    private boolean abandon() {
      while (ended.getCount() > 0) {
        int s = state.get();
        if (s == RUNNING) {
          stuckRemoval.set(this); // before it is abandoned: run's end, seeing that, clears it
        }
        if (s != ENDED && state.compareAndSet(s, ABANDONED)) {
          return true;
        }
        stuckRemoval.compareAndSet(this, null); // it moved on (started, or ended) meanwhile: look again
      }
      return false;
    }
  }

  /**
   * A put of {@code key} whose older versions here are left in place (see {@link Engine}): bumps its stamp,
   * so a lookup that read one does not promote it, and returns whether this engine may hold a version of
   * it (its log index or its set's filter says so). DRAM only, no I/O. Call inside the DRAM tier's compute
   * for the key.
   */
  boolean supersede(byte[] key, long keyHash) {
    boolean mayHold;
    try {
      mayHold = region.log().mayHold(keyHash);
    } catch (Throwable t) {
      fault("lookup", t); // the region is replaced: nothing of it stays reachable
      mayHold = false;
    }
    stamps.incrementAndGet(stripe(keyHash));
    return mayHold;
  }

  /** Makes every object unreachable (a new epoch over the same slots); returns when done, never throws. */
  void clear() {
    try {
      reset();
    } catch (Throwable t) {
      cannotEmpty(t);
    }
  }

  /**
   * A cache-wide clear begins: every lookup misses until the matching {@link #endClear}. The cache empties
   * its DRAM before this engine, and a DRAM entry may be the newer version of a key this engine still holds
   * (a put leaves the older version here, see {@link #supersede}): in that window the older one would be
   * served.
   */
  void beginClear() {
    clearing.incrementAndGet(); // (a lookup begun before does not promote: the cache's clear count says so)
  }

  void endClear() {
    clearing.decrementAndGet();
  }

  /**
   * The keys of its objects ({@link SmallKeyScan}); if the scan cannot finish, the engine is emptied
   * (logged and counted), so every key is returned or invalidated, never silently left out.
   */
  java.util.Iterator<byte[]> keys() {
    if (broken) {
      return java.util.Collections.emptyIterator(); // it serves nothing: no key of it is held
    }
    Region r = region;
    return new SmallKeyScan(r.sets(), r.log(), this::scanFailed);
  }

  /**
   * A key scan that cannot finish empties the engine: after a read error (counted where it was read) as a
   * bulk operation that cannot list it; after any other Throwable (an Error of a mapped read, no direct
   * memory for the scan's chunk, a bug) as a counted fault.
   */
  private void scanFailed(Throwable t) {
    if (t instanceof IOException) {
      dropAll("the key scan failed (" + t + ")");
    } else {
      fault("key scan", t);
    }
  }

  /** As {@link #clear}, for a bulk operation that cannot list the region, logged. */
  void dropAll(String reason) {
    LOG.info("{}: small-object engine emptied: {}", name, reason);
    try {
      reset();
    } catch (Throwable t) {
      cannotEmpty(t);
    }
  }

  /** The reclaimer's retry of a reset that failed ({@link #broken}); true once the engine is emptied. */
  private boolean retryReset() {
    try {
      reset(true);
      LOG.info("{}: the small-object engine is emptied and in service again", name);
      return true;
    } catch (Throwable t) { // still no memory: the engine stays out of service, the next turn tries again
      return false;
    }
  }

  private synchronized void reset() {
    reset(false);
  }

  /** Replaces the region by an empty one; {@code lost}: its objects are counted as lost to a fault. */
  private synchronized void reset(boolean lost) {
    Region old = region;
    if (lost) {
      objectsLostToResets.add(old.sets().stats().entries() + old.log().liveObjects());
    }
    region = newRegion(null);
    broken = false;
    clears.incrementAndGet();
    regionResets.increment();
    long[] f = figures(old);
    for (int i = 0; i < f.length; i++) {
      retired[i] += f[i];
    }
  }

  private void fault(String where, Throwable t) {
    faults.increment();
    LOG.warn("{}: small-object engine {} failed ({}); emptying it (a new epoch)", name, where, t.toString());
    try {
      reset(true);
    } catch (Throwable again) { // no memory for the new region: keep counting, never throw
      cannotEmpty(again);
    }
  }

  /**
   * The engine could not be emptied (no memory for a new region): it serves and takes nothing until the
   * reclaimer's next turn empties it ({@link #broken}), so no version the failed reset was to hide is served.
   */
  private void cannotEmpty(Throwable t) {
    faults.increment();
    broken = true;
    LOG.warn("{}: the small-object engine cannot be emptied ({}); it serves nothing until it can", name,
        t.toString());
  }

  private static long[] figures(Region r) {
    SmallSetCounters.Snapshot s = r.sets().stats();
    SmallLog l = r.log();
    long[] f = new long[Figure.values().length];
    f[Figure.BLOOM_FP.ordinal()] = s.bloomFalsePositiveReads();
    f[Figure.PAGE_READS.ordinal()] = s.pageReads();
    f[Figure.LOG_PAGE_READS.ordinal()] = l.lookupPageReads.sum();
    f[Figure.SET_REWRITES.ordinal()] = s.setRewrites();
    f[Figure.OBJECTS_INSERTED.ordinal()] = s.objectsInserted();
    f[Figure.SET_BYTES.ordinal()] = s.pageBytesWritten();
    f[Figure.LOG_PAGES.ordinal()] = l.logPagesWritten.sum();
    f[Figure.LOG_HITS.ordinal()] = l.logHits.sum();
    f[Figure.DAMAGED.ordinal()] = s.damagedPages();
    f[Figure.READ_ERRORS.ordinal()] = s.readErrors();
    f[Figure.WRITE_ERRORS.ordinal()] = s.writeErrors();
    f[Figure.LOG_ERRORS.ordinal()] = l.ioErrors.sum();
    f[Figure.DROPPED.ordinal()] = l.objectsDropped.sum();
    f[Figure.BUFFER_HITS.ordinal()] = l.bufferHits.sum();
    f[Figure.OOM_MISSES.ordinal()] = l.outOfMemoryMisses.sum() + s.lookupOutOfMemory();
    f[Figure.EVICTED.ordinal()] = l.objectsEvicted.sum();
    f[Figure.WAITS.ordinal()] = l.waits.sum();
    f[Figure.LOST.ordinal()] = s.objectsLost();
    return f;
  }

  /** The engine's figures, cumulative over resets; entries and DRAM are the current region's. */
  synchronized SmallObjectStats stats() {
    Region r = region;
    long[] f = figures(r);
    for (int i = 0; i < f.length; i++) {
      f[i] += retired[i];
    }
    long written = f[Figure.SET_BYTES.ordinal()] + f[Figure.LOG_PAGES.ordinal()] * SmallSetPage.PAGE_BYTES;
    // objects held: in sets, plus those only in the log (a key logged again over its set version counts twice)
    return new SmallObjectStats(true, r.sets().stats().entries() + r.log().liveObjects(),
        r.sets().dramBytes() + r.log().dramBytes(),
        lookups.sum(), hits.sum(), f[Figure.LOG_HITS.ordinal()], f[Figure.BLOOM_FP.ordinal()],
        f[Figure.PAGE_READS.ordinal()], f[Figure.LOG_PAGE_READS.ordinal()], f[Figure.SET_REWRITES.ordinal()],
        f[Figure.OBJECTS_INSERTED.ordinal()],
        objectsAdmitted.sum(), bytesAdmitted.sum(), written, f[Figure.DAMAGED.ordinal()],
        f[Figure.READ_ERRORS.ordinal()] + f[Figure.WRITE_ERRORS.ordinal()] + f[Figure.LOG_ERRORS.ordinal()],
        f[Figure.DROPPED.ordinal()], faults.sum(), regionResets.sum(), f[Figure.BUFFER_HITS.ordinal()],
        f[Figure.OOM_MISSES.ordinal()], f[Figure.WAITS.ordinal()], f[Figure.EVICTED.ordinal()],
        f[Figure.LOST.ordinal()] + objectsLostToResets.sum());
  }

  /**
   * Tells {@code sink} (key, value) of every object that leaves the engine for room from now on ({@link
   * SmallLog#onEvicted}); on the reclaiming threads, outside the engine's locks.
   */
  void onEvicted(java.util.function.BiConsumer<byte[], byte[]> sink) {
    onEvicted = java.util.Objects.requireNonNull(sink, "sink");
  }

  Device device() {
    return device;
  }

  /**
   * Stops the reclaimer and closes the device. With {@code save}, when no call runs any more and the
   * reclaimer stopped by {@code deadlineNanos}, first writes the log's buffer and a checkpoint of the
   * engine's state so the next open is warm; a failure there is logged and that open is cold (never served
   * from a state older than the pages). Then waits for the reclaimer and the remover to end, for ever if a
   * hung device holds one (the caller, the cache's close thread, is itself waited for only until the
   * deadline): the directory's lock is never released beside a thread of this engine.
   */
  void close(boolean save, long deadlineNanos) throws IOException {
    close(save, deadlineNanos, true);
  }

  private void close(boolean save, long deadlineNanos, boolean awaitReclaimer) throws IOException {
    try {
      stopReclaiming();
      remover.shutdown(); // no call runs any more: no removal comes
      boolean stopped = joinReclaimer(deadlineNanos);
      if (save && stopped) { // a reclaimer stuck in a hung device holds the log: no save, the next open is cold
        save();
      }
      if (awaitReclaimer) {
        awaitReclaimerEnd();
        awaitRemoverEnd(); // a removal its caller gave up on (a hung device): no late write after the close
      }
    } finally {
      ioThreads.shutdownNow(); // a read stuck in a hung device stays behind, on a daemon thread
      remover.shutdownNow();
      device.close();
    }
  }

  /** Waits for the remover thread to end, however long; an interrupt meanwhile is kept for after. */
  private void awaitRemoverEnd() {
    boolean interrupted = false;
    while (!remover.isTerminated()) {
      try {
        remover.awaitTermination(1, java.util.concurrent.TimeUnit.DAYS);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** True while the reclaimer thread runs (tests). */
  boolean reclaimerAlive() {
    return reclaimer.isAlive();
  }

  /** Log pages the reclaimer emptied in the current region (tests). */
  long backgroundReclaims() {
    return region.log().backgroundReclaims.sum();
  }

  /** Stops the reclaimer and waits until its current page is done (tests: no background reclaim from now on). */
  void stopReclaimingAndWait() {
    stopReclaiming();
    awaitReclaimerEnd();
  }

  /** Stops the reclaimer (its current page finishes); for a close that leaves the device open. */
  void stopReclaiming() {
    stopping = true;
    java.util.concurrent.locks.LockSupport.unpark(reclaimer);
  }

  /** Waits for the reclaimer to end, however long; an interrupt meanwhile is kept for after. */
  private void awaitReclaimerEnd() {
    boolean interrupted = false;
    while (reclaimer.isAlive()) {
      try {
        reclaimer.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private boolean joinReclaimer(long deadlineNanos) {
    if (!reclaimer.isAlive()) {
      return true;
    }
    try {
      long millis = Math.max(1, (deadlineNanos - System.nanoTime()) / 1_000_000);
      reclaimer.join(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return !reclaimer.isAlive();
  }

  /** Closes without a save, waiting for the reclaimer at most a second (a failed open: on the caller's thread). */
  @Override
  public void close() throws IOException {
    close(false, System.nanoTime() + 1_000_000_000L, false);
  }

  private void save() {
    long started = System.nanoTime();
    try {
      Region r = region;
      r.log().flushForSave();
      device.sync(); // the pages the checkpoint describes survive an OS crash, or there is no checkpoint
      SmallCheckpoint.write(checkpoint, geometry(device.slotBytes(), logSlots), maxSequence.get(), r.sets(), r.log());
      LOG.info("{}: small-object engine saved for a warm open ({} objects in sets, {} in the log, {} ms)", name,
          r.sets().stats().entries(), r.log().liveObjects(), (System.nanoTime() - started) / 1_000_000);
    } catch (Throwable t) { // a full disk, a failed sync, a fault: the next open is cold, only the contents are lost
      faults.increment();
      LOG.warn("{}: saving the small-object engine failed ({}); the next open is cold", name, t.toString());
      try {
        Files.deleteIfExists(checkpoint);
      } catch (IOException | RuntimeException again) {
        LOG.warn("{}: cannot delete {}: {}", name, checkpoint, again.toString());
      }
    }
  }
}
