package io.hybridcache.core.engine;

import io.hybridcache.core.device.FileModes;
import io.hybridcache.core.device.FileSpace;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The invalidations of the compact index since its last checkpoint, in a memory-mapped file: a store to
 * the mapping is in the kernel's page cache when the call returns, so it survives a kill of the process
 * (with {@code force}, also an OS crash). Recovery loads the checkpoint and applies these records before
 * replaying the entries written after it ({@link WarmRecovery}); a checkpoint switches to the other
 * half, so the file stays bounded (ARIES-style fuzzy checkpoint with a log of invalidations only; the
 * entries themselves are their own redo log, as in LFS roll-forward).
 *
 * <p>Thread-safe. Concurrency: {@link #append} runs on caller threads (inside the DRAM tier's compute
 * for the key, after the index entry is gone) and takes this object's monitor for two stores and a
 * counter bump; {@link #switchTo} (maintenance thread, starting a checkpoint) takes it to flip the
 * active half. So an invalidation whose record lands in the old half removed its index entry before the
 * switch, hence before the checkpoint copies any stripe: the checkpoint needs only the new half. A
 * {@code force} runs outside the monitor. The inactive half is zeroed outside the monitor (no appender
 * touches it).
 *
 * <p>Format of {@value #FILE}, little-endian: two halves of {@code 4096 + capacity * 16} bytes, every
 * byte allocated on disk before the file is mapped (never sparse: see {@link #create}). A half starts
 * with its header page:
 *
 * <pre>
 *  0  8  magic "HCJRNL01"
 *  8  8  epoch: the checkpoint epoch whose changes it records (0: unused)
 * 16  8  capacity in records
 * 24  4  overflow: 1 if a record did not fit (recovery then starts cold)
 * </pre>
 *
 * then {@code capacity} records of (key hash 8, sequence 8). Sequence 0 marks a free record; key hash 0
 * marks a special record: sequence &gt; 0 clears everything older than it, sequence &lt; 0 says segment
 * {@code -sequence} was dropped. A record cut by a kill (hash stored, sequence not) is free: its call did
 * not return. Records only ever remove entries at recovery, so a stale record (of an older epoch, left
 * in a half whose zeroing a power loss undid) costs a miss, never a wrong value. Bump {@link #MAGIC}'s
 * digits on any change of this layout.
 */
final class InvalidationJournal implements Closeable {
  static final String FILE = "index.journal";
  static final byte[] MAGIC = "HCJRNL01".getBytes(StandardCharsets.US_ASCII);
  static final int HEADER_BYTES = 4096;
  static final int RECORD_BYTES = 16;
  /** Fewest records per half. */
  static final int MIN_CAPACITY = 1 << 16;
  /** Most records per half (64 MiB). */
  static final int MAX_CAPACITY = 1 << 22;

  private final FileChannel channel;
  private final MappedByteBuffer map;
  private final int capacity;
  private final boolean force;
  private final long[] used = new long[2]; // records written per half; guarded by this
  private int active; // guarded by this
  private long epoch; // guarded by this
  private volatile boolean overflowed;
  private LockProbe probe = LockProbe.NONE; // tests: an Error inside a locked region

  private InvalidationJournal(FileChannel channel, MappedByteBuffer map, int capacity, boolean force) {
    this.channel = channel;
    this.map = map;
    this.capacity = capacity;
    this.force = force;
    map.order(ByteOrder.LITTLE_ENDIAN);
  }

  /** Tests: {@code p} runs first inside every region under this object's monitor (set before sharing). */
  void probe(LockProbe p) {
    probe = p;
  }

  /** Records per half for an index expecting {@code expectedEntries} mappings. */
  static int capacityFor(long expectedEntries) {
    return (int) Math.max(MIN_CAPACITY, Math.min(MAX_CAPACITY, expectedEntries / 8));
  }

  /**
   * Makes a new, empty journal in {@code file} (replacing any), its first half in {@code epoch}. With
   * {@code force}, every record is forced to the device before {@link #append} returns. Every byte of
   * the file is allocated before it is mapped ({@link FileSpace#createZeroed}), so no store to the
   * mapping can fault on a full disk.
   *
   * @throws IOException if the disk cannot hold the file ("No space left on device"): the open fails and
   *     the file is left empty
   */
  static InvalidationJournal create(Path file, long epoch, int capacity, boolean force) throws IOException {
    long halfBytes = HEADER_BYTES + (long) capacity * RECORD_BYTES;
    FileChannel ch = FileModes.create(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
    try {
      // every mapped byte backed: a store onto a hole of a full disk is a SIGBUS, raised as an InternalError
      // at some later point of the storing thread, where it can leave a lock held (issue 25)
      FileSpace.createZeroed(ch, file, 2 * halfBytes);
      MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, 2 * halfBytes);
      InvalidationJournal j = new InvalidationJournal(ch, map, capacity, force);
      j.writeHeader(0, epoch);
      j.writeHeader(1, 0);
      if (force) {
        map.force();
      }
      j.epoch = epoch;
      return j;
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  private long halfBytes() {
    return HEADER_BYTES + (long) capacity * RECORD_BYTES;
  }

  private void writeHeader(int half, long epochOfHalf) {
    int at = (int) (half * halfBytes());
    map.put(at, MAGIC, 0, MAGIC.length);
    map.putLong(at + 8, epochOfHalf);
    map.putLong(at + 16, capacity);
    map.putInt(at + 24, 0);
  }

  /** Key {@code hash} was invalidated by the operation of sequence {@code seq}: entries below it are dead. */
  void invalidated(long hash, long seq) {
    append(hash, seq);
  }

  /** Everything older than {@code seq} was dropped (clear). */
  void cleared(long seq) {
    append(0, seq);
  }

  /** Segment {@code segmentId} is being dropped: none of its entries may come back. */
  void segmentDropped(long segmentId) {
    append(0, -segmentId);
  }

  private void append(long hash, long seq) {
    int at;
    synchronized (this) {
      probe.inside("append");
      long n = used[active];
      int base = (int) (active * halfBytes());
      if (n >= capacity) {
        if (!overflowed) {
          overflowed = true;
        }
        map.putInt(base + 24, 1);
        at = base;
      } else {
        at = (int) (base + HEADER_BYTES + n * RECORD_BYTES);
        map.putLong(at, hash);
        map.putLong(at + 8, seq);
        used[active] = n + 1;
      }
    }
    if (force) {
      map.force(at & -HEADER_BYTES, HEADER_BYTES);
    }
  }

  /** Share of the active half in use, 0 to 1 (the checkpointer starts a checkpoint at a half). */
  synchronized double fill() {
    return (double) used[active] / capacity;
  }

  /** True once a record did not fit since the last {@link #switchTo}: recovery would start cold. */
  boolean overflowed() {
    return overflowed;
  }

  synchronized long epoch() {
    return epoch;
  }

  /**
   * Starts recording in the other half, as {@code newEpoch}. Maintenance thread, when a checkpoint
   * starts; the caller makes sure the other half's epoch is no longer needed (older than the durable
   * checkpoint's).
   */
  void switchTo(long newEpoch) {
    int other = clearOther();
    int base = (int) (other * halfBytes());
    writeHeader(other, newEpoch);
    if (force) {
      map.force(base, (int) halfBytes());
    }
    synchronized (this) {
      probe.inside("switchTo");
      used[other] = 0;
      active = other;
      epoch = newEpoch;
      overflowed = false;
    }
  }

  /**
   * Zeroes the records of the inactive half now, so that a {@link #switchTo} soon after only writes its
   * header (the caller holds the segment writer's lock across the switch). Nothing writes the inactive
   * half meanwhile: records go to the active one. Returns the inactive half.
   */
  int clearOther() {
    int other;
    long written;
    synchronized (this) {
      probe.inside("clearOther");
      other = 1 - active;
      written = used[other];
      used[other] = 0;
    }
    int base = (int) (other * halfBytes());
    byte[] zeros = new byte[HEADER_BYTES];
    long end = HEADER_BYTES + written * RECORD_BYTES; // only what was written; the rest is zero
    for (long p = HEADER_BYTES; p < end; p += zeros.length) {
      map.put((int) (base + p), zeros, 0, (int) Math.min(zeros.length, end - p));
    }
    return other;
  }

  @Override
  public void close() throws IOException {
    channel.close(); // the mapping stays valid until collected; appends after close are harmless
  }

  /** What recovery applies on top of a checkpoint of epoch {@code fromEpoch}. */
  static final class Records {
    /** Per key hash, the highest sequence that invalidated it. */
    final Map<Long, Long> keys = new HashMap<>();
    final Set<Long> droppedSegments = new HashSet<>();
    /** The highest clear's sequence, or 0. */
    long clearedBelow;
    /** A half overflowed, or the file is unreadable: nothing may be trusted. */
    boolean untrusted;
    /** Highest epoch of any half (0 if none). */
    long maxEpoch;
    /** Highest sequence of any record. */
    long maxSequence;
    int applied;

    /** True if the entry of {@code hash} with sequence {@code seq} was invalidated after it was written. */
    boolean kills(long hash, long seq) {
      if (seq < clearedBelow) {
        return true;
      }
      Long s = keys.get(hash);
      return s != null && s > seq;
    }
  }

  /**
   * Reads the records of every half of epoch {@code >= fromEpoch}. A missing file has none; a file that
   * cannot be read or that overflowed is {@link Records#untrusted}.
   */
  static Records read(Path file, long fromEpoch) {
    Records r = new Records();
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return r;
    } catch (IOException | OutOfMemoryError e) {
      r.untrusted = true;
      return r;
    }
    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    if (bytes.length < HEADER_BYTES) {
      return r; // made but never set up (a kill while creating it): holds nothing
    }
    long capacity = b.getLong(16);
    long halfBytes = HEADER_BYTES + capacity * RECORD_BYTES;
    if (capacity <= 0 || capacity > MAX_CAPACITY || bytes.length != 2 * halfBytes) {
      boolean anyHeader = Arrays.equals(Arrays.copyOf(bytes, MAGIC.length), MAGIC);
      r.untrusted = anyHeader; // a set-up file of another shape: cannot tell what it holds
      return r;
    }
    for (int half = 0; half < 2; half++) {
      int base = (int) (half * halfBytes);
      if (!Arrays.equals(Arrays.copyOfRange(bytes, base, base + MAGIC.length), MAGIC)) {
        continue;
      }
      long e = b.getLong(base + 8);
      r.maxEpoch = Math.max(r.maxEpoch, e);
      if (e < fromEpoch || e == 0) {
        continue;
      }
      if (b.getInt(base + 24) != 0) {
        r.untrusted = true;
      }
      for (long i = 0; i < capacity; i++) {
        int at = (int) (base + HEADER_BYTES + i * RECORD_BYTES);
        long hash = b.getLong(at);
        long seq = b.getLong(at + 8);
        if (seq == 0) {
          continue;
        }
        r.applied++;
        if (hash != 0) {
          r.keys.merge(hash, seq, Math::max);
          r.maxSequence = Math.max(r.maxSequence, seq);
        } else if (seq > 0) {
          r.clearedBelow = Math.max(r.clearedBelow, seq);
          r.maxSequence = Math.max(r.maxSequence, seq);
        } else {
          r.droppedSegments.add(-seq);
        }
      }
    }
    return r;
  }
}
