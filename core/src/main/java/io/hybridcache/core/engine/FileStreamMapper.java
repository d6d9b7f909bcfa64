package io.hybridcache.core.engine;

import io.hybridcache.core.api.MapperKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * FileStream (seed: Zhang, Xue and Zhou, HotStorage'21): a mapper for new units, a k-means++ remapper
 * for established ones, and a divider that splits the streams between them. Not thread-safe: writer
 * thread. Here a unit ("file") is a lifetime class, and T is the epoch.
 *
 * <p><b>Mapper</b> (streams 0..d-1): a class seen for less than T is new. Each new segment of a new
 * class {@code o} goes to the mapper stream with the lowest score(s) = sum over the other new classes
 * {@code i} in s of amount(i) * dif(i, o) (Eq. 1-3): amount = i's write rate times the time it still has
 * before the remapper takes it (T - its age), dif = the mean normalized difference
 * |l_a - l_b| / (l_a + l_b) between the lifetimes (open to reclaim) of reclaimed segments of the two
 * classes, 1 without history. An empty stream scores 0.
 *
 * <p><b>Remapper</b> (streams d..N-1): at every epoch, established classes are clustered by their
 * invalidations per byte (the paper's USM: modifications per byte of the file) with 1-D k-means++
 * into k = N - d clusters; centers sorted ascending, cluster j gets stream d + j (hotter = higher).
 * If k is unchanged and every class is still nearest its previous center, only the centers move (no
 * re-clustering); a class remapped for the first time joins the nearest center.
 *
 * <p><b>Divider</b> (Eq. 4): d = round(N * (FN_m / (FN_m + FN_r) + MN_m / (MN_m + MN_r)) / 2), clamped to
 * [1, N-1], FN = classes, MN = bytes written in the epoch by each side.
 */
final class FileStreamMapper implements StreamMapper {
  static final int LIFETIME_HISTORY = 16;

  private final int streams;
  private final long t;
  private final SplittableRandom random;
  private final Map<Integer, Unit> units = new HashMap<>();
  private int d;
  private double[] centers = new double[0];
  private volatile long remaps; // written under the segment writer's lock, read by stats on any thread

  /** One class's state. */
  private static final class Unit {
    final int classId;
    final long firstSeen;
    long written;
    boolean established;
    int stream = -1;
    double usm;
    int cluster = -1;
    final long[] lifetimes = new long[LIFETIME_HISTORY];
    int lifetimeCount;

    Unit(int classId, long firstSeen) {
      this.classId = classId;
      this.firstSeen = firstSeen;
    }
  }

  FileStreamMapper(int streams, long epochBytes, long seed) {
    if (streams < 1 || epochBytes < 1) {
      throw new IllegalArgumentException("FileStream needs streams >= 1 and an epoch: " + streams + ", " + epochBytes);
    }
    this.streams = streams;
    this.t = epochBytes;
    this.random = new SplittableRandom(seed);
    this.d = streams == 1 ? 1 : Math.max(1, streams / 2);
  }

  @Override
  public MapperKind kind() {
    return MapperKind.FILESTREAM;
  }

  @Override
  public int streams() {
    return streams;
  }

  /** Streams the mapper owns now (the rest belong to the remapper). */
  int mapperStreams() {
    return d;
  }

  @Override
  public int open(int classId, long clock) {
    Unit u = units.computeIfAbsent(classId, id -> new Unit(id, clock));
    if (streams == 1) {
      u.stream = 0;
    } else if (!u.established) {
      u.stream = map(u, clock);
    }
    return u.stream;
  }

  @Override
  public int streamOf(int classId) {
    Unit u = units.get(classId);
    return u == null ? -1 : u.stream;
  }

  @Override
  public long remaps() {
    return remaps;
  }

  @Override
  public void written(int classId, long bytes) {
    Unit u = units.get(classId);
    if (u != null) {
      u.written += bytes;
    }
  }

  @Override
  public void reclaimed(int classId, long openedAt, long clock) {
    Unit u = units.get(classId);
    if (u != null) {
      u.lifetimes[u.lifetimeCount++ % LIFETIME_HISTORY] = Math.max(1, clock - openedAt);
    }
  }

  private int map(Unit o, long clock) {
    double[] score = new double[d];
    for (Unit i : units.values()) {
      if (i == o || i.established || i.stream < 0 || i.stream >= d) {
        continue;
      }
      long age = Math.max(1, clock - i.firstSeen);
      double rate = (double) i.written / age;
      double amount = rate * Math.max(0, t - age);
      score[i.stream] += amount * dif(i, o);
    }
    int best = 0;
    for (int s = 1; s < d; s++) {
      if (score[s] < score[best]) {
        best = s;
      }
    }
    return best;
  }

  /** Eq. 2: mean normalized lifetime difference of the two classes' reclaimed segments; 1 without history. */
  static double dif(long[] a, int na, long[] b, int nb) {
    if (na == 0 || nb == 0) {
      return 1;
    }
    double sum = 0;
    for (int i = 0; i < na; i++) {
      for (int j = 0; j < nb; j++) {
        sum += (double) Math.abs(a[i] - b[j]) / (a[i] + b[j]);
      }
    }
    return sum / ((double) na * nb);
  }

  private static double dif(Unit x, Unit y) {
    return dif(x.lifetimes, Math.min(x.lifetimeCount, LIFETIME_HISTORY), y.lifetimes,
        Math.min(y.lifetimeCount, LIFETIME_HISTORY));
  }

  @Override
  public void epoch(EpochSample sample) {
    if (streams == 1) {
      return;
    }
    long fnM = 0;
    long fnR = 0;
    long mnM = 0;
    long mnR = 0;
    for (EpochSample.ClassSample c : sample.classes()) {
      Unit u = units.computeIfAbsent(c.classId(), id -> new Unit(id, sample.clock()));
      u.usm = c.invalidationPerByte();
      if (!u.established && sample.clock() - u.firstSeen >= t) {
        u.established = true;
      }
      if (u.established) {
        fnR++;
        mnR += c.writtenBytes();
      } else {
        fnM++;
        mnM += c.writtenBytes();
      }
    }
    // divider
    double pm = (share(fnM, fnR) + share(mnM, mnR)) / 2;
    d = (int) Math.min(streams - 1, Math.max(1, Math.floor(streams * pm + 0.5)));
    // remapper
    List<Unit> established = new ArrayList<>();
    for (Unit u : units.values()) {
      if (u.established) {
        established.add(u);
      }
    }
    established.sort((a, b) -> Integer.compare(a.classId, b.classId));
    if (established.isEmpty()) {
      return;
    }
    int k = streams - d;
    boolean stable = centers.length == Math.min(k, distinct(established));
    for (Unit u : established) {
      // a class remapped for the first time (cluster -1) just joins the nearest center
      stable &= u.cluster < 0 || (u.cluster < centers.length && KMeans.nearest(centers, u.usm) == u.cluster);
    }
    if (stable) {
      updateCenters(established);
    } else {
      double[] x = new double[established.size()];
      for (int i = 0; i < x.length; i++) {
        x[i] = established.get(i).usm;
      }
      centers = KMeans.cluster(x, k, random);
    }
    boolean changed = false;
    for (Unit u : established) {
      u.cluster = KMeans.nearest(centers, u.usm);
      int s = d + u.cluster;
      changed |= s != u.stream;
      u.stream = s;
    }
    if (changed) {
      remaps++;
    }
  }

  private void updateCenters(List<Unit> established) {
    double[] sum = new double[centers.length];
    int[] n = new int[centers.length];
    for (Unit u : established) {
      if (u.cluster < 0) {
        continue;
      }
      sum[u.cluster] += u.usm;
      n[u.cluster]++;
    }
    for (int c = 0; c < centers.length; c++) {
      if (n[c] > 0) {
        centers[c] = sum[c] / n[c];
      }
    }
    java.util.Arrays.sort(centers);
  }

  private static long distinct(List<Unit> units) {
    return units.stream().mapToDouble(u -> u.usm).distinct().count();
  }

  private static double share(long a, long b) {
    return a + b == 0 ? 0 : (double) a / (a + b);
  }
}
