package io.hybridcache.bench.smalldesign;

import java.util.Arrays;

/**
 * Kangaroo (McAllister et al., SOSP 2021), today's small engine: a circular flash log of
 * {@code L x pages} pages in front of {@code S} set pages, a key's hash naming its set. Inserts fill a
 * one-page DRAM log buffer, written to the log's head when full. When the log reuses its oldest page, each
 * live object of that page moves to its set together with every other log object of that set if they are
 * at least {@code threshold} (one read-modify-write of the set page), else is readmitted to the log if it
 * was read while there, else dropped. A set rewrite keeps what fits by a CLOCK-like approximation of
 * RRIParoo (evicted first: old objects not read since written, then the incoming, then old read ones).
 *
 * <p>DRAM charged: a Bloom filter of b bits per set slot, the log index at {@code logIndexBits} per log
 * object (a model input: {@code SmallLogSteadyStateTest} measures about 26 for the engine's partitioned,
 * Rice-coded index; 8-bit tags, compared only within the key's set, each match a read), 40 bits of hit
 * bits and count per set (as the engine's 32 + 8), and the one-page log buffer.
 */
final class KangarooDesign extends Design {
  static final int TAG_BITS = 8;
  static final int SET_EVICTION_BITS = 40;
  private static final PageFilters NO_FILTER = new PageFilters() {
    @Override
    public void build(int page, long[] hashes, int off, int n) {}

    @Override
    public boolean mayContain(int page, long hash) {
      return true;
    }

    @Override
    public long bits(int page) {
      return 0;
    }

    @Override
    public String name() {
      return "none";
    }
  };

  private final int logPages;
  private final int sets;
  private final int threshold;
  private final double logIndexBits;
  private final double logShare;
  private final PageFilters filters;
  private final BufferPages buffer;
  private final int[][] setLog;
  private final int[] setLogCount;
  private int head;
  private int used;
  private final int[] pending;
  private int[] merged;

  KangarooDesign(Geometry geo, Keys keys, double logShare, int threshold, double bitsPerObject, double logIndexBits) {
    super(geo, keys, geo.pages());
    this.logPages = (int) Math.round(logShare * geo.pages());
    this.sets = geo.pages() - logPages;
    if (logPages < 2 || sets < 2) {
      throw new IllegalArgumentException("log share " + logShare + " leaves " + logPages + " log and " + sets
          + " set pages: need at least 2 of each");
    }
    if (threshold < 1) {
      throw new IllegalArgumentException("threshold must be >= 1, was " + threshold);
    }
    this.logShare = logShare;
    this.threshold = threshold;
    this.logIndexBits = logIndexBits;
    this.filters = new BloomPageFilters(geo.pages(), perPage, bitsPerObject);
    this.buffer = new BufferPages(1, perPage);
    this.setLog = new int[sets][];
    this.setLogCount = new int[sets];
    this.pending = new int[perPage];
    this.merged = new int[4 * perPage];
  }

  private int setOf(int key) {
    return Keys.bucket(keys.hash(key), sets);
  }

  private static int tag(long hash) {
    return (int) (Keys.remix(hash) >>> (64 - TAG_BITS));
  }

  @Override
  void forget(int key) {
    int l = loc[key];
    if (inBuffer(l)) {
      buffer.remove(0, key);
    } else if (l < logPages) {
      removeFromLogIndex(setOf(key), key);
    } // a set page's older version stays there, dead, until the set's next rewrite drops it
  }

  @Override
  void place(int key) {
    if (buffer.isFull(0)) {
      flushLogBuffer();
    }
    buffer.add(0, key);
    loc[key] = bufferLoc(0);
  }

  private void flushLogBuffer() {
    int page = head;
    int readmits = used == logPages ? reclaimLogPage(page) : 0;
    writePage(page, buffer.keys, 0, buffer.count[0], NO_FILTER);
    for (int i = 0; i < buffer.count[0]; i++) {
      int k = buffer.keys[i];
      addToLogIndex(setOf(k), k);
    }
    buffer.clear(0);
    head = (head + 1) % logPages;
    used = Math.min(logPages, used + 1);
    for (int i = 0; i < readmits; i++) {
      buffer.add(0, pending[i]);
      loc[pending[i]] = bufferLoc(0);
      counters.moved++;
    }
  }

