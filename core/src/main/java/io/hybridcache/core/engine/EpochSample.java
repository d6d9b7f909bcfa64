package io.hybridcache.core.engine;

import java.util.List;

/**
 * What the hotness tracker saw in one epoch, per lifetime class. Immutable.
 *
 * @param epoch 1 for the first epoch of this open
 * @param clock device bytes written by the cache since open, at the end of the epoch
 * @param epochBytes device bytes written during the epoch (the epoch's length in time)
 * @param classes every class with segments on flash or writes in the epoch, by id
 */
record EpochSample(long epoch, long clock, long epochBytes, List<ClassSample> classes) {
  public EpochSample {
    classes = List.copyOf(classes);
  }

  /**
   * One class's figures. The class's segments form two groups, like DSM's two regions of a file:
   * young (active, or opened during this epoch) and old (the rest).
   *
   * @param writtenBytes device bytes written for the class during the epoch
   * @param invalidatedYoung bytes of young segments invalidated (updated, removed, expired) in the epoch
   * @param invalidatedOld the same for old segments
   * @param footprintYoung bytes written into the class's young segments still on flash
   * @param footprintOld the same for old segments
   */
  public record ClassSample(int classId, String name, long writtenBytes, long invalidatedYoung,
      long invalidatedOld, long footprintYoung, long footprintOld) {

    public long invalidated() {
      return invalidatedYoung + invalidatedOld;
    }

    public long footprint() {
      return footprintYoung + footprintOld;
    }

    /**
     * FileStream's unit-size modification in this cache: bytes invalidated per byte of the class on
     * flash during the epoch (0 for a class with nothing on flash).
     */
    public double invalidationPerByte() {
      long f = footprint();
      return f == 0 ? 0 : (double) invalidated() / f;
    }
  }

  /**
   * DSM's hotness of a region (Eq. 1-2): lg(density / t), density = invalidated 4 KiB pages per page of
   * the region, t = the epoch's length in MiB written. A region with no invalidation counts half a
   * page (lg 0 has no value); a region with no bytes is NaN (absent).
   */
  public static double hotness(long invalidatedBytes, long regionBytes, long epochBytes) {
    if (regionBytes <= 0) {
      return Double.NaN;
    }
    double pages = Math.max(0.5, invalidatedBytes / 4096.0);
    double density = pages / (regionBytes / 4096.0);
    double t = Math.max(1e-9, epochBytes / (1024.0 * 1024.0));
    return Math.log(density / t) / Math.log(2);
  }
}
