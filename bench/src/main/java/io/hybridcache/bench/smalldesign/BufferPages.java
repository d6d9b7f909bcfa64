package io.hybridcache.bench.smalldesign;

/**
 * Pages held in DRAM while they fill (Nemo's set-group buffer, the page log's open pages, Kangaroo's log
 * write buffer): {@code pages} arrays of up to {@code perPage} keys. A superseded key is removed in place
 * (a buffer is rewritten freely before it reaches flash). Not thread-safe.
 */
final class BufferPages {
  final int[] keys;
  final int[] count;
  private final int perPage;

  BufferPages(int pages, int perPage) {
    this.keys = new int[Math.multiplyExact(pages, perPage)];
    this.count = new int[pages];
    this.perPage = perPage;
  }

  int pages() {
    return count.length;
  }

  boolean isFull(int page) {
    return count[page] == perPage;
  }

  int offset(int page) {
    return page * perPage;
  }

  void add(int page, int key) {
    keys[page * perPage + count[page]++] = key;
  }

  void remove(int page, int key) {
    int base = page * perPage;
    int n = count[page];
    for (int i = 0; i < n; i++) {
      if (keys[base + i] == key) {
        keys[base + i] = keys[base + n - 1];
        count[page] = n - 1;
        return;
      }
    }
    throw new IllegalStateException("key " + key + " not in buffer page " + page);
  }

  void clear(int page) {
    count[page] = 0;
  }

  long objects() {
    long n = 0;
    for (int c : count) {
      n += c;
    }
    return n;
  }

  /** DRAM bits of the buffer: every page allocated in full. */
  long bits() {
    return (long) count.length * Geometry.PAGE_BYTES * 8;
  }
}
