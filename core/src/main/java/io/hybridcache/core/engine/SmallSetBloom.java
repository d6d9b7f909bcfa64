package io.hybridcache.core.engine;

import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * One Bloom filter per set of the small-object engine, all in one int array: the only DRAM the engine
 * keeps to answer "could this set hold the key?" without a device read (CacheLib navy's BigHash
 * BloomFilter; Kangaroo, SOSP 2021). No per-object pointer: {@link #bitsPerSet} bits per 4 KiB set.
 *
 * <p><b>Concurrency.</b> Each set owns whole words ({@code bitsPerSet} is a multiple of 32), so words are
 * never shared between sets. Readers are lock-free (volatile reads). A set's words are written only by
 * the holder of that set's lock ({@code SmallSets}), and in an order that never gives a false negative
 * for a key on flash: {@link #add} the new keys before their page is written, then {@link #rebuild} from
 * the written page word by word; each new word is a subset of the word it replaces, so a reader that sees
 * any mix of old and new words still finds every key of the new page. A key that left the page may pass
 * until the rebuild: a false-positive read, never a wrong value (the page is checked).
 *
 * <p><b>Sizing.</b> With m bits per set, k hashes and n objects per set the expected false-positive rate
 * is (1 - e^(-kn/m))^k ({@link #expectedFalsePositiveRate}); bit positions come from one 64-bit remix of
 * the key hash by double hashing (Kirsch and Mitzenmacher, 2006), independent of the set choice.
 */
final class SmallSetBloom {
  private final AtomicIntegerArray words;
  private final int wordsPerSet;
  private final int bitsPerSet;
  private final int hashes;

  SmallSetBloom(int sets, int bitsPerSet, int hashes) {
    if (sets <= 0) {
      throw new IllegalArgumentException("sets must be > 0: " + sets);
    }
    if (bitsPerSet <= 0 || bitsPerSet % Integer.SIZE != 0) {
      throw new IllegalArgumentException("bloomBitsPerSet must be a positive multiple of 32: " + bitsPerSet);
    }
    if (hashes <= 0 || hashes > 16) {
      throw new IllegalArgumentException("bloomHashes must be 1..16: " + hashes);
    }
    this.wordsPerSet = bitsPerSet / Integer.SIZE;
    if ((long) sets * wordsPerSet > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("too many sets for one filter array: " + sets);
    }
    this.words = new AtomicIntegerArray(sets * wordsPerSet);
    this.bitsPerSet = bitsPerSet;
    this.hashes = hashes;
  }

  int bitsPerSet() {
    return bitsPerSet;
  }

  int hashes() {
    return hashes;
  }

  int sets() {
    return words.length() / wordsPerSet;
  }

  /** Writes every filter word (int count, ints), streamed (a checkpoint at close: no writer runs). */
  void writeTo(SmallCheckpoint.Out out) throws java.io.IOException {
    out.writeInt(words.length());
    for (int i = 0; i < words.length(); i++) {
      out.writeInt(words.get(i));
    }
  }

  /** A filter of this geometry holding the words {@link #writeTo} wrote (a warm open, before any reader). */
  static SmallSetBloom readFrom(SmallCheckpoint.In in, int sets, int bitsPerSet, int hashes)
      throws java.io.IOException {
    SmallSetBloom bloom = new SmallSetBloom(sets, bitsPerSet, hashes);
    int n = in.readInt();
    if (n != bloom.words.length()) {
      throw new java.io.IOException("filter words " + n + ", expected " + bloom.words.length());
    }
    for (int i = 0; i < n; i++) {
      bloom.words.setPlain(i, in.readInt()); // published with the region that adopts it
    }
    return bloom;
  }

  /** DRAM the filters take (the array's payload). */
  long bytes() {
    return (long) words.length() * Integer.BYTES;
  }

  boolean mightContain(int set, long keyHash) {
    long x = remix(keyHash);
    int h1 = (int) x;
    int h2 = (int) (x >>> 32) | 1;
    int base = set * wordsPerSet;
    for (int i = 0; i < hashes; i++) {
      int bit = Integer.remainderUnsigned(h1 + i * h2, bitsPerSet);
      if ((words.get(base + (bit >>> 5)) & (1 << bit)) == 0) {
        return false;
      }
    }
    return true;
  }

  /** Adds a key to the set's filter. Caller holds the set's lock. */
  void addLocked(int set, long keyHash) {
    int[] w = new int[wordsPerSet];
    set(w, keyHash);
    int base = set * wordsPerSet;
    for (int i = 0; i < wordsPerSet; i++) {
      if (w[i] != 0) {
        words.set(base + i, words.get(base + i) | w[i]);
      }
    }
  }

  /** Replaces the set's filter by one of exactly {@code keyHashes[0, count)}. Caller holds the set's lock. */
  void rebuildLocked(int set, long[] keyHashes, int count) {
    int[] w = new int[wordsPerSet];
    for (int i = 0; i < count; i++) {
      set(w, keyHashes[i]);
    }
    int base = set * wordsPerSet;
    for (int i = 0; i < wordsPerSet; i++) {
      words.set(base + i, w[i]);
    }
  }

  /** Empties the set's filter: every lookup in it misses. Caller holds the set's lock. */
  void clearLocked(int set) {
    rebuildLocked(set, new long[0], 0);
  }

  private void set(int[] w, long keyHash) {
    long x = remix(keyHash);
    int h1 = (int) x;
    int h2 = (int) (x >>> 32) | 1;
    for (int i = 0; i < hashes; i++) {
      int bit = Integer.remainderUnsigned(h1 + i * h2, bitsPerSet);
      w[bit >>> 5] |= 1 << bit;
    }
  }

  /** Murmur3's 64-bit finalizer over the key hash xor a constant: bits unrelated to the set index. */
  private static long remix(long h) {
    h ^= 0x9E3779B97F4A7C15L;
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    return h ^ (h >>> 33);
  }

  /** (1 - e^(-kn/m))^k: the expected false-positive rate of one filter holding {@code objects} keys. */
  static double expectedFalsePositiveRate(int bitsPerSet, int hashes, double objects) {
    return Math.pow(1 - Math.exp(-hashes * objects / bitsPerSet), hashes);
  }

  /** The k that minimises the false-positive rate for {@code objects} keys in {@code bitsPerSet} bits. */
  static int bestHashes(int bitsPerSet, double objects) {
    return Math.max(1, Math.min(16, (int) Math.round(bitsPerSet / Math.max(1, objects) * Math.log(2))));
  }
}
