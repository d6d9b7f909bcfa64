package io.hybridcache.bench.smalldesign;

/**
 * Sizes of one simulated small-object flash tier: 4 KiB pages with a 32 B page header (the engine's
 * SmallSetPage), objects of {@code keyBytes + valueBytes} with {@code headerBytes} of per-object flash
 * overhead, and enough pages that {@code objects} fill {@code fill} of the slots.
 *
 * @param objects the flash objects the tier is sized for (N)
 * @param universe keys the workload draws from
 * @param perPage objects one page holds
 * @param pages flash pages of the tier
 * @param objectBytes key + value: the denominator of write amplification
 */
record Geometry(int objects, int universe, int perPage, int pages, int objectBytes) {
  static final int PAGE_BYTES = 4096;
  static final int PAGE_HEADER_BYTES = 32;

  static Geometry of(int objects, double universeFactor, int keyBytes, int valueBytes, int headerBytes, double fill) {
    int perPage = (PAGE_BYTES - PAGE_HEADER_BYTES) / (keyBytes + valueBytes + headerBytes);
    if (perPage < 2) {
      throw new IllegalArgumentException("fewer than 2 objects of " + (keyBytes + valueBytes + headerBytes)
          + " B fit a 4 KiB page");
    }
    int pages = (int) Math.ceil(objects / (perPage * fill));
    long universe = Math.round(objects * universeFactor);
    if (universe > Integer.MAX_VALUE - 8 || universe < objects) {
      throw new IllegalArgumentException("universe of " + universe + " keys: must be in [objects, 2^31)");
    }
    return new Geometry(objects, (int) universe, perPage, pages, keyBytes + valueBytes);
  }

  long flashBytes() {
    return (long) pages * PAGE_BYTES;
  }
}
