package io.hybridcache.core.engine;

import io.hybridcache.core.engine.SmallSetPage.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Keys and values for the small-object engine's tests: 24 B keys, values of a chosen size. */
final class SmallTestKeys {
  static final int KEY_BYTES = 24;
  /**
   * Objects of a 24 B key and a 100 B value one page holds: 31 (128-130 B each at sequences below 2^21,
   * {@link SmallSetPage}'s format 2; 27 at format 1's 148 B).
   */
  static final int PER_PAGE_100 = SmallSetPage.CAPACITY_BYTES / (KEY_BYTES + 100 + SmallSetPage.headerBytes(
      KEY_BYTES, 100, (1L << 21) - 1, 0));

  private SmallTestKeys() {}

  /** A 24-byte key, distinct per {@code i} and {@code space}. */
  static byte[] key(String space, int i) {
    String digits = Integer.toString(i);
    String s = space + "-" + "0".repeat(Math.max(0, KEY_BYTES - space.length() - 1 - digits.length())) + digits;
    if (s.length() != KEY_BYTES) {
      throw new IllegalArgumentException("space too long: " + space);
    }
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  static byte[] key(int i) {
    return key("k", i);
  }

  /** {@code bytes} bytes naming the key number and version, so a wrong version is visible. */
  static byte[] value(int i, int version, int bytes) {
    byte[] v = new byte[bytes];
    byte[] tag = ("v" + version + "/" + i + "/").getBytes(StandardCharsets.US_ASCII);
    for (int p = 0; p < bytes; p++) {
      v[p] = tag[p % tag.length];
    }
    return v;
  }

  static Entry entry(int i, int version, int valueBytes, long sequence) {
    return Entry.of(key(i), value(i, version, valueBytes), sequence, 0);
  }

  /** The first {@code count} key numbers from {@code from} whose keys fall in set {@code set} of {@code sets}. */
  static List<Integer> keysInSet(SmallSets sets, int set, int from, int count) {
    List<Integer> out = new ArrayList<>();
    for (int i = from; out.size() < count; i++) {
      if (sets.setOf(KeyHash.of(key(i))) == set) {
        out.add(i);
      }
    }
    return out;
  }
}
