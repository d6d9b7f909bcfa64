package io.hybridcache.bench.smalldesign;

import java.util.Arrays;

/**
 * A simulated small-object flash tier: where every key's current version lives (the ground truth the
 * simulator keeps and a real engine would not), the pages' contents and the event counts; subclasses
 * decide placement, eviction and which filters a lookup asks in which order. No device, no time: a page
 * write and a page read are counted, nothing else.
 *
 * <p>A lookup's result (hit or miss) is the ground truth, since no filter gives a false negative; its
 * device reads are counted only when asked ({@link #reads}), by walking the places the design would try
 * newest first and counting every filter positive until the page that holds the key, or all of them.
 *
 * <p>Not thread-safe: one simulation runs on one thread.
 */
abstract class Design {
  static final int ABSENT = -1;

  final Geometry geo;
  final Keys keys;
  final int perPage;
  /** Per key: the flash page of its current version (>= 0), {@link #ABSENT}, or a DRAM buffer page (<= -2). */
  final int[] loc;
  /** Per key: read since it was last written (one bit a design charges as eviction state). */
  final boolean[] hot;
  /** Page p's keys are {@code pageKeys[p * perPage ..][..pageCount[p]]}; an entry is live iff loc[key] == p. */
  final int[] pageKeys;
  final int[] pageCount;
  final Counters counters = new Counters();
  private final long[] hashScratch;

  Design(Geometry geo, Keys keys, int pages) {
    this.geo = geo;
    this.keys = keys;
    this.perPage = geo.perPage();
    this.loc = new int[geo.universe()];
    Arrays.fill(loc, ABSENT);
    this.hot = new boolean[geo.universe()];
    this.pageKeys = new int[Math.multiplyExact(pages, perPage)];
    this.pageCount = new int[pages];
    this.hashScratch = new long[perPage];
  }

  static int bufferLoc(int bufferPage) {
    return -2 - bufferPage;
  }

  static boolean inBuffer(int location) {
    return location <= -2;
  }

  /** A new version of {@code key}: the older one (if any) is superseded. */
  final void insert(int key) {
    counters.inserted++;
    if (loc[key] != ABSENT) {
      counters.superseded++;
      forget(key);
      loc[key] = ABSENT;
    }
    hot[key] = false;
    place(key);
  }

  /** Drops the DRAM state of {@code key}'s current version, which a newer one replaces. */
  abstract void forget(int key);

  /** Places a new version of {@code key} (its loc is ABSENT). */
  abstract void place(int key);

  /** Device reads a lookup of {@code key} makes (0 for a key in a DRAM buffer). */
  abstract int reads(int key);

  abstract Dram dram();

  abstract String label();

  /** A lookup: true on a hit; a flash hit marks the key hot. */
  final boolean lookup(int key) {
    int l = loc[key];
    if (l >= 0) {
      hot[key] = true;
    }
    return l != ABSENT;
  }

  /** Writes {@code n} keys into flash page {@code page} (they become its live entries) and builds its filter. */
  final void writePage(int page, int[] src, int off, int n, PageFilters filters) {
    System.arraycopy(src, off, pageKeys, page * perPage, n);
    pageCount[page] = n;
    for (int i = 0; i < n; i++) {
      int k = src[off + i];
      loc[k] = page;
      hashScratch[i] = keys.hash(k);
    }
    filters.build(page, hashScratch, 0, n);
    counters.pageWrites++;
    counters.objectsInWrittenPages += n;
  }

  final boolean isLive(int page, int i) {
    return loc[pageKeys[page * perPage + i]] == page;
  }

  final int keyAt(int page, int i) {
    return pageKeys[page * perPage + i];
  }

  /** Current versions on flash (not in DRAM buffers): a scan of every key. */
  final long residentOnFlash() {
    long n = 0;
    for (int l : loc) {
      if (l >= 0) {
        n++;
      }
    }
    return n;
  }

  /**
   * The objects whose count settles at steady state and grows while the design still fills: here its
   * current versions on flash. {@link Simulation} compares it at both ends of the measured phase.
   */
  long fillingObjects() {
    return residentOnFlash();
  }

  /** Current versions anywhere (flash and DRAM buffers). */
  final long resident() {
    long n = 0;
    for (int l : loc) {
      if (l != ABSENT) {
        n++;
      }
    }
    return n;
  }

  /**
   * Empties flash page {@code page}: each live entry that is hot (and {@code keepHot}) is appended to
   * {@code pending} from {@code at} and made ABSENT for a re-insertion, every other one evicted. Returns the
   * new end of {@code pending}.
   */
  final int drainPage(int page, boolean keepHot, int[] pending, int at) {
    for (int i = 0; i < pageCount[page]; i++) {
      if (!isLive(page, i)) {
        continue;
      }
      int k = keyAt(page, i);
      if (keepHot && hot[k] && at < pending.length) {
        pending[at++] = k;
        loc[k] = ABSENT;
      } else {
        evict(k);
      }
    }
    pageCount[page] = 0;
    return at;
  }

  /** Re-inserts a drained hot {@code key} into DRAM buffer page {@code page} of {@code buffer}, or evicts it if full. */
  final void readmit(int key, BufferPages buffer, int page) {
    hot[key] = false;
    if (buffer.isFull(page)) {
      counters.evicted++; // no room: it leaves after all
      return;
    }
    buffer.add(page, key);
    loc[key] = bufferLoc(page);
    counters.moved++;
  }

  /** A live entry leaves the cache at eviction. */
  final void evict(int key) {
    loc[key] = ABSENT;
    hot[key] = false;
    counters.evicted++;
  }

  static int log2Ceil(long n) {
    return 64 - Long.numberOfLeadingZeros(Math.max(1, n - 1));
  }
}
