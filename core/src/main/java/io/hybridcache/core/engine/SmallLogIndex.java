package io.hybridcache.core.engine;

import java.util.Arrays;

/**
 * The DRAM index of the small front log ({@link SmallLog}): Kangaroo's partitioned KLog index (SOSP 2021,
 * section 4.2: per-partition tables of small tags and log offsets, no pointer per set). A few bytes per
 * <em>live</em> log object and nothing for an unused log slot or an empty set.
 *
 * <p><b>Format (DRAM).</b> The sets are grouped into partitions of {@value #SETS_PER_PARTITION}
 * consecutive sets. A partition is one {@code long[]} bit stream of entries, oldest first, with its length
 * in bits, its entry count and the slot of its newest entry; an empty partition has no array. An entry
 * is, low to high: the set within the partition ({@code setBits}, 5), a hit bit (the object was read
 * while in the log: Kangaroo's readmission), a tag of the key hash ({@code tagBits}, the hash's high bits,
 * which do not choose the set), then the distance in slots from the partition's previous entry (modulo
 * the slot count; the first entry's from slot 0) as a Rice code: {@code q = d >> riceBits} one-bits, a
 * zero and the low {@code riceBits} bits, or, for {@code q >= escape}, {@code escape} one-bits and the
 * whole distance in {@code slotBits}. Entries are appended in log order, so distances are small: the
 * live objects of one partition lie about {@code 2 x partitions} slots apart (half the log's slots hold
 * a live object at steady state), and {@code riceBits} is chosen for that. The set bits and the distance
 * together cost about log2(sets) + 3 bits whatever the partition size (a plain slot id and set cost
 * log2(slots) + log2(sets per partition)): larger partitions only save their fixed cost
 * ({@value #PARTITION_OVERHEAD} B) and lengthen the scans. With 3,072 sets, 32,768 slots and 8-bit tags an entry is about 24 bits (30 with a plain slot id
 * and 16-set partitions); {@code SmallLogSteadyStateTest} measures about 26 bits per live log object with
 * slack and partitions. A tag is only a hint: the log confirms it with the full key read from flash, so a
 * tag collision costs a page read, never a wrong answer ({@code SmallLogIndexTest} forces collisions with
 * 1-bit tags). Every operation is a sequential scan of one partition (at the recommended log share about
 * 175 entries, twice as many as with 16-set partitions), and a removal decodes and re-encodes the
 * partition; an add only appends.
 *
 * <p><b>Reclaim.</b> Entries leave when the log moves or drops their objects; a partition's array grows
 * by a thirty-second (at least a word) when full, and a removal that leaves more than a sixteenth plus
 * two words unused reallocates it, so its slack stays small while the log's live objects swing with its
 * lap; it is counted in {@link #dramBytes}.
 *
 * <p><b>Concurrency.</b> None: the owner ({@link SmallLog}) calls it under its lock only.
 */
final class SmallLogIndex {
  static final int SETS_PER_PARTITION = 32;
  /** Bytes of a partition besides its entries: the array's header and reference, bit length, count, newest slot. */
  static final int PARTITION_OVERHEAD = 16 + 8 + 8 + 4 + 4;
  /** A full array grows by a 1/{@value #GROW} of its bits, at least {@value #MIN_GROWTH_BITS}. */
  private static final int GROW = 32;
  private static final int MIN_GROWTH_BITS = Long.SIZE;
  /** A removal reallocates an array with more than 1/{@value #SHRINK} + {@value #SHRINK_BITS} bits unused. */
  private static final int SHRINK = 16;
  private static final int SHRINK_BITS = 2 * Long.SIZE;

  private final int sets;
  private final int slots;
  private final int slotBits;
  private final int tagBits;
  private final int setsPerPartition;
  private final int setBits;
  private final int fixedBits;
  private final int riceBits;
  private final int escape;
  private final long[][] words;
  private final long[] lengths;
  private final int[] counts;
  private final int[] newest;
  private long live;
  private long arrayBytes;

