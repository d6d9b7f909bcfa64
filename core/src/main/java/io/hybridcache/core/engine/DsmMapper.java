package io.hybridcache.core.engine;

import io.hybridcache.core.api.MapperKind;
import java.util.HashMap;
import java.util.Map;

/**
 * Dynamic stream mapping (seed: DSM, Nguyen and Lee, JISE 2019): classify regions into K groups by
 * hotness and give each group a stream, re-mapped at every epoch. Not thread-safe: under the segment writer's lock.
 *
 * <p>Here a "file" of the paper is a lifetime class and its two regions are the class's young
 * segments (active, or opened during the epoch) and its old ones ({@link EpochSample.ClassSample}).
 * At each epoch: (1) hotness of both regions of every class, lg(invalidated pages per page per MiB
 * written) (Eq. 1-2, {@link EpochSample#hotness}); (2) K - 1 pivot points between the smallest and
 * largest hotness of all regions, the outer groups weighted by alpha (Eq. 3, Fig. A.3); (3) each region
 * to the group whose pivots bracket it (Eq. 4, Fig. A.4); (4) the prediction rule (Eq. 5, Fig. A.5):
 * a region keeps its predicted stream if this epoch's group confirms it, otherwise it takes the other
 * region's group. New segments of a class take the young region's prediction.
 *
 * <p>Stream = group: 0 coldest .. K-1 hottest. Before a class's first epoch it gets an initial stream
 * spread like {@link StaticMapper}'s. The paper's primary-index filter (a file with few writes gets its
 * own stream) has no counterpart: every class is mapped by hotness.
 */
final class DsmMapper implements StreamMapper {
  private final int groups;
  private final int alpha;
  private final StaticMapper initial;
  /** class id -> {predicted stream of the young region, of the old region}; -1 = none yet. */
  private final Map<Integer, int[]> predicted = new HashMap<>();
  private volatile long remaps; // written by the writer thread, read by stats on any thread

  DsmMapper(int streams, int groups, int alpha) {
    if (streams < 1 || alpha < 2 || groups < 1) {
      throw new IllegalArgumentException("DSM needs streams >= 1, groups >= 1, alpha >= 2: " + streams + ", "
          + groups + ", " + alpha);
    }
    this.groups = Math.min(groups, streams);
    this.alpha = alpha;
    this.initial = new StaticMapper(this.groups);
  }

  @Override
  public MapperKind kind() {
    return MapperKind.DSM;
  }

  @Override
  public int streams() {
    return groups;
  }

  @Override
  public int open(int classId, long clock) {
    int[] p = predicted.get(classId);
    return p != null && p[0] >= 0 ? p[0] : initial.open(classId, clock);
  }

  @Override
  public int streamOf(int classId) {
    int[] p = predicted.get(classId);
    return p != null && p[0] >= 0 ? p[0] : initial.streamOf(classId);
  }

  @Override
  public long remaps() {
    return remaps;
  }

  @Override
  public void epoch(EpochSample sample) {
    if (groups == 1) {
      return;
    }
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    int n = sample.classes().size();
    double[] young = new double[n];
    double[] old = new double[n];
    for (int i = 0; i < n; i++) {
      EpochSample.ClassSample c = sample.classes().get(i);
      young[i] = EpochSample.hotness(c.invalidatedYoung(), c.footprintYoung(), sample.epochBytes());
      old[i] = EpochSample.hotness(c.invalidatedOld(), c.footprintOld(), sample.epochBytes());
      for (double h : new double[] {young[i], old[i]}) {
        if (!Double.isNaN(h)) {
          min = Math.min(min, h);
          max = Math.max(max, h);
        }
      }
    }
    if (min > max) {
      return; // nothing on flash yet
    }
    double[] pivots = pivots(groups - 1, min, max, alpha);
    boolean changed = false;
    for (int i = 0; i < n; i++) {
      int classId = sample.classes().get(i).classId();
      if (Double.isNaN(young[i]) && Double.isNaN(old[i])) {
        continue;
      }
      int cur1 = group(Double.isNaN(young[i]) ? old[i] : young[i], pivots);
      int cur2 = group(Double.isNaN(old[i]) ? young[i] : old[i], pivots);
      int[] p = predicted.computeIfAbsent(classId, id -> new int[] {-1, -1});
      int before = streamOf(classId);
      predict(p, cur1, cur2);
      changed |= p[0] != before;
    }
    if (changed) {
      remaps++;
    }
  }

  /**
   * Fig. A.3: {@code n} pivot points in [min, max]; the first and last at 1/alpha and (alpha-1)/alpha
   * of the range, the others evenly between them (alpha = n + 1 makes all groups equally wide).
   */
  static double[] pivots(int n, double min, double max, int alpha) {
    double[] p = new double[n];
    p[0] = min + (max - min) / alpha;
    p[n - 1] = min + (max - min) * (alpha - 1) / alpha;
    if (n > 2) {
      double step = (p[n - 1] - p[0]) / (n - 1);
      for (int i = 1; i < n - 1; i++) {
        p[i] = p[0] + step * i;
      }
    }
    return p;
  }

  /** Fig. A.4 with initsid 0: the group (0 coldest .. n hottest) whose pivots bracket {@code hotness}. */
  static int group(double hotness, double[] pivots) {
    int n = pivots.length;
    if (hotness <= pivots[0]) {
      return 0;
    }
    if (pivots[n - 1] <= hotness) {
      return n;
    }
    for (int j = 0; j < n - 1; j++) {
      if (pivots[j] <= hotness && hotness <= pivots[j + 1]) {
        return j + 1;
      }
    }
    return n; // unreachable for finite hotness
  }

  /** Fig. A.5: keep a prediction the current group confirms, else take the other region's group. */
  static void predict(int[] sid, int cur1, int cur2) {
    sid[0] = sid[0] == cur1 ? cur1 : cur2;
    sid[1] = sid[1] == cur2 ? cur2 : cur1;
  }
}
