package io.hybridcache.core.engine;

import io.hybridcache.core.device.AtomicFile;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.StampedLock;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The compact index: about 12 bytes of DRAM per slot, at most about 16 per mapping once grown (CacheLib
 * navy's BlockCache index keeps 12). Thread-safe through lock striping: the key space is split into a
 * power-of-two number of stripes, each an open-addressing table guarded by its own {@link StampedLock};
 * {@link #get} takes no lock at all in the common case, so readers never block each other.
 *
 * <p>The index is not persistent by itself: {@link #saveTo} writes a snapshot and {@link #loadFrom}
 * reads it back, returning an empty index if the file is missing, short or fails its checksum.
 * {@link #close} does not save. The cache persists it through {@link IndexCheckpoint} instead: fuzzy
 * checkpoints taken with {@link #forEach} while writers run, made crash-consistent by an invalidation
 * journal and a replay of the entries written after them.
 *
 * <h2>Keys: stripe and tag</h2>
 *
 * The caller's 64-bit key hash is re-mixed (MurmurHash3's finalizer, invertible) so that poorly
 * distributed hashes still spread. The low bits of the mixed hash choose the stripe; its high 32 bits
 * are the key's <em>tag</em>, the only part stored (0 is remapped to 1: 0 marks an empty slot). A key is
 * identified by stripe and tag. Two keys with the same identity share one slot: a put of one replaces
 * the other, a remove of one removes the other. That costs a miss, never a wrong or an older value: the
 * flash entry carries its full key, which every read compares, and one identity never has two slots, so
 * an invalidation always removes the only entry the key could be read from. After a crash the same holds
 * because recovery matches journal records to entries by identity ({@link WarmRecovery}), and an install
 * that replaces another key's entry journals it. {@link #forEach} hands out
 * for each slot a hash with that identity (the inverse mix of tag and stripe), valid for every call here.
 *
 * <h2>Table</h2>
 *
 * Bucketed cuckoo hashing, as CacheLib navy's index keeps a key in a small bucket it can reach
 * directly (Fan et al., "MemC3", NSDI 2013, for the two-choice buckets). A stripe's slots form
 * buckets of {@value #BUCKET_SLOTS}; a tag has two, both computed from the tag alone ({@link
 * #firstBucket}, {@link #secondBucket}: bucket counts need not be powers of two, and a stripe can be
 * rehashed from its tags). An insertion takes the first free slot of its first bucket, else of its
 * second; if both are full it moves entries along a short path, each to its own other bucket, until one
 * has room ({@value #MAX_PATH} moves at most, else the stripe grows). A deletion just empties its slot:
 * nothing moves, unlike linear probing whose insertions and deletions shift the rest of a cluster (about
 * 8 to 50 slots at these loads). Per bucket a byte counts the tags that have it as first bucket but live
 * in their second ({@link Table#spilled}), so a lookup reads one bucket (32 bytes of tags) unless that
 * count says to read the other. Every lookup reads both of a tag's buckets at most, and an insertion
 * looks a tag up first, which keeps identities unique.
 *
 * <p>A stripe grows by {@value #GROWTH_FACTOR}x when an insertion would take its load past {@value
 * #LOAD_FACTOR} (to about 0.8), and shrinks to a load of {@value #SHRINK_LOAD} when a removal takes it
 * below {@value #MIN_LOAD} (never below its starting capacity), so a stripe larger than that stays
 * between 0.77 and 0.9 whether entries come or go: 12.125 bytes per slot (a 4-byte tag, an 8-byte entry,
 * an eighth of the bucket's counter), 13.5 to 15.8 bytes per mapping. The gaps on both sides (0.8 after
 * growth, 0.86 after shrinking) keep one insertion or removal from undoing the last resize. Stripes
 * start small and follow their contents, so memory follows the entries actually held, not a capacity
 * guess.
 *
 * <h2>Concurrency</h2>
 *
 * <ul>
 *   <li>{@code get}: an optimistic read ({@link StampedLock#tryOptimisticRead}) of the stripe's table
 *       followed by {@link StampedLock#validate}; if a writer intervened, it retries once under the
 *       read lock. A stripe's tags and values live in one {@link Table} object, replaced as a whole on
 *       growth, so a probe reads arrays of one geometry and at most two buckets: a torn view can
 *       yield a wrong answer (discarded by validation) but never an exception or an endless loop.
 *   <li>Writers ({@code put}, {@code replace}, both {@code remove}s, {@code clear}) take the stripe's
 *       write lock. {@code replace(hash, expected, update)} and {@code remove(hash, expected)} compare
 *       and set the whole packed value under that lock, hence are atomic.
 *   <li>{@code forEach} copies one stripe at a time under its read lock, then calls the visitor with
 *       no lock held: the visitor may call back into this index (e.g. {@code replace}); it sees each
 *       stripe as of its copy.
 *   <li>{@code saveTo} holds the read locks of all stripes while writing, taken in ascending stripe
 *       order (the only place that holds more than one lock): the file is a point-in-time snapshot;
 *       writers wait for it, readers do not.
 *   <li>{@code size} and {@code memoryBytes} sum per-stripe figures without a global lock.
 *   <li>Every lock is taken right before a {@code try} whose {@code finally} releases it, so an Error
 *       inside (an OutOfMemoryError of a growing table) never leaves it held ({@code
 *       LockedRegionErrorTest}). An asynchronous Error can strike between the two, which is why the
 *       cache never maps a sparse file (an unbacked page of a full disk is a SIGBUS).
 * </ul>
 *
 * <h2>Format</h2>
 *
 * See {@link #HEADER_BYTES} for the byte layout of the {@link #saveTo} file.
 */
final class HeapIndex implements Index {

  private static final Logger LOG = LoggerFactory.getLogger(HeapIndex.class);

  /** Stripes used by {@link #HeapIndex(long)}. */
  public static final int DEFAULT_STRIPES = 256;

  static final double LOAD_FACTOR = 0.9;
  static final double GROWTH_FACTOR = 1.125;
  /** A stripe above its starting capacity shrinks when removals take its load below this... */
  static final double MIN_LOAD = 0.77;
  /** ...to this load. */
  static final double SHRINK_LOAD = 0.86;
  /** A new stripe is sized for this share of its part of {@code expectedEntries}; it grows from there. */
  static final double INITIAL_SHARE = 1.0 / 16;
  /** Slots per bucket (a tag probes at most two buckets: 64 bytes of tags). */
  static final int BUCKET_SLOTS = 8;
  static final int BUCKET_SHIFT = 3;
  /** Fewest slots of one stripe: two buckets, so a tag's two buckets always differ. */
  static final int MIN_CAPACITY = 2 * BUCKET_SLOTS;
  /** Most slots of one stripe (whole buckets). */
  static final int MAX_CAPACITY = (Integer.MAX_VALUE - 8) & -BUCKET_SLOTS;
  /** A bucket's spilled count stops here, and stays (see {@link Table#spilled}). */
  static final int SPILLED_STUCK = 255;
  /** Most moves one insertion makes before the stripe grows instead. */
  static final int MAX_PATH = 32;
  /** DRAM per slot: a 4-byte tag and an 8-byte packed entry (plus a byte per bucket, {@link Table#spilled}). */
  static final int SLOT_BYTES = 12;

  static final byte[] MAGIC = "HCHEAPIX".getBytes(StandardCharsets.US_ASCII);
  /** Bump on any change of the layout at {@link #HEADER_BYTES}; older versions load as empty. */
  static final int FORMAT_VERSION = 2;
  /**
   * Snapshot file layout, little-endian:
   *
   * <pre>
   *  offset 0   magic            8 bytes  "HCHEAPIX"
   *  offset 8   format version   int      {@link #FORMAT_VERSION}
   *  offset 12  stripes          int      stripe count of the saved index (identities depend on it)
   *  offset 16  count            long     number of pairs
   *  offset 24  pairs            count x (long key hash with the slot's identity, long packed entry), neither 0
   *  end - 4    CRC32C           int      over every byte before it
   * </pre>
   *
   * The file is written to {@code <name>.tmp}, forced, then renamed over {@code <name>}.
   */
  static final int HEADER_BYTES = 8 + 4 + 4 + 8;
  static final int PAIR_BYTES = 16;
  static final int TRAILER_BYTES = 4;
  private static final int IO_BUFFER_BYTES = 1 << 16;

  /** Lock order when several are held (saveTo only): ascending index. */
  private final Stripe[] stripes;
  private final int stripeMask;
  private LockProbe probe = LockProbe.NONE; // tests: an Error inside a locked region

  /** An empty index expecting about {@code expectedEntries} mappings, with {@link #DEFAULT_STRIPES}. */
  public HeapIndex(long expectedEntries) {
    this(expectedEntries, DEFAULT_STRIPES);
  }

  /**
   * An empty index expecting about {@code expectedEntries} mappings: stripes start at a small share of
   * that and grow as needed.
   *
   * @param stripes a power of two between 1 and 65536
   */
  public HeapIndex(long expectedEntries, int stripes) {
    this(expectedEntries, stripes, 0);
  }

  /**
   * An index about to load {@code loading} entries (a snapshot or checkpoint of known size): its stripes
   * start large enough to take them without growing (each growth rehashes the stripe), with 10% slack
   * for stripes that get more than their share; otherwise as {@link #HeapIndex(long, int)}.
   */
  static HeapIndex forLoading(long expectedEntries, long loading, int stripes) {
    return new HeapIndex(Math.max(expectedEntries, loading), stripes, loading);
  }

  private HeapIndex(long expectedEntries, int stripes, long loading) {
    if (expectedEntries < 0) {
      throw new IllegalArgumentException("expectedEntries must be >= 0: " + expectedEntries);
    }
    if (stripes < 1 || stripes > (1 << 16) || Integer.bitCount(stripes) != 1) {
      throw new IllegalArgumentException("stripes must be a power of two in [1, 65536]: " + stripes);
    }
    double perStripe = Math.ceil((double) expectedEntries / stripes);
    double loadingPerStripe = Math.ceil((double) loading / stripes) * 1.1;
    double share = Math.ceil(perStripe * INITIAL_SHARE / LOAD_FACTOR);
    double capacity = Math.max(share, Math.ceil(loadingPerStripe / LOAD_FACTOR));
    if (perStripe / LOAD_FACTOR > MAX_CAPACITY) {
      throw new IllegalArgumentException(
          "expectedEntries too large for " + stripes + " stripes: " + expectedEntries);
    }
    int minCapacity = capacityFor((long) share); // a stripe never shrinks below it
    int initialCapacity = Math.max(minCapacity, capacityFor((long) capacity));
    this.stripeMask = stripes - 1;
    this.stripes = new Stripe[stripes];
    for (int i = 0; i < stripes; i++) {
      this.stripes[i] = new Stripe(minCapacity, initialCapacity);
    }
  }

  /** Tests: {@code p} runs first inside every locked region (set before the index is shared). */
  void probe(LockProbe p) {
    probe = p;
  }

  /** Tests: true if no stripe's lock is held, for reading or writing. */
  boolean locksFree() {
    for (Stripe s : stripes) {
      if (s.lock.isWriteLocked() || s.lock.isReadLocked()) {
        return false;
      }
    }
    return true;
  }

  /** The number of stripes (identities, hence {@link #forEach}'s hashes, depend on it). */
  public int stripeCount() {
    return stripes.length;
  }

  // ---------------------------------------------------------------- Index

  @Override
  public long get(long hash) {
    if (hash == 0) {
      return IndexEntry.NONE;
    }
    long mixed = mix(hash);
    Stripe s = stripeFor(mixed);
    int tag = tagOf(mixed);
    StampedLock lock = s.lock;
    long stamp = lock.tryOptimisticRead();
    if (stamp != 0) {
      long value = find(s.table, tag);
      if (lock.validate(stamp)) {
        return value;
      }
    }
    stamp = lock.readLock();
    try {
      probe.inside("get");
      return find(s.table, tag);
    } finally {
      lock.unlockRead(stamp);
    }
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException if {@code hash} is 0 or {@code entry} is {@link IndexEntry#NONE}
   * @throws IndexFullException only if a stripe reached {@link #MAX_CAPACITY} slots
   */
  @Override
  public long put(long hash, long entry) {
    checkHash(hash);
    checkEntry(entry);
    long mixed = mix(hash);
    Stripe s = stripeFor(mixed);
    long stamp = s.lock.writeLock();
    try {
      probe.inside("put");
      return putLocked(s, tagOf(mixed), entry);
    } finally {
      s.lock.unlockWrite(stamp);
    }
  }

  /**
   * {@inheritDoc} Never inserts: an absent key (including {@code expected == NONE}) returns false.
   *
   * @throws IllegalArgumentException if {@code hash} is 0 or {@code update} is {@link IndexEntry#NONE}
   */
  @Override
  public boolean replace(long hash, long expected, long update) {
    checkHash(hash);
    checkEntry(update);
    return expected != IndexEntry.NONE && compareAndSet(hash, expected, update);
  }

  @Override
  public boolean remove(long hash, long expected) {
    return hash != 0 && expected != IndexEntry.NONE && compareAndSet(hash, expected, IndexEntry.NONE);
  }

  /**
   * If {@code hash} maps to {@code expected}, sets it to {@code update}, or removes it when
   * {@code update} is {@link IndexEntry#NONE}; under the stripe's write lock.
   */
  private boolean compareAndSet(long hash, long expected, long update) {
    long mixed = mix(hash);
    Stripe s = stripeFor(mixed);
    long stamp = s.lock.writeLock();
    try {
      probe.inside("compareAndSet");
      Table t = s.table;
      int slot = slotOf(t, tagOf(mixed));
      if (slot < 0 || t.values[slot] != expected) {
        return false;
      }
      if (update == IndexEntry.NONE) {
        removeAtLocked(s, slot);
      } else {
        t.values[slot] = update;
      }
      return true;
    } finally {
      s.lock.unlockWrite(stamp);
    }
  }

  @Override
  public long remove(long hash) {
    if (hash == 0) {
      return IndexEntry.NONE;
    }
    long mixed = mix(hash);
    Stripe s = stripeFor(mixed);
    long stamp = s.lock.writeLock();
    try {
      probe.inside("remove");
      Table t = s.table;
      int slot = slotOf(t, tagOf(mixed));
      if (slot < 0) {
        return IndexEntry.NONE;
      }
      long previous = t.values[slot];
      removeAtLocked(s, slot);
      return previous;
    } finally {
      s.lock.unlockWrite(stamp);
    }
  }

  @Override
  public long size() {
    long total = 0;
    for (Stripe s : stripes) {
      long stamp = s.lock.tryOptimisticRead();
      int n = s.size;
      if (stamp == 0 || !s.lock.validate(stamp)) {
        stamp = s.lock.readLock();
        try {
          probe.inside("size");
          n = s.size;
        } finally {
          s.lock.unlockRead(stamp);
        }
      }
      total += n;
    }
    return total;
  }

  /** Bytes of the stripe tables (array and object headers included) plus the stripe array. */
  @Override
  public long memoryBytes() {
    long bytes = arrayBytes(stripes.length, 4);
    for (Stripe s : stripes) {
      Table t = s.table;
      bytes += 16 + arrayBytes(t.tags.length, 4) + arrayBytes(t.values.length, 8) + arrayBytes(t.spilled.length, 1);
    }
    return bytes;
  }

  @Override
  public void forEach(EntryVisitor visitor) {
    Objects.requireNonNull(visitor, "visitor");
    long[] copy = new long[0];
    for (int si = 0; si < stripes.length; si++) {
      Stripe s = stripes[si];
      int n = 0;
      long stamp = s.lock.readLock();
      try {
        probe.inside("forEach");
        Table t = s.table;
        if (copy.length < 2 * s.size) {
          copy = new long[2 * s.size];
        }
        for (int i = 0; i < t.tags.length; i++) {
          if (t.tags[i] != 0) {
            copy[n++] = hashFor(si, t.tags[i]);
            copy[n++] = t.values[i];
          }
        }
      } finally {
        s.lock.unlockRead(stamp);
      }
      for (int i = 0; i < n; i += 2) {
        visitor.visit(copy[i], copy[i + 1]);
      }
    }
  }

  /** Removes every mapping and shrinks every stripe back to the capacity it never shrinks below. */
  @Override
  public void clear() {
    for (Stripe s : stripes) {
      long stamp = s.lock.writeLock();
      try {
        probe.inside("clear");
        s.resetLocked(s.minCapacity);
      } finally {
        s.lock.unlockWrite(stamp);
      }
    }
  }

  /** No-op: this index persists only through {@link #saveTo}. */
  @Override
  public void flush() {}

  /** No-op (does not save); the tables are reclaimed by the garbage collector. */
  @Override
  public void close() {}

  // ---------------------------------------------------------------- persistence

  /**
   * Writes a point-in-time snapshot to {@code file} (layout at {@link #HEADER_BYTES}), atomically
   * replacing it: a crash leaves either the old file or the new one, plus at worst a stale
   * {@code .tmp}. Writers wait while the pairs are written; readers do not.
   */
  public void saveTo(Path file) throws IOException {
    AtomicFile.replace(file, ch -> {
      ByteBuffer buf = ByteBuffer.allocate(IO_BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      CRC32C crc = new CRC32C();
      long[] stamps = new long[stripes.length];
      int locked = 0;
      try {
        for (; locked < stripes.length; locked++) {
          stamps[locked] = stripes[locked].lock.readLock();
        }
        probe.inside("saveTo");
        long count = 0;
        for (Stripe s : stripes) {
          count += s.size;
        }
        buf.put(MAGIC).putInt(FORMAT_VERSION).putInt(stripes.length).putLong(count);
        long written = 0;
        for (int si = 0; si < stripes.length; si++) {
          Table t = stripes[si].table;
          for (int i = 0; i < t.tags.length; i++) {
            if (t.tags[i] != 0) {
              if (buf.remaining() < PAIR_BYTES) {
                writeOut(ch, buf, crc);
              }
              buf.putLong(hashFor(si, t.tags[i])).putLong(t.values[i]);
              written++;
            }
          }
        }
        if (written != count) {
          throw new IllegalStateException("stripe sizes disagree with tables: " + written + " != " + count);
        }
      } finally {
        while (--locked >= 0) {
          stripes[locked].lock.unlockRead(stamps[locked]);
        }
      }
      writeCrcTrailer(ch, buf, crc);
    });
  }

  /** Writes what {@code buf} holds, then the CRC32C of everything written (shared with {@link IndexCheckpoint}). */
  static void writeCrcTrailer(FileChannel ch, ByteBuffer buf, CRC32C crc) throws IOException {
    writeOut(ch, buf, crc);
    buf.putInt((int) crc.getValue());
    writeOut(ch, buf, null);
  }

  /**
   * Reads a file written by {@link #saveTo}. Never throws for bad content: a missing file gives an
   * empty index; a file that is short, has the wrong magic or version, holds a zero key or value, or
   * fails its CRC32C (or cannot be read) is logged as a warning and also gives an empty index. The
   * file itself is left in place (the next {@link #saveTo} replaces it).
   *
   * @param expectedEntries sizing of the returned index (raised to the file's count if larger)
   */
  public static HeapIndex loadFrom(Path file, long expectedEntries) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long length = ch.size();
      long pairBytes = length - HEADER_BYTES - TRAILER_BYTES;
      if (pairBytes < 0 || pairBytes % PAIR_BYTES != 0) {
        return corrupt(file, "length " + length + " is not header + n pairs + trailer", expectedEntries);
      }
      long count = pairBytes / PAIR_BYTES;
      ByteBuffer buf = ByteBuffer.allocate(IO_BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      CRC32C crc = new CRC32C();
      buf.limit(HEADER_BYTES);
      readFully(ch, buf);
      byte[] magic = new byte[MAGIC.length];
      buf.get(magic);
      int version = buf.getInt();
      int stripes = buf.getInt();
      long storedCount = buf.getLong();
      if (!Arrays.equals(magic, MAGIC)) {
        return corrupt(file, "bad magic", expectedEntries);
      }
      if (version != FORMAT_VERSION) {
        return corrupt(file, "format version " + version + ", expected " + FORMAT_VERSION, expectedEntries);
      }
      if (storedCount != count) {
        return corrupt(file, "count " + storedCount + " but " + count + " pairs", expectedEntries);
      }
      if (stripes < 1 || stripes > (1 << 16) || Integer.bitCount(stripes) != 1) {
        return corrupt(file, "stripe count " + stripes, expectedEntries);
      }
      crc.update(buf.flip());
      HeapIndex index = readPairs(ch, buf, crc, count, forLoading(expectedEntries, count, stripes));
      if (index == null) {
        return corrupt(file, "zero key or value", expectedEntries);
      }
      buf.clear().limit(TRAILER_BYTES);
      readFully(ch, buf);
      int stored = buf.getInt();
      if (stored != (int) crc.getValue()) {
        return corrupt(file, "CRC32C mismatch", expectedEntries);
      }
      return index;
    } catch (NoSuchFileException e) {
      LOG.debug("No heap index snapshot at {}; starting empty", file);
      return new HeapIndex(expectedEntries);
    } catch (IOException e) {
      LOG.warn("Cannot read heap index snapshot {}; starting empty", file, e);
      return new HeapIndex(expectedEntries);
    }
  }

  /**
   * Reads {@code count} pairs (key hash, entry) into {@code index}, adding them to {@code crc}; null if a
   * pair holds a zero (shared with {@link IndexCheckpoint}).
   */
  static HeapIndex readPairs(FileChannel ch, ByteBuffer buf, CRC32C crc, long count, HeapIndex index)
      throws IOException {
    long remaining = count;
    while (remaining > 0) {
      int pairs = (int) Math.min(remaining, IO_BUFFER_BYTES / PAIR_BYTES);
      buf.clear().limit(pairs * PAIR_BYTES);
      readFully(ch, buf);
      crc.update(buf.duplicate());
      for (int i = 0; i < pairs; i++) {
        long hash = buf.getLong();
        long entry = buf.getLong();
        if (hash == 0 || entry == IndexEntry.NONE) {
          return null;
        }
        index.putUnpublished(hash, entry);
      }
      remaining -= pairs;
    }
    return index;
  }

  private static HeapIndex corrupt(Path file, String why, long expectedEntries) {
    LOG.warn("Heap index snapshot {} is corrupt ({}); starting empty", file, why);
    return new HeapIndex(expectedEntries);
  }

  static void readFully(FileChannel ch, ByteBuffer buf) throws IOException {
    while (buf.hasRemaining()) {
      if (ch.read(buf) < 0) {
        throw new EOFException();
      }
    }
    buf.flip();
  }

  static void writeOut(FileChannel ch, ByteBuffer buf, CRC32C crc) throws IOException {
    buf.flip();
    if (crc != null) {
      crc.update(buf.duplicate());
    }
    while (buf.hasRemaining()) {
      ch.write(buf);
    }
    buf.clear();
  }

  /** Insert while the index is still confined to the loading thread (no locks needed). */
  private void putUnpublished(long hash, long entry) {
    long mixed = mix(hash);
    putLocked(stripeFor(mixed), tagOf(mixed), entry);
  }

  // ---------------------------------------------------------------- table internals

  /** A stripe's slots: tag 0 = empty. Replaced as a whole on growth. */
  static final class Table {
    final int[] tags;
    final long[] values;
    /**
     * Per bucket, how many tags whose first bucket it is live in their second bucket, saturating at
     * {@value #SPILLED_STUCK} (then never decremented: only a rehash recounts). A lookup whose first
     * bucket holds no such tag stops there.
     */
    final byte[] spilled;

    Table(int capacity) {
      tags = new int[capacity];
      values = new long[capacity];
      spilled = new byte[capacity >>> BUCKET_SHIFT];
    }

    /** A tag of first bucket {@code first} now lives in its second bucket. */
    void spill(int first) {
      int n = spilled[first] & 0xFF;
      if (n < SPILLED_STUCK) {
        spilled[first] = (byte) (n + 1);
      }
    }

    /** A tag of first bucket {@code first} left its second bucket. */
    void unspill(int first) {
      int n = spilled[first] & 0xFF;
      if (n < SPILLED_STUCK) {
        spilled[first] = (byte) (n - 1);
      }
    }
  }

  /**
   * One stripe. {@code table}, {@code size}, {@code threshold} and {@code shrinkBelow} are written only
   * under the write lock.
   */
  static final class Stripe {
    final StampedLock lock = new StampedLock();
    /** Scratch for a cuckoo insertion's path of moves (under the write lock), so an insertion allocates nothing. */
    final int[] path = new int[MAX_PATH];
    /** The capacity removals never shrink the stripe below. */
    final int minCapacity;
    /** Read optimistically by get. */
    volatile Table table;
    int size;
    /** An insertion at this size grows the table. */
    int threshold;
    /** A removal that leaves fewer entries than this shrinks the table (0: never, at its minimum). */
    int shrinkBelow;

    Stripe(int minCapacity, int capacity) {
      this.minCapacity = minCapacity;
      resetLocked(capacity);
    }

    void resetLocked(int capacity) {
      table = new Table(capacity);
      size = 0;
      sizedLocked(capacity);
    }

    void sizedLocked(int capacity) {
      threshold = thresholdFor(capacity);
      shrinkBelow = capacity > minCapacity ? (int) Math.ceil(capacity * MIN_LOAD) : 0;
    }
  }

  private Stripe stripeFor(long mixed) {
    return stripes[(int) mixed & stripeMask];
  }

  /** The stored part of a mixed hash: its high 32 bits, never 0. */
  static int tagOf(long mixed) {
    int tag = (int) (mixed >>> 32);
    return tag == 0 ? 1 : tag;
  }

  /**
   * Checks the table invariants under each stripe's write lock, for tests: every tag lives in its first
   * or second bucket, at most once per stripe; every bucket's spilled count (unless stuck) is the number
   * of tags of that first bucket in their second; the size is the number of used slots; the load is at
   * most {@value #LOAD_FACTOR}.
   *
   * @throws IllegalStateException naming the first broken invariant
   */
  void checkInvariants() {
    for (int si = 0; si < stripes.length; si++) {
      Stripe s = stripes[si];
      long stamp = s.lock.writeLock();
      try {
        probe.inside("checkInvariants");
        Table t = s.table;
        int buckets = t.spilled.length;
        int[] spills = new int[buckets];
        Set<Integer> seen = new HashSet<>();
        int used = 0;
        for (int i = 0; i < t.tags.length; i++) {
          int tag = t.tags[i];
          if (tag == 0) {
            continue;
          }
          used++;
          int first = firstBucket(tag, buckets);
          int bucket = i >>> BUCKET_SHIFT;
          if (bucket != first) {
            if (bucket != secondBucket(tag, first, buckets)) {
              throw new IllegalStateException("stripe " + si + ": tag in slot " + i + " is in neither bucket");
            }
            spills[first]++;
          }
          if (!seen.add(tag)) {
            throw new IllegalStateException("stripe " + si + ": tag in slot " + i + " twice");
          }
        }
        for (int b = 0; b < buckets; b++) {
          int counted = t.spilled[b] & 0xFF;
          if (counted != SPILLED_STUCK && counted != spills[b]) {
            throw new IllegalStateException("stripe " + si + " bucket " + b + ": spilled " + counted + " but "
                + spills[b] + " tags spilled");
          }
        }
        if (used != s.size || used > s.threshold) {
          throw new IllegalStateException("stripe " + si + ": size " + s.size + ", " + used + " slots used, threshold "
              + s.threshold);
        }
      } finally {
        s.lock.unlockWrite(stamp);
      }
    }
  }

  /** The slot {@code hash} occupies in its stripe, or -1 (tests: to see entries move). */
  int slotIndexOf(long hash) {
    long mixed = mix(hash);
    Stripe s = stripeFor(mixed);
    long stamp = s.lock.readLock();
    try {
      probe.inside("slotIndexOf");
      return slotOf(s.table, tagOf(mixed));
    } finally {
      s.lock.unlockRead(stamp);
    }
  }

  /** The hash {@link #forEach} reports for a key stored under {@code hash} (tests). */
  long identity(long hash) {
    long mixed = mix(hash);
    return hashFor((int) mixed & stripeMask, tagOf(mixed));
  }

  /** A key hash whose mix has stripe {@code stripe} and tag {@code tag}: the slot's identity. */
  private static long hashFor(int stripe, int tag) {
    return unmix(((long) tag << 32) | (stripe & 0xFFFF_FFFFL));
  }

  private static long putLocked(Stripe s, int tag, long entry) {
    Table t = s.table;
    int slot = slotOf(t, tag);
    if (slot >= 0) {
      long previous = t.values[slot];
      t.values[slot] = entry;
      return previous;
    }
    if (s.size >= s.threshold) {
      growLocked(s);
    }
    while (!insert(s.table, tag, entry, s.path)) { // both buckets full and no short path of moves frees one
      growLocked(s);
    }
    s.size++;
    return IndexEntry.NONE;
  }

  /**
   * Inserts a tag known to be absent: into the first free slot of its first bucket, else of its second,
   * else along a path of moves (cuckoo hashing: an entry of a full bucket moves to its other bucket).
   * False, with the table unchanged, if neither bucket has room and no path of at most {@value
   * #MAX_PATH} moves makes some.
   */
  private static boolean insert(Table t, int tag, long entry, int[] path) {
    int[] tags = t.tags;
    int buckets = tags.length >>> BUCKET_SHIFT;
    int first = firstBucket(tag, buckets);
    int second = secondBucket(tag, first, buckets);
    int free = freeSlot(tags, first);
    if (free < 0) {
      free = freeSlot(tags, second);
      if (free < 0) {
        return insertByMoving(t, tag, entry, first, second, path);
      }
      t.spill(first);
    }
    tags[free] = tag;
    t.values[free] = entry;
    return true;
  }

  /**
   * Random-walk cuckoo insertion that moves nothing until it has found room: it picks a slot of a full
   * bucket, follows that entry to its other bucket, and so on until a bucket has a free slot; then it
   * shifts the entries along the path (the last into the free slot) and puts the newcomer in the path's
   * first slot. A walk that would revisit a slot, or that needs more than {@value #MAX_PATH} moves,
   * gives up (the caller grows the stripe).
   */
  private static boolean insertByMoving(Table t, int tag, long entry, int first, int second, int[] path) {
    int[] tags = t.tags;
    long[] values = t.values;
    int buckets = tags.length >>> BUCKET_SHIFT;
    int random = tag * 0x2545_F491;
    int bucket = (random & 1) == 0 ? first : second;
    for (int depth = 0; depth < MAX_PATH; depth++) {
      random = random * 1_103_515_245 + 12_345;
      int victim = unvisited(path, depth, bucket, random >>> 16);
      if (victim < 0) {
        return false;
      }
      path[depth] = victim;
      int there = tags[victim];
      int home = firstBucket(there, buckets);
      bucket = bucket == home ? secondBucket(there, home, buckets) : home;
      int free = freeSlot(tags, bucket);
      if (free >= 0) {
        int to = free;
        for (int k = depth; k >= 0; k--) {
          int moving = tags[path[k]];
          int movingHome = firstBucket(moving, buckets);
          if (to >>> BUCKET_SHIFT == movingHome) {
            t.unspill(movingHome); // back to its first bucket
          } else {
            t.spill(movingHome);
          }
          tags[to] = moving;
          values[to] = values[path[k]];
          to = path[k];
        }
        tags[to] = tag;
        values[to] = entry;
        if (to >>> BUCKET_SHIFT != first) {
          t.spill(first);
        }
        return true;
      }
    }
    return false;
  }

  /** A slot of {@code bucket} not among the first {@code length} of {@code path}, from {@code start}; -1 if none. */
  private static int unvisited(int[] path, int length, int bucket, int start) {
    for (int n = 0; n < BUCKET_SLOTS; n++) {
      int slot = (bucket << BUCKET_SHIFT) + ((start + n) & (BUCKET_SLOTS - 1));
      boolean seen = false;
      for (int k = 0; k < length && !seen; k++) {
        seen = path[k] == slot;
      }
      if (!seen) {
        return slot;
      }
    }
    return -1;
  }

  /** The first free slot of {@code bucket}, or -1. */
  private static int freeSlot(int[] tags, int bucket) {
    int base = bucket << BUCKET_SHIFT;
    for (int i = base; i < base + BUCKET_SLOTS; i++) {
      if (tags[i] == 0) {
        return i;
      }
    }
    return -1;
  }

  /** Rehashes {@code s} into a table {@value #GROWTH_FACTOR}x larger (or fails at the maximum). */
  private static void growLocked(Stripe s) {
    rehashLocked(s, grown(s.table.tags.length));
  }

  /**
   * The next capacity up from {@code capacity}: {@value #GROWTH_FACTOR}x, at least one bucket more.
   *
   * @throws IndexFullException if {@code capacity} is already {@link #MAX_CAPACITY}
   */
  private static int grown(int capacity) {
    if (capacity >= MAX_CAPACITY) {
      throw new IndexFullException("heap index stripe full at " + capacity + " slots");
    }
    return capacityFor(Math.max(capacity + BUCKET_SLOTS, (long) (capacity * GROWTH_FACTOR)));
  }

  /** Rehashes {@code s} into a table of {@code capacity} slots, or the next larger one its entries fit. */
  private static void rehashLocked(Stripe s, int capacity) {
    Table old = s.table;
    Table t = new Table(capacity);
    for (int i = 0; i < old.tags.length; i++) {
      if (old.tags[i] != 0 && !insert(t, old.tags[i], old.values[i], s.path)) {
        rehashLocked(s, grown(capacity));
        return;
      }
    }
    s.table = t;
    s.sizedLocked(capacity);
  }

  /** Rehashes {@code s} to a load of {@value #SHRINK_LOAD}, or to its minimum capacity. */
  private static void shrinkLocked(Stripe s) {
    int capacity = Math.max(s.minCapacity, capacityFor((long) Math.ceil(s.size / SHRINK_LOAD)));
    if (capacity < s.table.tags.length) {
      rehashLocked(s, capacity);
    }
  }

  /**
   * Grows every stripe at most once so that {@code additional} more entries fit without further growth
   * (recovery's replay, whose count is known before it installs); 10% slack per stripe as {@link
   * #forLoading}. Takes each stripe's write lock.
   */
  void reserve(long additional) {
    double perStripe = Math.ceil((double) (size() + additional) / stripes.length) * 1.1;
    int capacity = capacityFor((long) Math.ceil(perStripe / LOAD_FACTOR));
    for (Stripe s : stripes) {
      long stamp = s.lock.writeLock();
      try {
        probe.inside("reserve");
        if (s.threshold < perStripe && s.table.tags.length < capacity) {
          rehashLocked(s, capacity);
        }
      } finally {
        s.lock.unlockWrite(stamp);
      }
    }
  }

  /** Empties {@code slot} (nothing moves) and shrinks the stripe if that took it below its bound. */
  private static void removeAtLocked(Stripe s, int slot) {
    Table t = s.table;
    int first = firstBucket(t.tags[slot], t.spilled.length);
    if (slot >>> BUCKET_SHIFT != first) {
      t.unspill(first);
    }
    t.tags[slot] = 0;
    t.values[slot] = IndexEntry.NONE;
    s.size--;
    if (s.size < s.shrinkBelow) {
      shrinkLocked(s);
    }
  }

  /**
   * Lock-free probe for {@link #get}: may run against a table being changed, so it reads the table
   * once (the caller passes it), and never probes more than its two buckets.
   */
  private static long find(Table t, int tag) {
    int slot = slotOf(t, tag);
    return slot < 0 ? IndexEntry.NONE : t.values[slot];
  }

  /**
   * Slot of {@code tag}, or -1: it can only be in its first bucket, or in its second if some tag of
   * that first bucket spilled there.
   */
  private static int slotOf(Table t, int tag) {
    int[] tags = t.tags;
    byte[] spilled = t.spilled;
    int buckets = spilled.length;
    int first = firstBucket(tag, buckets);
    int slot = slotIn(tags, first, tag);
    if (slot >= 0 || spilled[first] == 0) {
      return slot;
    }
    return slotIn(tags, secondBucket(tag, first, buckets), tag);
  }

  private static int slotIn(int[] tags, int bucket, int tag) {
    int base = bucket << BUCKET_SHIFT;
    for (int i = base; i < base + BUCKET_SLOTS; i++) {
      if (tags[i] == tag) {
        return i;
      }
    }
    return -1;
  }

  /** The bucket a tag tries first: from its high bits, so any bucket count works. */
  static int firstBucket(int tag, int buckets) {
    return (int) (((tag & 0xFFFF_FFFFL) * buckets) >>> 32);
  }

  /** The tag's other bucket: from a re-mix of the tag, never {@code first} (a stripe has >= 2 buckets). */
  static int secondBucket(int tag, int first, int buckets) {
    int h = tag * 0x9E37_79B9;
    h ^= h >>> 15;
    int bucket = (int) (((h & 0xFFFF_FFFFL) * buckets) >>> 32);
    return bucket != first ? bucket : (first + 1 == buckets ? 0 : first + 1);
  }

  /** {@code slots} rounded up to whole buckets, at least {@link #MIN_CAPACITY}, at most {@link #MAX_CAPACITY}. */
  static int capacityFor(long slots) {
    long rounded = (Math.max(slots, MIN_CAPACITY) + BUCKET_SLOTS - 1) & -BUCKET_SLOTS;
    return (int) Math.min(MAX_CAPACITY, rounded);
  }

  private static int thresholdFor(int capacity) {
    return (int) (capacity * LOAD_FACTOR);
  }

  private static final long C1 = 0xff51afd7ed558ccdL;
  private static final long C2 = 0xc4ceb9fe1a85ec53L;
  private static final long C1_INVERSE = inverse(C1);
  private static final long C2_INVERSE = inverse(C2);

  /** MurmurHash3's 64-bit finalizer: every input bit affects every output bit. */
  static long mix(long h) {
    h ^= h >>> 33;
    h *= C1;
    h ^= h >>> 33;
    h *= C2;
    h ^= h >>> 33;
    return h;
  }

  /** The inverse of {@link #mix}: {@code mix(unmix(m)) == m}. */
  static long unmix(long m) {
    m ^= m >>> 33; // x ^= x >>> 33 is its own inverse (33 >= 32)
    m *= C2_INVERSE;
    m ^= m >>> 33;
    m *= C1_INVERSE;
    m ^= m >>> 33;
    return m;
  }

  /** The multiplicative inverse of an odd {@code c} modulo 2^64 (Newton's iteration). */
  private static long inverse(long c) {
    long x = c;
    for (int i = 0; i < 5; i++) {
      x *= 2 - c * x;
    }
    return x;
  }

  private static long arrayBytes(long length, int elementBytes) {
    return 16 + length * elementBytes;
  }

  static void checkHash(long hash) {
    if (hash == 0) {
      throw new IllegalArgumentException("key hash 0 is reserved (callers remap it)");
    }
  }

  static void checkEntry(long entry) {
    if (entry == IndexEntry.NONE) {
      throw new IllegalArgumentException("IndexEntry.NONE (0) is never stored");
    }
  }
}