  /** An index of objects of {@code sets} sets in log slots {@code [0, slots)}, tags of {@code tagBits}. */
  SmallLogIndex(int sets, int slots, int tagBits) {
    this(sets, slots, tagBits, SETS_PER_PARTITION);
  }

  /** As above, with {@code setsPerPartition} (a power of two) sets a partition. */
  SmallLogIndex(int sets, int slots, int tagBits, int setsPerPartition) {
    if (sets < 1 || slots < 1 || tagBits < 1 || tagBits > 32 || setsPerPartition < 1
        || setsPerPartition > 1 << 16 || Integer.bitCount(setsPerPartition) != 1) {
      throw new IllegalArgumentException("sets " + sets + ", slots " + slots + ", tag bits " + tagBits
          + ", sets per partition " + setsPerPartition
          + ": sets and slots must be > 0, tag bits 1..32, sets per partition a power of two up to 65,536");
    }
    this.sets = sets;
    this.slots = slots;
    this.slotBits = Math.max(1, Integer.SIZE - Integer.numberOfLeadingZeros(slots - 1));
    this.tagBits = tagBits;
    this.setsPerPartition = setsPerPartition;
    this.setBits = Integer.numberOfTrailingZeros(setsPerPartition);
    this.fixedBits = setBits + 1 + tagBits;
    int partitions = (sets + setsPerPartition - 1) / setsPerPartition;
    // a partition holds about slots / (2 x partitions) live objects, so they lie ~2 x partitions slots
    // apart; Rice's best parameter for a geometric gap of mean g is about log2(g ln 2)
    this.riceBits = Math.min(slotBits, (int) Math.round(Math.log(1.4 * partitions) / Math.log(2)));
    this.escape = Math.max(1, slotBits - riceBits);
    this.words = new long[partitions][];
    this.lengths = new long[partitions];
    this.counts = new int[partitions];
    this.newest = new int[partitions];
  }

  /** The tag of a key hash. */
  int tag(long keyHash) {
    return (int) (keyHash >>> (Long.SIZE - tagBits));
  }

  /** Bits of an entry besides its slot distance: set within the partition, hit bit, tag. */
  int fixedBits() {
    return fixedBits;
  }

  /** Mean bits of an indexed entry (fixed part and slot distance), without slack; 0 when empty. */
  double meanEntryBits() {
    long bits = 0;
    for (long l : lengths) {
      bits += l;
    }
    return live == 0 ? 0 : (double) bits / live;
  }

  /** Adds the object in {@code slot} of {@code set} as the set's newest. */
  void add(int set, int tag, int slot) {
    int p = set / setsPerPartition;
    int d = distance(counts[p] == 0 ? 0 : newest[p], slot);
    long start = lengths[p];
    long end = start + fixedBits + codeBits(d);
    if (end > capacityBits(p)) {
      resize(p, end + Math.max(MIN_GROWTH_BITS, end / GROW));
    }
    write(words[p], start, set % setsPerPartition, tag, false, d);
    lengths[p] = end;
    newest[p] = slot;
    counts[p]++;
    live++;
  }

  /** The slots of the set's objects with this tag (any tag if negative), newest first. */
  int[] slots(int set, int tag) {
    int p = set / setsPerPartition;
    int[] out = new int[4];
    int found = 0;
    for (Cursor c = new Cursor(p); c.next(); ) {
      if (c.set == set && (tag < 0 || c.tag == tag)) {
        if (found == out.length) {
          out = Arrays.copyOf(out, found * 2);
        }
        out[found++] = c.slot;
      }
    }
    for (int i = 0, j = found - 1; i < j; i++, j--) { // newest first
      int t = out[i];
      out[i] = out[j];
      out[j] = t;
    }
    return Arrays.copyOf(out, found);
  }

