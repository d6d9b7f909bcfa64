package io.hybridcache.core.engine;

import java.util.Arrays;

/**
 * The DRAM index of the small front log ({@link SmallLog}): Kangaroo's partitioned KLog index (SOSP 2021,
 * section 4.2: per-partition tables of small tags and log offsets, no pointer per set). A few bytes per
 * <em>live</em> log object and nothing for an unused log slot or an empty set.
 *
 * <p><b>Format (DRAM).</b> The sets are grouped into partitions of {@value #SETS_PER_PARTITION}
 * consecutive sets. A partition is one {@code long[]} of bit-packed entries, oldest first, and a count;
 * an empty partition has no array. An entry is {@code width} bits, low to high: the log slot id
 * ({@code slotBits} = bits of the slot count), the set within the partition (4 bits), a hit bit (the
 * object was read while in the log: Kangaroo's readmission) and a tag of the key hash ({@code tagBits},
 * taken from the hash's high bits, which do not choose the set). With 23,680 slots and 10-bit tags an
 * entry is 30 bits. A tag is only a hint: the log confirms it with the full key read from flash, so a
 * tag collision costs a page read, never a wrong answer ({@code SmallLogIndexTest} forces collisions
 * with 1-bit tags).
 *
 * <p><b>Reclaim.</b> Entries leave when the log moves or drops their objects; a partition's array grows
 * by an eighth (at least 4 entries) when full and shrinks back to that when a quarter plus 8 entries are
 * unused (a copy of a few hundred bytes, beside the scan that every removal makes anyway), so its slack
 * stays small while the log's live objects swing with its lap; it is counted in {@link #dramBytes}.
 *
 * <p><b>Concurrency.</b> None: the owner ({@link SmallLog}) calls it under its lock only.
 */
final class SmallLogIndex {
  static final int SETS_PER_PARTITION = 16;
  private static final int SET_BITS = 4;
  private static final int MIN_ENTRIES = 4;
  /** Bytes of a partition besides its entries: the array's header, its reference and the count. */
  static final int PARTITION_OVERHEAD = 16 + 8 + 4;

  private final int sets;
  private final int slotBits;
  private final int tagBits;
  private final int width;
  private final long mask;
  private final long[][] words;
  private final int[] counts;
  private long live;
  private long arrayBytes;

  /** An index of objects of {@code sets} sets in log slots {@code [0, slots)}, tags of {@code tagBits}. */
  SmallLogIndex(int sets, int slots, int tagBits) {
    if (sets < 1 || slots < 1 || tagBits < 1 || tagBits > 32) {
      throw new IllegalArgumentException("sets " + sets + ", slots " + slots + ", tag bits " + tagBits
          + ": sets and slots must be > 0, tag bits 1..32");
    }
    this.sets = sets;
    this.slotBits = Math.max(1, Integer.SIZE - Integer.numberOfLeadingZeros(slots - 1));
    this.tagBits = tagBits;
    this.width = slotBits + SET_BITS + 1 + tagBits;
    this.mask = width == Long.SIZE ? -1L : (1L << width) - 1;
    int partitions = (sets + SETS_PER_PARTITION - 1) / SETS_PER_PARTITION;
    this.words = new long[partitions][];
    this.counts = new int[partitions];
  }

  /** The tag of a key hash. */
  int tag(long keyHash) {
    return (int) (keyHash >>> (Long.SIZE - tagBits));
  }

  int entryBits() {
    return width;
  }

  /** Adds the object in {@code slot} of {@code set} as the set's newest. */
  void add(int set, int tag, int slot) {
    int p = set / SETS_PER_PARTITION;
    int n = counts[p];
    if (n == capacity(p)) {
      resize(p, n + Math.max(MIN_ENTRIES, n / 8));
    }
    put(words[p], n, encode(set, tag, slot, false));
    counts[p] = n + 1;
    live++;
  }

  /** The slots of the set's objects with this tag (any tag if negative), newest first. */
  int[] slots(int set, int tag) {
    int p = set / SETS_PER_PARTITION;
    int[] out = new int[4];
    int found = 0;
    for (int i = counts[p] - 1; i >= 0; i--) {
      long e = get(words[p], i);
      if (setOf(p, e) == set && (tag < 0 || tagOf(e) == tag)) {
        if (found == out.length) {
          out = Arrays.copyOf(out, found * 2);
        }
        out[found++] = slotOf(e);
      }
    }
    return Arrays.copyOf(out, found);
  }

  /** How many objects of the set the log holds. */
  int count(int set) {
    int p = set / SETS_PER_PARTITION;
    int n = 0;
    for (int i = 0; i < counts[p]; i++) {
      if (setOf(p, get(words[p], i)) == set) {
        n++;
      }
    }
    return n;
  }

  boolean contains(int set, int slot) {
    return find(set, slot) >= 0;
  }

  /** True if the object was read while in the log (since it was added). */
  boolean hit(int set, int slot) {
    int i = find(set, slot);
    return i >= 0 && (get(words[set / SETS_PER_PARTITION], i) >>> (slotBits + SET_BITS) & 1) != 0;
  }

  /** Notes a read of the object, if it is still indexed. */
  void markHit(int set, int slot) {
    int i = find(set, slot);
    if (i >= 0) {
      long[] w = words[set / SETS_PER_PARTITION];
      put(w, i, get(w, i) | 1L << (slotBits + SET_BITS));
    }
  }

