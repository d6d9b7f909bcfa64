package io.hybridcache.bench.smalldesign;

import java.util.Arrays;

/**
 * Nemo (Yang et al., ASPLOS 2026, arXiv 2603.09605): flash is a FIFO of {@code G} set groups of
 * {@code S = pages / G} set pages; a key's hash names its set s, the same in every group. The group being
 * filled is buffered in DRAM; an insert whose set is full there flushes the whole group at once (one
 * sequential write, never rewritten: WA = 1 / fill at flush), over the oldest group, whose hot objects
 * (read since written) are re-inserted into the new buffer first. A lookup asks the per-(set, group) filters
 * newest group first and reads each positive page until it finds the key.
 *
 * <p>DRAM charged: every filter (Nemo keeps only its hot part in DRAM and reads the rest from flash; the
 * command derives that variant as one extra read per flash lookup), one hot bit per flash object when
 * re-insertion is on, and the buffered group (S pages). No index: a group's pages are at fixed offsets.
 */
final class NemoDesign extends Design {
  private final int groups;
  private final int sets;
  private final PageFilters filters;
  private final BufferPages buffer;
  private final boolean reinsert;
  /** Next group slot to write; slots [head - used, head) mod G hold groups, oldest first. */
  private int head;
  private int used;
  private final int[] pending;

  NemoDesign(Geometry geo, Keys keys, int groups, String filter, double bitsPerObject, boolean reinsert) {
    super(geo, keys, checkedPages(geo, groups));
    this.groups = groups;
    this.sets = geo.pages() / groups;
    this.filters = PageFilters.of(filter, groups * sets, perPage, bitsPerObject);
    this.buffer = new BufferPages(sets, perPage);
    this.reinsert = reinsert;
    this.pending = new int[sets * perPage];
  }

  private static int checkedPages(Geometry geo, int groups) {
    if (groups < 2 || groups > geo.pages() / 2) {
      throw new IllegalArgumentException("groups must be in [2, pages / 2 = " + geo.pages() / 2 + "], was " + groups);
    }
    return (geo.pages() / groups) * groups;
  }

  int sets() {
    return sets;
  }

  @Override
  void forget(int key) {
    int l = loc[key];
    if (inBuffer(l)) {
      buffer.remove(-2 - l, key);
    }
  }

  @Override
  void place(int key) {
    int s = Keys.bucket(keys.hash(key), sets);
    if (buffer.isFull(s)) {
      flush();
    }
    buffer.add(s, key);
    loc[key] = bufferLoc(s);
  }

  private void flush() {
    int slot = head;
    int hotCount = used == groups ? evictGroup(slot) : 0;
    for (int s = 0; s < sets; s++) {
      writePage(slot * sets + s, buffer.keys, buffer.offset(s), buffer.count[s], filters);
      buffer.clear(s);
    }
    head = (head + 1) % groups;
    used = Math.min(groups, used + 1);
    for (int i = 0; i < hotCount; i++) {
      readmit(pending[i], buffer, Keys.bucket(keys.hash(pending[i]), sets));
    }
  }

  /** Evicts the group in {@code slot}; returns how many hot objects it left in {@link #pending}. */
  private int evictGroup(int slot) {
    int hotCount = 0;
    for (int s = 0; s < sets; s++) {
      hotCount = drainPage(slot * sets + s, reinsert, pending, hotCount);
    }
    return hotCount;
  }

  @Override
  int reads(int key) {
    if (inBuffer(loc[key])) {
      return 0;
    }
    long hash = keys.hash(key);
    int s = Keys.bucket(hash, sets);
    int reads = 0;
    for (int i = 1; i <= used; i++) {
      int page = Math.floorMod(head - i, groups) * sets + s;
      if (filters.mayContain(page, hash)) {
        reads++;
        if (loc[key] == page) {
          break;
        }
      }
    }
    return reads;
  }

  @Override
  Dram dram() {
    double filterBits = 0;
    for (int p = 0; p < groups * sets; p++) {
      filterBits += filters.bits(p);
    }
    double hotBits = reinsert ? residentOnFlash() : 0;
    return new Dram(filterBits, 0, hotBits, buffer.bits());
  }

  @Override
  String label() {
    return "nemo G=" + groups + " " + filters.name();
  }

  /** Filled pages of the last flushes: for tests. */
  int[] pageCounts() {
    return Arrays.copyOf(pageCount, pageCount.length);
  }
}
