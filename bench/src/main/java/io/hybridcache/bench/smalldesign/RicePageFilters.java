package io.hybridcache.bench.smalldesign;

import java.util.Arrays;

/**
 * Per-page Golomb-Rice coded sets (Putze, Sanders and Singler, "Cache-, hash- and space-efficient Bloom
 * filters", 2007): a page of n keys keeps their fingerprints f = remix(hash) mod (n x 2^r), sorted, as
 * Rice-coded gaps (parameter r). A static filter suits pages that are never rewritten (Nemo's groups, the
 * page log): about r + 1.5 bits per key for a false-positive rate of about 2^-r per page, against Bloom's
 * 1.44 log2(1/fp). {@link #bits} is the exact coded size plus a 6-bit count per page. The simulator keeps
 * the fingerprints uncoded for speed; only their coded size is charged.
 */
final class RicePageFilters implements PageFilters {
  static final int COUNT_BITS = 6;
  private final int[] fingerprints;
  private final int[] counts;
  private final long[] range;
  private final int[] codedBits;
  private final int perPage;
  private final int riceBits;

  /** {@code bitsPerObject} - 2 is the Rice parameter r (at least 1): the coded size comes out near b - 0.5. */
  RicePageFilters(int pages, int perPage, double bitsPerObject) {
    this.riceBits = (int) Math.max(1, Math.round(bitsPerObject - 2));
    if (riceBits > 24) {
      throw new IllegalArgumentException("Rice bits per object must be at most 26, was " + bitsPerObject);
    }
    this.perPage = perPage;
    this.fingerprints = new int[Math.multiplyExact(pages, perPage)];
    this.counts = new int[pages];
    this.range = new long[pages];
    this.codedBits = new int[pages];
  }

  int riceBits() {
    return riceBits;
  }

  @Override
  public void build(int page, long[] keyHashes, int off, int n) {
    int base = page * perPage;
    long m = Math.max(1L, (long) n << riceBits);
    for (int i = 0; i < n; i++) {
      fingerprints[base + i] = fingerprint(keyHashes[off + i], m);
    }
    Arrays.sort(fingerprints, base, base + n);
    long coded = COUNT_BITS;
    int previous = 0;
    for (int i = 0; i < n; i++) {
      int gap = fingerprints[base + i] - previous;
      coded += (gap >>> riceBits) + 1 + riceBits;
      previous = fingerprints[base + i];
    }
    counts[page] = n;
    range[page] = m;
    codedBits[page] = (int) coded;
  }

  @Override
  public boolean mayContain(int page, long hash) {
    int n = counts[page];
    if (n == 0) {
      return false;
    }
    int base = page * perPage;
    return Arrays.binarySearch(fingerprints, base, base + n, fingerprint(hash, range[page])) >= 0;
  }

  private static int fingerprint(long hash, long m) {
    return (int) Long.remainderUnsigned(Keys.remix(hash), m);
  }

  @Override
  public long bits(int page) {
    return codedBits[page];
  }

  @Override
  public String name() {
    return "rice";
  }
}