  /** Removes one object; false if it was not indexed. */
  boolean remove(int set, int slot) {
    int p = set / SETS_PER_PARTITION;
    return removeWhere(p, e -> setOf(p, e) == set && slotOf(e) == slot) > 0;
  }

  /** Removes every object of the set. */
  void removeAll(int set) {
    int p = set / SETS_PER_PARTITION;
    removeWhere(p, e -> setOf(p, e) == set);
  }

  /**
   * Removes every object in slots {@code [from, to)} (a log page that cannot be read) and returns the sets
   * they belonged to. Scans every partition: a rare path.
   */
  int[] removeSlots(int from, int to) {
    int[] found = setsWithSlots(from, to);
    for (int p = 0; p < counts.length; p++) {
      removeWhere(p, e -> slotOf(e) >= from && slotOf(e) < to);
    }
    return found;
  }

  /** The sets with an object in slots {@code [from, to)}, each once. Scans every partition: a rare path. */
  int[] setsWithSlots(int from, int to) {
    java.util.BitSet found = new java.util.BitSet(sets);
    for (int p = 0; p < counts.length; p++) {
      for (int i = 0; i < counts[p]; i++) {
        long e = get(words[p], i);
        if (slotOf(e) >= from && slotOf(e) < to) {
          found.set(setOf(p, e));
        }
      }
    }
    return found.stream().toArray();
  }

  /** Receives the index's entries ({@link #forEach}). */
  interface Visitor {
    void entry(int set, int tag, int slot, boolean hit);
  }

  /** Every entry, each partition oldest first: {@link #add}ing them in this order rebuilds the index. */
  void forEach(Visitor v) {
    for (int p = 0; p < counts.length; p++) {
      for (int i = 0; i < counts[p]; i++) {
        long e = get(words[p], i);
        v.entry(setOf(p, e), tagOf(e), slotOf(e), (e >>> (slotBits + SET_BITS) & 1) != 0);
      }
    }
  }

  /** Objects indexed. */
  long liveObjects() {
    return live;
  }

  /** DRAM of the index: the partitions' arrays (with their slack), references and counts. */
  long dramBytes() {
    return arrayBytes + (long) counts.length * (PARTITION_OVERHEAD - 16);
  }

  private int find(int set, int slot) {
    int p = set / SETS_PER_PARTITION;
    for (int i = counts[p] - 1; i >= 0; i--) {
      long e = get(words[p], i);
      if (slotOf(e) == slot && setOf(p, e) == set) {
        return i;
      }
    }
    return -1;
  }

  private interface EntryTest {
    boolean test(long entry);
  }

  /** Keeps the entries the test rejects, in order; returns how many left. */
  private int removeWhere(int p, EntryTest test) {
    long[] w = words[p];
    int n = counts[p];
    int kept = 0;
    for (int i = 0; i < n; i++) {
      long e = get(w, i);
      if (!test.test(e)) {
        if (kept != i) {
          put(w, kept, e);
        }
        kept++;
      }
    }
    counts[p] = kept;
    live -= n - kept;
    if (kept == 0) {
      resize(p, 0);
    } else if (capacity(p) > kept + kept / 4 + 2 * MIN_ENTRIES) { // hysteresis: grows by 1/8 + 4
      resize(p, kept + Math.max(MIN_ENTRIES, kept / 8));
    }
    return n - kept;
  }

  private int capacity(int p) {
    return words[p] == null ? 0 : (int) ((long) words[p].length * Long.SIZE / width);
  }

  /** Reallocates partition {@code p} for {@code entries}; the packing is a prefix, so a copy keeps them. */
  private void resize(int p, int entries) {
    int length = (int) (((long) entries * width + Long.SIZE - 1) / Long.SIZE);
    if (words[p] != null) {
      arrayBytes -= 16 + 8L * words[p].length;
    }
    words[p] = entries == 0 ? null : Arrays.copyOf(words[p] == null ? new long[0] : words[p], length);
    if (words[p] != null) {
      arrayBytes += 16 + 8L * length;
    }
  }

  private long encode(int set, int tag, int slot, boolean hit) {
    long e = (long) slot | (long) (set % SETS_PER_PARTITION) << slotBits
        | (hit ? 1L : 0L) << (slotBits + SET_BITS) | ((long) tag & ((1L << tagBits) - 1)) << (slotBits + SET_BITS + 1);
    return e & mask;
  }

  private int slotOf(long e) {
    return (int) (e & ((1L << slotBits) - 1));
  }

  private int setOf(int p, long e) {
    return p * SETS_PER_PARTITION + (int) (e >>> slotBits & (SETS_PER_PARTITION - 1));
  }

  private int tagOf(long e) {
    return (int) (e >>> (slotBits + SET_BITS + 1));
  }

  private long get(long[] w, int i) {
    long bit = (long) i * width;
    int word = (int) (bit >>> 6);
    int off = (int) (bit & 63);
    long v = w[word] >>> off;
    if (off + width > Long.SIZE) {
      v |= w[word + 1] << (Long.SIZE - off);
    }
    return v & mask;
  }

  private void put(long[] w, int i, long v) {
    long bit = (long) i * width;
    int word = (int) (bit >>> 6);
    int off = (int) (bit & 63);
    w[word] = (w[word] & ~(mask << off)) | (v << off);
    if (off + width > Long.SIZE) {
      int high = Long.SIZE - off;
      w[word + 1] = (w[word + 1] & ~(mask >>> high)) | (v >>> high);
    }
  }

  int sets() {
    return sets;
  }
}
