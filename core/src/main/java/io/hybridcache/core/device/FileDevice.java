package io.hybridcache.core.device;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.EOFException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Device} over one preallocated file per slot, {@code directory/slot-%05d.seg}, read and
 * written with positional {@link FileChannel} calls, with O_DIRECT when the filesystem allows it.
 * Thread-safe: any number of threads may read and write concurrently (the caller keeps a range from
 * being written while it is read, as the {@link Device} contract says).
 *
 * <p><b>Slots.</b> {@link #open} creates no slot file. The first write to a slot creates its file and
 * reserves all {@link #slotBytes} with {@code posix_fallocate} (through {@link LibC}) before writing,
 * so a full disk fails that write with an IOException whose message carries the errno text
 * ("No space left on device (errno 28)"), the half-made file is removed, and the flash tier can degrade
 * instead of finding holes later. Where fallocate is not supported (EOPNOTSUPP / EINVAL, or no libc
 * binding) the file is extended with {@link RandomAccessFile#setLength} (sparse: a full disk then
 * surfaces at a later write, with the same message from the kernel), logged once. {@link #discard}
 * punches a hole over the whole slot ({@code FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE}), so the slot
 * reads zeros and stays {@link #allocated}; the next write reserves the space again. Without punch-hole
 * support a discard is a no-op counted in {@link DeviceCounters#discardsIgnored()}.
 *
 * <p><b>Files.</b> The device makes only slot files and the direct-I/O probe file in its directory
 * ({@link #isOwnFile}); each gets the directory's permissions without the x bits ({@link FileModes}).
 *
 * <p><b>Direct I/O.</b> With {@code preferDirectIo}, {@link #open} probes once: it creates a probe file
 * with {@link ExtendedOpenOption#DIRECT}, writes and reads back one aligned 4 KiB block. If any step
 * fails the device uses buffered I/O and logs one INFO line with the reason; {@link #directIo()} says
 * which. Positions, lengths and buffer addresses are checked against {@link Device#ALIGNMENT} in both
 * modes, so code tested on buffered I/O runs on direct I/O.
 *
 * <p><b>Reads.</b> A read is positional and loops until the buffer is full; it is counted once. The slot
 * file always has its full size, so a read that hits end of file means the file was truncated behind
 * the device's back: it throws {@link EOFException} (never silently zero-fills). Reading a slot whose
 * file does not exist throws {@link NoSuchFileException}.
 *
 * <p><b>Write-life hints.</b> {@link #setWriteLifeHint} sets {@code F_SET_RW_HINT} on the slot's inode
 * through a libc descriptor (the hint is per inode; an inode hint lives only in memory, so the device
 * keeps the slot's channel open to pin the inode). On a slot with no file yet the hint is held and
 * applied when the first write creates the file. Unsupported: returns false, logged once.
 *
 * <p><b>Concurrency.</b> Channels are opened lazily, one per slot, and published through an
 * {@link AtomicReferenceArray} (a racing opener closes its own copy). Reads and writes take no lock,
 * except the first write to a slot (per open, and after each discard), which reserves the slot's space
 * and applies a held hint under that slot's lock ({@code slotLocks[i]}, also taken by
 * {@link #setWriteLifeHint}); slot locks are never nested. A {@link FileChannel}
 * is closed by the JDK when a thread is interrupted in an I/O call on it. So a read clears the calling
 * thread's interrupt flag first and sets it again when done: a thread that arrives interrupted reads
 * normally and keeps its flag. Only an interrupt that lands during a read still closes the channel:
 * that thread gets {@link ClosedByInterruptException}; other threads that find the channel closed
 * reopen it and retry, so one interrupted reader does not break the slot for everyone. {@link #close} may race with I/O:
 * the I/O then fails with {@link ClosedChannelException} and no channel is leaked.
 *
 * <p><b>Errors.</b> I/O failures throw IOException with the path and cause; argument violations
 * (slot out of range, unaligned offset, length or buffer, heap buffer) throw
 * IllegalArgumentException / IndexOutOfBoundsException. {@link #sync} forces every open channel and,
 * after a slot file was created, the directory. {@link #close} does not sync.
 */
public final class FileDevice implements Device {
  private static final Logger LOG = LoggerFactory.getLogger(FileDevice.class);

  /** Name of the file {@link #open} creates and deletes to probe for direct I/O support. */
  public static final String PROBE_FILE = ".direct-io-probe";
  private static final Pattern SLOT_FILE = Pattern.compile("slot-\\d{5,}\\.seg"); // slotPath's names

  private static final int MAX_REOPENS = 16;

  private final Path directory;
  private final int slotCount;
  private final long slotBytes;
  private final boolean directIo;
  private final Set<OpenOption> channelOptions;
  private final DeviceCounters counters = new DeviceCounters();

  /** Open channels by slot; null until first used. */
  private final AtomicReferenceArray<FileChannel> channels;
  /** 1 once this instance has reserved the slot's space (since open or the last discard). */
  private final AtomicIntegerArray reserved;
  /** A write-life hint waiting for the slot's file to exist, or -1. Guarded by slotLocks[slot]. */
  private final int[] pendingHints;
  /** Per-slot locks for reserving space and applying held hints; never nested. */
  private final Object[] slotLocks;

  private volatile boolean closed;
  /** A slot file was created since the last sync: the directory needs an fsync too. */
  private volatile boolean directoryDirty;
  private volatile boolean fallocateUnsupported;
  private volatile boolean punchHoleUnsupported;
  /** null until first known: whether F_SET_RW_HINT works here. */
  private volatile Boolean hintsSupported;
  private final AtomicBoolean loggedFallocate = new AtomicBoolean();
  private final AtomicBoolean loggedPunchHole = new AtomicBoolean();
  private final AtomicBoolean loggedHints = new AtomicBoolean();

  private FileDevice(Path directory, int slotCount, long slotBytes, boolean directIo) {
    this.directory = directory;
    this.slotCount = slotCount;
    this.slotBytes = slotBytes;
    this.directIo = directIo;
    Set<OpenOption> options = new HashSet<>(EnumSet.of(StandardOpenOption.READ, StandardOpenOption.WRITE));
    if (directIo) {
      options.add(ExtendedOpenOption.DIRECT);
    }
    this.channelOptions = Set.copyOf(options);
    this.channels = new AtomicReferenceArray<>(slotCount);
    this.reserved = new AtomicIntegerArray(slotCount);
    this.pendingHints = new int[slotCount];
    Arrays.fill(pendingHints, -1);
    this.slotLocks = new Object[slotCount];
    for (int i = 0; i < slotCount; i++) {
      slotLocks[i] = new Object();
    }
  }

  /**
   * Opens (creating the directory if needed) a device of {@code slotCount} slots of {@code slotBytes}
   * each. Creates no slot file; existing slot files are used as they are.
   *
   * @throws IllegalArgumentException if slotCount is not positive or slotBytes is not a positive
   *     multiple of {@link Device#ALIGNMENT}
   * @throws IOException if the directory cannot be created
   */
  public static FileDevice open(Path directory, int slotCount, long slotBytes, boolean preferDirectIo)
      throws IOException {
    Objects.requireNonNull(directory, "directory");
    if (slotCount <= 0) {
      throw new IllegalArgumentException("slotCount must be > 0: " + slotCount);
    }
    if (slotBytes <= 0 || slotBytes % ALIGNMENT != 0) {
      throw new IllegalArgumentException(
          "slotBytes must be a positive multiple of " + ALIGNMENT + ": " + slotBytes);
    }
    Files.createDirectories(directory);
    boolean direct = false;
    if (preferDirectIo) {
      String failure = probeDirectIo(directory);
      direct = failure == null;
      if (!direct) {
        LOG.info("FileDevice {}: direct I/O unavailable, using buffered I/O: {}", directory, failure);
      }
    }
    return new FileDevice(directory, slotCount, slotBytes, direct);
  }

  /** Returns null when an O_DIRECT 4 KiB write and read back work in {@code directory}, else why not. */
  private static String probeDirectIo(Path directory) {
    Path probe = directory.resolve(PROBE_FILE);
    try (FileChannel ch = FileChannel.open(probe, Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT), FileModes.attributes(FileModes.inDirectory(directory)))) {
      ByteBuffer out = Device.allocateAligned(ALIGNMENT);
      for (int i = 0; i < ALIGNMENT; i++) {
        out.put(i, (byte) (i * 31 + 7));
      }
      while (out.hasRemaining()) {
        ch.write(out, out.position());
      }
      ByteBuffer in = Device.allocateAligned(ALIGNMENT);
      while (in.hasRemaining()) {
        if (ch.read(in, in.position()) < 0) {
          return "probe read hit end of file";
        }
      }
      return out.flip().equals(in.flip()) ? null : "probe read back different bytes";
    } catch (IOException | RuntimeException | LinkageError e) {
      return e.toString();
    } finally {
      try {
        Files.deleteIfExists(probe);
      } catch (IOException e) {
        LOG.debug("could not delete {}", probe, e);
      }
    }
  }

  @Override
  public int slotCount() {
    return slotCount;
  }

  @Override
  public long slotBytes() {
    return slotBytes;
  }

  @Override
  public boolean directIo() {
    return directIo;
  }

  @Override
  public DeviceCounters counters() {
    return counters;
  }

  public Path directory() {
    return directory;
  }

  /** The file of {@code slot}. */
  public Path slotPath(int slot) {
    DeviceChecks.checkSlot(slot, slotCount);
    return directory.resolve(String.format("slot-%05d.seg", slot));
  }

  /** True for the names of the files a device makes in its directory: slot files and the probe file. */
  public static boolean isOwnFile(String fileName) {
    return SLOT_FILE.matcher(fileName).matches() || PROBE_FILE.equals(fileName);
  }

  /** True when the slot's file exists with at least {@link #slotBytes} bytes. */
  @Override
  public boolean allocated(int slot) {
    Path path = slotPath(slot);
    try {
      return Files.size(path) >= slotBytes;
    } catch (IOException e) { // NoSuchFileException: never written
      return false;
    }
  }

  @Override
  public void write(int slot, long offset, ByteBuffer src) throws IOException {
    DeviceChecks.checkIo(slot, offset, src, slotCount, slotBytes);
    int length = src.remaining();
    if (reserved.get(slot) == 0) {
      reserve(slot);
    }
    long position = offset;
    int reopens = 0;
    // a pending interrupt would close the channel for everyone: the small-object engine writes a set page
    // on the caller's thread (a remove), which may be an interrupted one
    boolean interrupted = Thread.interrupted();
    try {
      while (src.hasRemaining()) {
        FileChannel ch = channel(slot);
        try {
          position += ch.write(src, position);
        } catch (ClosedChannelException e) {
          rethrowUnlessReopenable(e, reopens++);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt(); // the caller keeps its interrupt
      }
    }
    counters.recordWrite(length);
  }

  @Override
  public void read(int slot, long offset, ByteBuffer dst) throws IOException {
    DeviceChecks.checkIo(slot, offset, dst, slotCount, slotBytes);
    if (dst.isReadOnly()) {
      throw new IllegalArgumentException("read into a read-only buffer");
    }
    int length = dst.remaining();
    long position = offset;
    int reopens = 0;
    boolean interrupted = Thread.interrupted(); // a pending interrupt would close the channel for everyone
    try {
      while (dst.hasRemaining()) {
        FileChannel ch = channel(slot);
        int n;
        try {
          n = ch.read(dst, position);
        } catch (ClosedChannelException e) {
          rethrowUnlessReopenable(e, reopens++);
          continue;
        }
        if (n < 0) {
          throw new EOFException(slotPath(slot) + " ends before " + (offset + length)
              + " (truncated outside the device? expected " + slotBytes + " bytes)");
        }
        position += n;
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt(); // the caller keeps its interrupt
      }
    }
    counters.recordRead(length);
  }

  /**
   * After a channel was found closed mid-call: returns (so the caller reopens and retries) when another
   * thread's interrupt closed it; throws when this device is closed, this thread was interrupted, or
   * reopening keeps failing.
   */
  private void rethrowUnlessReopenable(ClosedChannelException e, int reopens) throws ClosedChannelException {
    if (closed || e instanceof ClosedByInterruptException || Thread.currentThread().isInterrupted()
        || reopens >= MAX_REOPENS) {
      throw e;
    }
  }

  /** The open channel of {@code slot} (tests: closing it is what an interrupt mid-call does). */
  FileChannel openChannel(int slot) throws IOException {
    return channel(slot);
  }

  /**
   * The open channel of {@code slot}, opening it (without creating the file) when there is none or the
   * cached one was closed by an interrupt.
   */
  private FileChannel channel(int slot) throws IOException {
    while (true) {
      FileChannel current = channels.get(slot);
      if (current != null && current.isOpen()) {
        return current;
      }
      if (closed) {
        throw new ClosedChannelException();
      }
      FileChannel opened = FileChannel.open(slotPath(slot), channelOptions);
      if (channels.compareAndSet(slot, current, opened)) {
        if (closed) { // close() may have swept the array before the CAS
          channels.compareAndSet(slot, opened, null);
          opened.close();
          throw new ClosedChannelException();
        }
        return opened;
      }
      opened.close(); // another thread published one first
    }
  }

  /** Creates the slot file if needed and reserves its full size; applies a held hint. */
  private void reserve(int slot) throws IOException {
    synchronized (slotLocks[slot]) {
      if (reserved.get(slot) != 0) {
        return;
      }
      if (closed) {
        throw new ClosedChannelException();
      }
      Path path = slotPath(slot);
      boolean existed = Files.exists(path);
      try {
        if (!existed) {
          FileModes.createFile(path); // with the directory's permissions, before any byte is written
        }
        preallocate(path);
        channel(slot);
      } catch (IOException e) {
        if (!existed) { // leave no half-reserved file behind, and no channel onto an unlinked inode
          FileChannel stale = channels.getAndSet(slot, null);
          if (stale != null) {
            closeQuietly(stale);
          }
          try {
            Files.deleteIfExists(path);
          } catch (IOException suppressed) {
            e.addSuppressed(suppressed);
          }
        }
        throw e;
      }
      if (!existed) {
        directoryDirty = true;
      }
      int hint = pendingHints[slot];
      if (hint >= 0) {
        pendingHints[slot] = -1;
        applyHintLocked(slot, hint);
      }
      reserved.set(slot, 1);
    }
  }

  private void preallocate(Path path) throws IOException {
    if (LibC.available() && !fallocateUnsupported) {
      int rc = LibC.fallocateFile(path, LibC.O_RDWR | LibC.O_CREAT, 0600, slotBytes);
      if (rc == 0) {
        return;
      }
      if (rc != LibC.EOPNOTSUPP && rc != LibC.EINVAL) {
        throw new IOException(
            "posix_fallocate(" + path + ", " + slotBytes + " bytes): " + LibC.describe(rc));
      }
      fallocateUnsupported = true;
      logOnce(loggedFallocate, "posix_fallocate not supported here (" + LibC.describe(rc)
          + "): slot files are extended with setLength and may be sparse");
    } else if (!LibC.available()) {
      logOnce(loggedFallocate, "no libc binding: slot files are extended with setLength and may be sparse");
    }
    try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw")) {
      if (file.length() < slotBytes) {
        file.setLength(slotBytes);
      }
    }
  }

  /**
   * Punches a hole over the whole slot where supported; the slot keeps its size and reads zeros.
   * A no-op (counted as ignored) without punch-hole support; a no-op on a slot with no file.
   */
  @Override
  public void discard(int slot) throws IOException {
    Path path = slotPath(slot);
    ensureOpen();
    if (!Files.exists(path)) {
      counters.recordDiscard(false);
      return;
    }
    reserved.set(slot, 0); // the next write reserves the punched range again
    boolean ignored = true;
    if (LibC.available() && !punchHoleUnsupported) {
      int fd = LibC.openOrThrow(path, LibC.O_RDWR, 0);
      int errno = 0;
      try {
        int rc;
        do {
          rc = LibC.fallocate(fd, LibC.FALLOC_FL_PUNCH_HOLE | LibC.FALLOC_FL_KEEP_SIZE, 0, slotBytes);
          errno = rc == 0 ? 0 : LibC.lastError();
        } while (errno == LibC.EINTR);
      } finally {
        LibC.closeQuietly(fd);
      }
      if (errno == 0) {
        ignored = false;
      } else if (errno == LibC.EOPNOTSUPP || errno == LibC.ENOSYS) {
        punchHoleUnsupported = true;
        logOnce(loggedPunchHole, "punch hole not supported here (" + LibC.describe(errno)
            + "): discard is a no-op");
      } else {
        throw new IOException("fallocate(" + path + ", PUNCH_HOLE|KEEP_SIZE): " + LibC.describe(errno));
      }
    }
    counters.recordDiscard(ignored);
  }

  @Override
  public void sync() throws IOException {
    ensureOpen();
    for (int slot = 0; slot < slotCount; slot++) {
      FileChannel ch = channels.get(slot);
      if (ch == null) {
        continue;
      }
      try {
        ch.force(false);
      } catch (ClosedChannelException e) {
        rethrowUnlessReopenable(e, 0);
        channel(slot).force(false); // fsync on any descriptor of the inode flushes its pages
      }
    }
    if (directoryDirty) {
      directoryDirty = false; // cleared first: a file created during the force marks it again
      try {
        AtomicFile.syncDirectory(directory);
      } catch (IOException e) {
        directoryDirty = true;
        throw e;
      }
    }
  }

  /**
   * Sets the slot's write-life hint (RWH_WRITE_LIFE_*, 0..5) on its inode with F_SET_RW_HINT. On a slot
   * with no file yet the hint is held and applied at the first write; then the answer is whether this
   * kernel supports the hints. False, logged once, where unsupported.
   */
  @Override
  public boolean setWriteLifeHint(int slot, int hint) {
    Path path = slotPath(slot);
    DeviceChecks.checkHint(hint);
    if (!LibC.available()) {
      logOnce(loggedHints, "no libc binding: write-life hints are not passed on");
      return false;
    }
    if (Boolean.FALSE.equals(hintsSupported) || closed) {
      return false;
    }
    synchronized (slotLocks[slot]) {
      if (reserved.get(slot) == 0 && !Files.exists(path)) {
        if (!hintsSupported()) {
          return false;
        }
        pendingHints[slot] = hint;
        return true;
      }
      return applyHintLocked(slot, hint);
    }
  }

  /** Whether F_SET_RW_HINT is known to work; asks the kernel (F_GET_RW_HINT on the directory) once. */
  private boolean hintsSupported() {
    Boolean known = hintsSupported;
    if (known == null) {
      try {
        LibC.getWriteLifeHint(directory);
        known = Boolean.TRUE;
      } catch (IOException e) {
        logOnce(loggedHints, "write-life hints not supported here: " + e.getMessage());
        known = Boolean.FALSE;
      }
      hintsSupported = known;
    }
    return known;
  }

  private boolean applyHintLocked(int slot, int hint) {
    Path path = slotPath(slot);
    try {
      channel(slot); // keeps the inode, which holds the hint only in memory, in the inode cache
      int errno = LibC.setWriteLifeHint(path, hint);
      if (errno == 0) {
        hintsSupported = Boolean.TRUE;
        return true;
      }
      if (errno == LibC.EINVAL || errno == LibC.EOPNOTSUPP || errno == LibC.ENOSYS) {
        hintsSupported = Boolean.FALSE;
        logOnce(loggedHints, "write-life hints not supported here: F_SET_RW_HINT on " + path + ": "
            + LibC.describe(errno));
      } else {
        LOG.warn("FileDevice {}: F_SET_RW_HINT({}) on {} failed: {}", directory, hint, path,
            LibC.describe(errno));
      }
      return false;
    } catch (IOException e) {
      LOG.warn("FileDevice {}: could not set write-life hint {} on {}", directory, hint, path, e);
      return false;
    }
  }

  /** The write-life hint (RWH_WRITE_LIFE_*) the kernel holds for the inode at {@code path} (F_GET_RW_HINT). */
  public static long getWriteLifeHint(Path path) throws IOException {
    return LibC.getWriteLifeHint(path);
  }

  /** Closes every channel; does not sync. Idempotent. Later calls throw ClosedChannelException. */
  @Override
  public void close() throws IOException {
    closed = true;
    IOException first = null;
    for (int slot = 0; slot < slotCount; slot++) {
      FileChannel ch = channels.getAndSet(slot, null);
      if (ch != null) {
        try {
          ch.close();
        } catch (IOException e) {
          if (first == null) {
            first = e;
          } else {
            first.addSuppressed(e);
          }
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  private void ensureOpen() throws ClosedChannelException {
    if (closed) {
      throw new ClosedChannelException();
    }
  }

  private void logOnce(AtomicBoolean flag, String message) {
    if (flag.compareAndSet(false, true)) {
      LOG.info("FileDevice {}: {}", directory, message);
    }
  }

  private static void closeQuietly(FileChannel ch) {
    try {
      ch.close();
    } catch (IOException e) {
      LOG.debug("closing a stale channel", e);
    }
  }

  @Override
  public String toString() {
    return "FileDevice{" + directory + ", slots=" + slotCount + " x " + slotBytes + " B, directIo="
        + directIo + "}";
  }
}
