package io.hybridcache.core.index;

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
import java.util.Objects;
import java.util.concurrent.locks.StampedLock;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe through lock striping: the key space is split into a power-of-two number of stripes,
 * each an open-addressing table guarded by its own {@link StampedLock}; {@link #get} takes no lock
 * at all in the common case, so readers never block each other. Keys and values are primitive
 * {@code long}s in one interleaved array per stripe (key at {@code 2i}, value at {@code 2i + 1}), so a
 * mapping costs 16 bytes of slot plus the table's free share, and nothing is boxed.
 *
 * <p>The index is not persistent by itself: {@link #saveTo} writes a snapshot (meant for a clean
 * close) and {@link #loadFrom} reads it back, returning an empty index if the file is missing,
 * short or fails its checksum. {@link #close} does not save.
 *
 * <h2>Concurrency</h2>
 *
 * <ul>
 *   <li>{@code get}: an optimistic read ({@link StampedLock#tryOptimisticRead}) of the stripe's table
 *       followed by {@link StampedLock#validate}; if a writer intervened, it retries once under the
 *       read lock. The optimistic probe reads the table reference once into a local and bounds its
 *       loop by the table length, so a torn view can yield a wrong answer (discarded by validation)
 *       but never an exception or an endless loop.
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
 * </ul>
 *
 * <h2>Table</h2>
 *
 * Linear probing; key {@code 0} marks an empty slot (key hashes are never 0). The caller's hash is
 * re-mixed (MurmurHash3 finalizer) so that poorly distributed hashes still spread: bits 32..
 * choose the stripe, bits 0..31 the home slot ({@code (low32 * capacity) >>> 32}, so capacities need
 * not be powers of two). A stripe grows by {@value #GROWTH_FACTOR}x when an insertion would take its
 * load past {@value #LOAD_FACTOR}, so its load stays between 0.5 and 0.75 once grown: 21 to 32 bytes
 * per mapping. Deletion is backward-shift (Knuth's Algorithm R): later entries of the probe run move
 * back into the hole, so there are no tombstones and lookups never slow down with churn.
 *
 * <h2>Format</h2>
 *
 * See {@link #HEADER_BYTES} for the byte layout of the {@link #saveTo} file.
 */
public final class HeapIndex implements Index {

  private static final Logger LOG = LoggerFactory.getLogger(HeapIndex.class);

  /** Stripes used by {@link #HeapIndex(long)}. */
  public static final int DEFAULT_STRIPES = 64;

  static final double LOAD_FACTOR = 0.75;
  static final double GROWTH_FACTOR = 1.5;
  /** Extra room given over {@code expectedEntries / stripes}, so uneven stripes rarely grow. */
  static final double SIZING_SLACK = 1.05;
  static final int MIN_CAPACITY = 8;
  /** Most slots of one stripe: its interleaved table must fit one Java array. */
  static final int MAX_CAPACITY = (Integer.MAX_VALUE - 8) / 2;

  static final byte[] MAGIC = "HCHEAPIX".getBytes(StandardCharsets.US_ASCII);
  /** Bump on any change of the layout at {@link #HEADER_BYTES}; older versions load as empty. */
  static final int FORMAT_VERSION = 1;
  /**
   * Snapshot file layout, little-endian:
   *
   * <pre>
   *  offset 0   magic            8 bytes  "HCHEAPIX"
   *  offset 8   format version   int      {@link #FORMAT_VERSION}
   *  offset 12  count            long     number of pairs
   *  offset 20  pairs            count x (long key hash, long packed entry), neither ever 0
   *  end - 4    CRC32C           int      over every byte before it
   * </pre>
   *
   * The file is written to {@code <name>.tmp}, forced, then renamed over {@code <name>}.
   */
  static final int HEADER_BYTES = 8 + 4 + 8;
  static final int PAIR_BYTES = 16;
  static final int TRAILER_BYTES = 4;
  private static final int IO_BUFFER_BYTES = 1 << 16;

  /** Lock order when several are held (saveTo only): ascending index. */
  private final Stripe[] stripes;
  private final int stripeMask;
  private final int initialCapacity;

  /** An empty index sized for about {@code expectedEntries} mappings, with {@link #DEFAULT_STRIPES}. */
  public HeapIndex(long expectedEntries) {
    this(expectedEntries, DEFAULT_STRIPES);
  }

  /**
   * An empty index sized for about {@code expectedEntries} mappings (it grows past that as needed).
   *
   * @param stripes a power of two between 1 and 65536
   */
  public HeapIndex(long expectedEntries, int stripes) {
    if (expectedEntries < 0) {
      throw new IllegalArgumentException("expectedEntries must be >= 0: " + expectedEntries);
    }
    if (stripes < 1 || stripes > (1 << 16) || Integer.bitCount(stripes) != 1) {
      throw new IllegalArgumentException("stripes must be a power of two in [1, 65536]: " + stripes);
    }
    double perStripe = Math.ceil((double) expectedEntries / stripes);
    double capacity = Math.ceil(perStripe * SIZING_SLACK / LOAD_FACTOR);
    if (capacity > MAX_CAPACITY) {
      throw new IllegalArgumentException(
          "expectedEntries too large for " + stripes + " stripes: " + expectedEntries);
    }
    this.initialCapacity = Math.max(MIN_CAPACITY, (int) capacity);
    this.stripeMask = stripes - 1;
    this.stripes = new Stripe[stripes];
    for (int i = 0; i < stripes; i++) {
      this.stripes[i] = new Stripe(initialCapacity);
    }
  }

  // ---------------------------------------------------------------- Index

  @Override
  public long get(long hash) {
    if (hash == 0) {
      return IndexEntry.NONE;
    }
    long mixed = mix(hash);
    Stripe s = stripeFor(mixed);
    StampedLock lock = s.lock;
    long stamp = lock.tryOptimisticRead();
    if (stamp != 0) {
      long value = find(s.table, hash, mixed);
      if (lock.validate(stamp)) {
        return value;
      }
    }
    stamp = lock.readLock();
    try {
      return find(s.table, hash, mixed);
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
      return putLocked(s, hash, mixed, entry);
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
      long[] t = s.table;
      int slot = slotOf(t, hash, mixed);
      if (slot < 0 || t[valueAt(slot)] != expected) {
        return false;
      }
      if (update == IndexEntry.NONE) {
        removeAtLocked(s, slot);
      } else {
        t[valueAt(slot)] = update;
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
      long[] t = s.table;
      int slot = slotOf(t, hash, mixed);
      if (slot < 0) {
        return IndexEntry.NONE;
      }
      long previous = t[valueAt(slot)];
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
          n = s.size;
        } finally {
          s.lock.unlockRead(stamp);
        }
      }
      total += n;
    }
    return total;
  }

  /** Bytes of the stripe tables (array headers included) plus the stripe array. */
  @Override
  public long memoryBytes() {
    long bytes = arrayBytes(stripes.length, 4);
    for (Stripe s : stripes) {
      bytes += arrayBytes(s.table.length, 8);
    }
    return bytes;
  }

  @Override
  public void forEach(EntryVisitor visitor) {
    Objects.requireNonNull(visitor, "visitor");
    long[] copy = new long[0];
    for (Stripe s : stripes) {
      int n = 0;
      long stamp = s.lock.readLock();
      try {
        long[] t = s.table;
        if (copy.length < 2 * s.size) {
          copy = new long[2 * s.size];
        }
        for (int i = 0; i < t.length; i += 2) {
          if (t[i] != 0) {
            copy[n++] = t[i];
            copy[n++] = t[i + 1];
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

  /** Removes every mapping and shrinks every stripe back to its initial capacity. */
  @Override
  public void clear() {
    for (Stripe s : stripes) {
      long stamp = s.lock.writeLock();
      try {
        s.resetLocked(initialCapacity);
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
        long count = 0;
        for (Stripe s : stripes) {
          count += s.size;
        }
        buf.put(MAGIC).putInt(FORMAT_VERSION).putLong(count);
        long written = 0;
        for (Stripe s : stripes) {
          long[] t = s.table;
          for (int i = 0; i < t.length; i += 2) {
            if (t[i] != 0) {
              if (buf.remaining() < PAIR_BYTES) {
                writeOut(ch, buf, crc);
              }
              buf.putLong(t[i]).putLong(t[i + 1]);
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
      writeOut(ch, buf, crc);
      buf.putInt((int) crc.getValue());
      writeOut(ch, buf, null);
    });
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
      crc.update(buf.flip());
      HeapIndex index = new HeapIndex(Math.max(expectedEntries, count));
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
            return corrupt(file, "zero key or value", expectedEntries);
          }
          index.putUnpublished(hash, entry);
        }
        remaining -= pairs;
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

  private static HeapIndex corrupt(Path file, String why, long expectedEntries) {
    LOG.warn("Heap index snapshot {} is corrupt ({}); starting empty", file, why);
    return new HeapIndex(expectedEntries);
  }

  private static void readFully(FileChannel ch, ByteBuffer buf) throws IOException {
    while (buf.hasRemaining()) {
      if (ch.read(buf) < 0) {
        throw new EOFException();
      }
    }
    buf.flip();
  }

  private static void writeOut(FileChannel ch, ByteBuffer buf, CRC32C crc) throws IOException {
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
    putLocked(stripeFor(mixed), hash, mixed, entry);
  }

  // ---------------------------------------------------------------- table internals

  /** One stripe. {@code table}, {@code size} and {@code threshold} are written only under the write lock. */
  static final class Stripe {
    final StampedLock lock = new StampedLock();
    /** Interleaved slots: key at 2i, value at 2i + 1; key 0 = empty. Read optimistically by get. */
    long[] table;
    int size;
    int threshold;

    Stripe(int capacity) {
      resetLocked(capacity);
    }

    void resetLocked(int capacity) {
      table = new long[2 * capacity];
      size = 0;
      threshold = thresholdFor(capacity);
    }
  }

  private Stripe stripeFor(long mixed) {
    return stripes[(int) (mixed >>> 32) & stripeMask];
  }

  private static long putLocked(Stripe s, long hash, long mixed, long entry) {
    long[] t = s.table;
    int slot = slotOf(t, hash, mixed);
    if (slot >= 0) {
      long previous = t[valueAt(slot)];
      t[valueAt(slot)] = entry;
      return previous;
    }
    if (s.size >= s.threshold) {
      growLocked(s);
      t = s.table;
      slot = slotOf(t, hash, mixed);
    }
    int free = ~slot;
    t[valueAt(free)] = entry;
    t[keyAt(free)] = hash;
    s.size++;
    return IndexEntry.NONE;
  }

  /** Rehashes {@code s} into a table {@value #GROWTH_FACTOR}x larger (or fails at the maximum). */
  private static void growLocked(Stripe s) {
    long[] old = s.table;
    int capacity = old.length >>> 1;
    if (capacity >= MAX_CAPACITY) {
      if (s.size >= capacity - 1) {
        throw new IndexFullException("heap index stripe full at " + capacity + " slots");
      }
      s.threshold = capacity - 1;
      return;
    }
    int grown = (int) Math.min(MAX_CAPACITY, Math.max(capacity + 1L, (long) (capacity * GROWTH_FACTOR)));
    long[] t = new long[2 * grown];
    for (int i = 0; i < old.length; i += 2) {
      long key = old[i];
      if (key != 0) {
        int free = ~slotOf(t, key, mix(key));
        t[keyAt(free)] = key;
        t[valueAt(free)] = old[i + 1];
      }
    }
    s.table = t;
    s.threshold = thresholdFor(grown);
  }

  /** Backward-shift deletion of {@code slot}: pulls later members of its probe run into the hole. */
  private static void removeAtLocked(Stripe s, int slot) {
    long[] t = s.table;
    int capacity = t.length >>> 1;
    int hole = slot;
    int j = slot;
    while (true) {
      if (++j == capacity) {
        j = 0;
      }
      long key = t[keyAt(j)];
      if (key == 0) {
        break;
      }
      int home = home(mix(key), capacity);
      // The entry at j stays if its home lies cyclically in (hole, j]; otherwise it fills the hole.
      boolean stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
      if (!stays) {
        t[keyAt(hole)] = key;
        t[valueAt(hole)] = t[valueAt(j)];
        hole = j;
      }
    }
    t[keyAt(hole)] = 0;
    t[valueAt(hole)] = IndexEntry.NONE;
    s.size--;
  }

  /**
   * Lock-free probe for {@link #get}: may run against a table being changed, so it reads the array
   * once (the caller passes it), and never probes more than its length.
   */
  private static long find(long[] t, long hash, long mixed) {
    int capacity = t.length >>> 1;
    int i = home(mixed, capacity);
    for (int n = 0; n < capacity; n++) {
      long key = t[keyAt(i)];
      if (key == hash) {
        return t[valueAt(i)];
      }
      if (key == 0) {
        return IndexEntry.NONE;
      }
      if (++i == capacity) {
        i = 0;
      }
    }
    return IndexEntry.NONE;
  }

  /** Slot of {@code hash}, or {@code ~slot} of the free slot ending its probe run. Needs a free slot. */
  private static int slotOf(long[] t, long hash, long mixed) {
    int capacity = t.length >>> 1;
    int i = home(mixed, capacity);
    while (true) {
      long key = t[keyAt(i)];
      if (key == hash) {
        return i;
      }
      if (key == 0) {
        return ~i;
      }
      if (++i == capacity) {
        i = 0;
      }
    }
  }

  private static int keyAt(int slot) {
    return slot << 1;
  }

  private static int valueAt(int slot) {
    return (slot << 1) + 1;
  }

  private static int home(long mixed, int capacity) {
    return (int) (((mixed & 0xFFFF_FFFFL) * capacity) >>> 32);
  }

  private static int thresholdFor(int capacity) {
    return Math.min(capacity - 1, (int) (capacity * LOAD_FACTOR));
  }

  /** MurmurHash3's 64-bit finalizer: every input bit affects every output bit. */
  static long mix(long h) {
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
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
