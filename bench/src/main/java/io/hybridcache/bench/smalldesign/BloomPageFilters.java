package io.hybridcache.bench.smalldesign;

/**
 * Per-page Bloom filters in one {@code long[]}, sized for a full page: m = round(b x perPage) bits and
 * k = round(b ln 2) hashes, bit positions from k independent remixes of the key hash, each scaled to [0, m), like the engine's
 * SmallSetBloom (Kangaroo, SOSP 2021; Nemo's per-set filters). The
 * false-positive rate of a page of n keys is about (1 - e^{-kn/m})^k ({@link #expectedFalsePositiveRate}).
 */
final class BloomPageFilters implements PageFilters {
  private final long[] words;
  private final int wordsPerPage;
  private final int bits;
  private final int hashes;

  BloomPageFilters(int pages, int perPage, double bitsPerObject) {
    if (!(bitsPerObject > 0)) {
      throw new IllegalArgumentException("Bloom bits per object must be > 0, was " + bitsPerObject);
    }
    this.bits = Math.max(8, (int) Math.round(bitsPerObject * perPage));
    this.hashes = Math.max(1, (int) Math.round(bitsPerObject * Math.log(2)));
    this.wordsPerPage = (bits + 63) / 64;
    this.words = new long[Math.multiplyExact(pages, wordsPerPage)];
  }

  int hashes() {
    return hashes;
  }

  int bitsPerPage() {
    return bits;
  }

  static double expectedFalsePositiveRate(int bits, int hashes, int n) {
    return Math.pow(1 - Math.exp(-(double) hashes * n / bits), hashes);
  }

  @Override
  public void build(int page, long[] keyHashes, int off, int n) {
    int base = page * wordsPerPage;
    java.util.Arrays.fill(words, base, base + wordsPerPage, 0L);
    for (int i = off; i < off + n; i++) {
      for (int j = 0; j < hashes; j++) {
        int bit = position(keyHashes[i], j);
        words[base + (bit >>> 6)] |= 1L << bit;
      }
    }
  }

  @Override
  public boolean mayContain(int page, long hash) {
    int base = page * wordsPerPage;
    for (int j = 0; j < hashes; j++) {
      int bit = position(hash, j);
      if ((words[base + (bit >>> 6)] & (1L << bit)) == 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * The j-th bit of a key: an independent remix of (hash + j x golden ratio), its high 32 bits scaled to
   * [0, m). Double hashing ({@code (h1 + j h2) mod m}) measured 70% above the formula here: with m not
   * prime (310 = 2 x 5 x 31) steps sharing a factor with m repeat positions ({@code PageFiltersTest}).
   */
  private int position(long hash, int j) {
    return (int) (((Keys.remix(hash + j * 0x9E3779B97F4A7C15L) >>> 32) * bits) >>> 32);
  }

  @Override
  public long bits(int page) {
    return bits;
  }

  @Override
  public String name() {
    return "bloom";
  }
}