  /** How many objects of the set the log holds. */
  int count(int set) {
    int n = 0;
    for (Cursor c = new Cursor(set / setsPerPartition); c.next(); ) {
      if (c.set == set) {
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
    long at = find(set, slot);
    return at >= 0 && bits(words[set / setsPerPartition], at + setBits, 1) != 0;
  }

  /** Notes a read of the object, if it is still indexed. */
  void markHit(int set, int slot) {
    long at = find(set, slot);
    if (at >= 0) {
      long bit = at + setBits;
      words[set / setsPerPartition][(int) (bit >>> 6)] |= 1L << bit;
    }
  }

  /** Removes one object; false if it was not indexed. */
  boolean remove(int set, int slot) {
    return removeWhere(set / setsPerPartition, (s, id) -> s == set && id == slot) > 0;
  }

  /** Removes every object of the set. */
  void removeAll(int set) {
    removeWhere(set / setsPerPartition, (s, id) -> s == set);
  }

  /**
   * Removes every object in slots {@code [from, to)} (a log page that cannot be read) and returns the sets
   * they belonged to. Scans every partition: a rare path.
   */
  int[] removeSlots(int from, int to) {
    int[] found = setsWithSlots(from, to);
    for (int p = 0; p < counts.length; p++) {
      removeWhere(p, (s, id) -> id >= from && id < to);
    }
    return found;
  }

  /** The sets with an object in slots {@code [from, to)}, each once. Scans every partition: a rare path. */
  int[] setsWithSlots(int from, int to) {
    java.util.BitSet found = new java.util.BitSet(sets);
    for (int p = 0; p < counts.length; p++) {
      for (Cursor c = new Cursor(p); c.next(); ) {
        if (c.slot >= from && c.slot < to) {
          found.set(c.set);
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
      for (Cursor c = new Cursor(p); c.next(); ) {
        v.entry(c.set, c.tag, c.slot, (c.fixed >>> setBits & 1) != 0);
      }
    }
  }

  /**
   * Writes the index in its compact form, streamed from the partitions' arrays: the encoding's parameters
   * (sets per partition, Rice bits, escape: an index of other parameters cannot read the streams), then per
   * partition its entry count (int) and, if non-zero, its newest slot (int), its length in bits (long) and
   * the words that hold them (longs). About {@link #meanEntryBits} / 8 bytes per live object.
   */
  void writeTo(SmallCheckpoint.Out out) throws java.io.IOException {
    out.writeInt(setsPerPartition);
    out.writeInt(riceBits);
    out.writeInt(escape);
    for (int p = 0; p < counts.length; p++) {
      out.writeInt(counts[p]);
      if (counts[p] > 0) {
        out.writeInt(newest[p]);
        out.writeLong(lengths[p]);
        for (int w = 0, n = wordsFor(lengths[p]); w < n; w++) {
          out.writeLong(words[p][w]);
        }
      }
    }
  }

  /**
   * An index of {@code sets} sets, {@code slots} slots and {@code tagBits} tags holding what {@link #writeTo}
   * wrote, validated as it is read: every count and length is bounded by the geometry before its array is
   * allocated (in all at most one entry per slot), and each partition's stream is decoded back (sets in
   * range, the stated length and newest slot met exactly).
   */
  static SmallLogIndex readFrom(SmallCheckpoint.In in, int sets, int slots, int tagBits) throws java.io.IOException {
    SmallLogIndex index = new SmallLogIndex(sets, slots, tagBits);
    int spp = in.readInt();
    int rice = in.readInt();
    int esc = in.readInt();
    if (spp != index.setsPerPartition || rice != index.riceBits || esc != index.escape) {
      throw new java.io.IOException("an index of " + spp + " sets per partition, " + rice + " Rice bits, escape "
          + esc + "; this one has " + index.setsPerPartition + ", " + index.riceBits + ", " + index.escape);
    }
    long maxEntryBits = index.fixedBits + index.escape + index.slotBits;
    for (int p = 0; p < index.counts.length; p++) {
      int count = in.readInt();
      if (count < 0 || count > slots - index.live) {
        throw new java.io.IOException("partition " + p + " of " + count + " entries: more than the "
            + (slots - index.live) + " slots left");
      }
      if (count > 0) {
        index.readPartition(in, p, count, maxEntryBits);
      }
    }
    return index;
  }

  private void readPartition(SmallCheckpoint.In in, int p, int count, long maxEntryBits) throws java.io.IOException {
    int last = in.readInt();
    long length = in.readLong();
    if (length < (long) count * (fixedBits + 1) || length > count * maxEntryBits) {
      throw new java.io.IOException("partition " + p + " of " + count + " entries in " + length + " bits");
    }
    long[] w = new long[wordsFor(length)];
    for (int i = 0; i < w.length; i++) {
      w[i] = in.readLong();
    }
    words[p] = w;
    arrayBytes += 16 + 8L * w.length;
    lengths[p] = length;
    counts[p] = count;
    live += count;
    Cursor c = new Cursor(p);
    while (c.next()) {
      if (c.set >= sets || c.at > length) {
        throw new java.io.IOException("partition " + p + ": entry of set " + c.set + " ending at bit " + c.at
            + " of " + length);
      }
    }
    if (c.at != length || c.slot != last) {
      throw new java.io.IOException("partition " + p + ": entries end at bit " + c.at + " of " + length
          + ", newest slot " + c.slot + " (saved " + last + ")");
    }
    newest[p] = last;
  }

  private static int wordsFor(long bits) {
    return Math.toIntExact((bits + Long.SIZE - 1) / Long.SIZE);
  }

  /** Objects indexed. */
  long liveObjects() {
    return live;
  }

  /** DRAM of the index: the partitions' arrays (with their slack), references, lengths, counts and newest slots. */
  long dramBytes() {
    return arrayBytes + (long) counts.length * (PARTITION_OVERHEAD - 16);
  }

  /** The bit position of the entry of {@code slot} in the set's partition, or -1. */
  private long find(int set, int slot) {
    long at = -1;
    for (Cursor c = new Cursor(set / setsPerPartition); c.next(); ) {
      if (c.slot == slot && c.set == set) {
        at = c.start; // slots are unique: the last match is the only one
      }
    }
    return at;
  }

  private interface EntryTest {
    boolean test(int set, int slot);
  }

  /** Keeps the entries the test rejects, in order, re-encoded; returns how many left. */
  private int removeWhere(int p, EntryTest test) {
    int n = counts[p];
    long[] fixed = new long[n];
    int[] slot = new int[n];
    int kept = 0;
    for (Cursor c = new Cursor(p); c.next(); ) {
      if (!test.test(c.set, c.slot)) {
        fixed[kept] = c.fixed;
        slot[kept++] = c.slot;
      }
    }
    if (kept == n) {
      return 0;
    }
    counts[p] = kept;
    live -= n - kept;
    long end = 0;
    for (int i = 0, prev = 0; i < kept; prev = slot[i++]) {
      end += fixedBits + codeBits(distance(prev, slot[i]));
    }
    lengths[p] = end;
    if (kept == 0) {
      resize(p, 0);
      return n;
    }
    if (end > capacityBits(p) || capacityBits(p) > end + end / SHRINK + SHRINK_BITS) {
      arrayBytes -= 16 + 8L * words[p].length; // its contents are in fixed[] and slot[]
      words[p] = new long[(int) ((end + Math.max(MIN_GROWTH_BITS, end / GROW) + Long.SIZE - 1) / Long.SIZE)];
      arrayBytes += 16 + 8L * words[p].length;
    }
    long[] w = words[p];
    long at = 0;
    for (int i = 0, prev = 0; i < kept; prev = slot[i++]) {
      int d = distance(prev, slot[i]);
      put(w, at, fixedBits, fixed[i]);
      putCode(w, at + fixedBits, d);
      at += fixedBits + codeBits(d);
    }
    newest[p] = slot[kept - 1];
    return n - kept;
  }

  /** Reads one partition's entries, oldest first. */
  private final class Cursor {
    private final long[] w;
    private final int p;
    private int left;
    private int prev;
    long start;
    /** The bit after the last entry read. */
    long at;
    long fixed;
    int set;
    int tag;
    int slot;

    Cursor(int p) {
      this.p = p;
      this.w = words[p];
      this.left = counts[p];
    }

    boolean next() {
      if (left == 0) {
        return false;
      }
      left--;
      start = at;
      fixed = bits(w, at, fixedBits);
      at += fixedBits;
      int q = Math.min(escape, Long.numberOfTrailingZeros(~bits(w, at, escape + 1)));
      long d;
      if (q < escape) {
        at += q + 1;
        d = (long) q << riceBits | bits(w, at, riceBits);
        at += riceBits;
      } else {
        at += escape;
        d = bits(w, at, slotBits);
        at += slotBits;
      }
      slot = (int) ((prev + d) % slots);
      prev = slot;
      set = p * setsPerPartition + (int) (fixed & (setsPerPartition - 1));
      tag = (int) (fixed >>> (setBits + 1));
      return true;
    }
  }

  /** The distance in slots from {@code prev} to {@code slot}, modulo the slot count. */
  private int distance(int prev, int slot) {
    return Math.floorMod(slot - prev, slots);
  }

  private int codeBits(int d) {
    int q = d >>> riceBits;
    return q < escape ? q + 1 + riceBits : escape + slotBits;
  }

  private void write(long[] w, long at, int setInPartition, int tag, boolean hit, int d) {
    long fixed = setInPartition | (hit ? 1L : 0L) << setBits | ((long) tag & ((1L << tagBits) - 1)) << (setBits + 1);
    put(w, at, fixedBits, fixed);
    putCode(w, at + fixedBits, d);
  }

  private void putCode(long[] w, long at, int d) {
    int q = d >>> riceBits;
    if (q < escape) {
      put(w, at, q + 1, (1L << q) - 1); // q ones, then a zero
      put(w, at + q + 1, riceBits, d & ((1L << riceBits) - 1));
    } else {
      put(w, at, escape, (1L << escape) - 1);
      put(w, at + escape, slotBits, d);
    }
  }

  private long capacityBits(int p) {
    return words[p] == null ? 0 : (long) words[p].length * Long.SIZE;
  }

  /** Reallocates partition {@code p} for {@code bits}; the stream is a prefix, so a copy keeps it. */
  private void resize(int p, long bits) {
    int length = (int) ((bits + Long.SIZE - 1) / Long.SIZE);
    if (words[p] != null) {
      arrayBytes -= 16 + 8L * words[p].length;
    }
    words[p] = bits == 0 ? null : Arrays.copyOf(words[p] == null ? new long[0] : words[p], length);
    if (words[p] != null) {
      arrayBytes += 16 + 8L * length;
    }
  }

  /** {@code n} (0..64) bits at bit {@code at}. */
  private static long bits(long[] w, long at, int n) {
    if (n == 0) {
      return 0;
    }
    int word = (int) (at >>> 6);
    int off = (int) (at & 63);
    long v = w[word] >>> off;
    if (off + n > Long.SIZE && word + 1 < w.length) {
      v |= w[word + 1] << (Long.SIZE - off);
    }
    return n == Long.SIZE ? v : v & ((1L << n) - 1);
  }

  /** Writes the low {@code n} (0..63) bits of {@code v} at bit {@code at}. */
  private static void put(long[] w, long at, int n, long v) {
    if (n == 0) {
      return;
    }
    long mask = (1L << n) - 1;
    v &= mask;
    int word = (int) (at >>> 6);
    int off = (int) (at & 63);
    w[word] = (w[word] & ~(mask << off)) | (v << off);
    if (off + n > Long.SIZE) {
      int high = Long.SIZE - off;
      w[word + 1] = (w[word + 1] & ~(mask >>> high)) | (v >>> high);
    }
  }

  int sets() {
    return sets;
  }

  int slots() {
    return slots;
  }

  int tagBits() {
    return tagBits;
  }
}
