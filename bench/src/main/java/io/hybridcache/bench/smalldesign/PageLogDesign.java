package io.hybridcache.bench.smalldesign;

import java.util.Arrays;

/**
 * The page log, this study's candidate (c): Nemo's never-rewritten pages without its whole-group flush.
 * A key's hash names one of {@code C = pages / G} classes; DRAM holds one open page per class, and a
 * class's page is written the moment it is full, to the head of one circular log of all pages (fill at
 * flush 100% for fixed-size objects: WA = 1 plus re-insertions). The log evicts its oldest page, whose hot
 * objects go back into their classes' open pages (dropped if that page is full). A class's pages are
 * linked newest to oldest (the DRAM index: one page pointer per page, in a real engine a per-class array of
 * page numbers); a lookup asks their filters in that order. Each class has about G pages on flash, so a
 * key can be in G places, as in Nemo with G groups, and the open pages are the same F / G of DRAM as
 * Nemo's buffered group.
 */
final class PageLogDesign extends Design {
  private final int classes;
  private final int groups;
  private final PageFilters filters;
  private final BufferPages open;
  private final boolean reinsert;
  private final int[] older;
  private final int[] newer;
  private final int[] classOf;
  private final int[] newest;
  private final int pages;
  private int head;
  private int used;
  private final int[] pending;

  PageLogDesign(Geometry geo, Keys keys, int groups, String filter, double bitsPerObject, boolean reinsert) {
    super(geo, keys, geo.pages());
    if (groups < 2 || groups > geo.pages() / 2) {
      throw new IllegalArgumentException("groups must be in [2, pages / 2 = " + geo.pages() / 2 + "], was " + groups);
    }
    this.groups = groups;
    this.pages = geo.pages();
    this.classes = pages / groups;
    this.filters = PageFilters.of(filter, pages, perPage, bitsPerObject);
    this.open = new BufferPages(classes, perPage);
    this.reinsert = reinsert;
    this.older = new int[pages];
    this.newer = new int[pages];
    this.classOf = new int[pages];
    this.newest = new int[classes];
    Arrays.fill(newest, -1);
    this.pending = new int[perPage];
  }

  @Override
  void forget(int key) {
    int l = loc[key];
    if (inBuffer(l)) {
      open.remove(-2 - l, key);
    }
  }

  @Override
  void place(int key) {
    int c = Keys.bucket(keys.hash(key), classes);
    if (open.isFull(c)) {
      writeOpenPage(c);
    }
    open.add(c, key);
    loc[key] = bufferLoc(c);
  }

  private void writeOpenPage(int c) {
    int page = head;
    int hotCount = used == pages ? evictPage(page) : 0;
    writePage(page, open.keys, open.offset(c), open.count[c], filters);
    open.clear(c);
    classOf[page] = c;
    older[page] = newest[c];
    newer[page] = -1;
    if (newest[c] >= 0) {
      newer[newest[c]] = page;
    }
    newest[c] = page;
    head = (head + 1) % pages;
    used = Math.min(pages, used + 1);
    for (int i = 0; i < hotCount; i++) {
      readmit(pending[i], open, Keys.bucket(keys.hash(pending[i]), classes));
    }
  }

  /** Evicts the oldest page (the head, about to be reused); returns how many hot objects it left in {@link #pending}. */
  private int evictPage(int page) {
    int c = classOf[page];
    if (newer[page] >= 0) {
      older[newer[page]] = -1;
    } else {
      newest[c] = -1;
    }
    return drainPage(page, reinsert, pending, 0);
  }

  @Override
  int reads(int key) {
    if (inBuffer(loc[key])) {
      return 0;
    }
    long hash = keys.hash(key);
    int reads = 0;
    for (int p = newest[Keys.bucket(hash, classes)]; p >= 0; p = older[p]) {
      if (filters.mayContain(p, hash)) {
        reads++;
        if (loc[key] == p) {
          break;
        }
      }
    }
    return reads;
  }

  @Override
  Dram dram() {
    double filterBits = 0;
    for (int p = 0; p < used; p++) {
      filterBits += filters.bits(p);
    }
    double pointerBits = (double) (used + classes) * log2Ceil(pages);
    double hotBits = reinsert ? residentOnFlash() : 0;
    return new Dram(filterBits, pointerBits, hotBits, open.bits());
  }

  @Override
  String label() {
    return "pagelog G=" + groups + " " + filters.name();
  }
}
