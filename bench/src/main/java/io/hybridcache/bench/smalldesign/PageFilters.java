package io.hybridcache.bench.smalldesign;

/**
 * One membership filter per flash page, built once from the page's keys when the page is written (pages
 * are immutable between writes in every design studied) and asked before a page read. No false negatives:
 * a lookup that finds a key's page filter negative never reads that page. Not thread-safe.
 */
interface PageFilters {
  /** Replaces page {@code page}'s filter with one of the {@code n} hashes {@code hashes[off..off+n)}. */
  void build(int page, long[] hashes, int off, int n);

  boolean mayContain(int page, long hash);

  /** DRAM bits the page's filter takes (allocated, or exactly coded). */
  long bits(int page);

  String name();

  /** Bloom filters of {@code bitsPerObject x perPage} bits, or Rice-coded fingerprints of about {@code bitsPerObject} each. */
  static PageFilters of(String kind, int pages, int perPage, double bitsPerObject) {
    return switch (kind) {
      case "bloom" -> new BloomPageFilters(pages, perPage, bitsPerObject);
      case "rice" -> new RicePageFilters(pages, perPage, bitsPerObject);
      default -> throw new IllegalArgumentException("filter must be bloom or rice, was " + kind);
    };
  }
}