  /** Moves, readmits or drops the live objects of log page {@code page}; returns the readmitted count. */
  private int reclaimLogPage(int page) {
    int readmits = 0;
    for (int i = 0; i < pageCount[page]; i++) {
      if (!isLive(page, i)) {
        continue; // superseded, or moved with its set meanwhile
      }
      int k = keyAt(page, i);
      int s = setOf(k);
      if (setLogCount[s] >= threshold) {
        moveToSet(s);
      } else {
        removeFromLogIndex(s, k);
        if (hot[k]) {
          hot[k] = false;
          pending[readmits++] = k;
          loc[k] = ABSENT;
        } else {
          evict(k);
        }
      }
    }
    pageCount[page] = 0;
    return readmits;
  }

  /** Rewrites set {@code s}'s page with its live objects and all its log objects, evicting what does not fit. */
  private void moveToSet(int s) {
    int page = logPages + s;
    if (merged.length < perPage + setLogCount[s]) {
      merged = new int[2 * (perPage + setLogCount[s])];
    }
    int n = 0;
    for (int pass = 0; pass < 3; pass++) { // eviction order: cold old, incoming, hot old
      if (pass == 1) {
        for (int i = 0; i < setLogCount[s]; i++) {
          merged[n++] = setLog[s][i];
          counters.moved++;
        }
        continue;
      }
      for (int i = 0; i < pageCount[page]; i++) {
        int k = keyAt(page, i);
        if (isLive(page, i) && hot[k] == (pass == 2)) {
          merged[n++] = k;
          hot[k] = false;
        }
      }
    }
    setLogCount[s] = 0;
    int drop = Math.max(0, n - perPage);
    for (int i = 0; i < drop; i++) {
      evict(merged[i]);
    }
    writePage(page, merged, drop, n - drop, filters);
  }

  private void addToLogIndex(int s, int key) {
    int[] a = setLog[s];
    if (a == null || setLogCount[s] == a.length) {
      setLog[s] = a = a == null ? new int[4] : Arrays.copyOf(a, 2 * a.length);
    }
    a[setLogCount[s]++] = key;
  }

  private void removeFromLogIndex(int s, int key) {
    int[] a = setLog[s];
    int n = setLogCount[s];
    for (int i = 0; i < n; i++) {
      if (a[i] == key) {
        System.arraycopy(a, i + 1, a, i, n - i - 1);
        setLogCount[s] = n - 1;
        return;
      }
    }
    throw new IllegalStateException("key " + key + " not in the log index of set " + s);
  }

  @Override
  int reads(int key) {
    if (inBuffer(loc[key])) {
      return 0;
    }
    long hash = keys.hash(key);
    int s = Keys.bucket(hash, sets);
    int t = tag(hash);
    int reads = 0;
    for (int i = setLogCount[s] - 1; i >= 0; i--) {
      int e = setLog[s][i];
      if (tag(keys.hash(e)) == t) {
        reads++;
        if (e == key) {
          return reads;
        }
      }
    }
    return filters.mayContain(logPages + s, hash) ? reads + 1 : reads;
  }

  @Override
  Dram dram() {
    long logObjects = 0;
    for (int c : setLogCount) {
      logObjects += c;
    }
    double filterBits = (double) sets * filters.bits(logPages);
    return new Dram(filterBits, logIndexBits * logObjects, (double) sets * SET_EVICTION_BITS, buffer.bits());
  }

  /** The live objects of its set pages: the log's swing with its lap would mask the sets' slow filling. */
  @Override
  long fillingObjects() {
    long n = 0;
    for (int l : loc) {
      if (l >= logPages) {
        n++;
      }
    }
    return n;
  }

  int threshold() {
    return threshold;
  }

  @Override
  String label() {
    return "kangaroo L=" + logShare + " T=" + threshold;
  }
}
