package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.LifetimeClass;
import io.hybridcache.core.api.MapperKind;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class StreamMapperTest {
  static final long MIB = 1024 * 1024;

  @Test
  void hintsRunFromShortForTheHottestToExtremeForTheColdest() {
    assertEquals(WriteLifeHints.SHORT, WriteLifeHints.forStream(7, 8));
    assertEquals(WriteLifeHints.EXTREME, WriteLifeHints.forStream(0, 8));
    assertEquals(WriteLifeHints.MEDIUM, WriteLifeHints.forStream(5, 8));
    assertEquals(WriteLifeHints.LONG, WriteLifeHints.forStream(2, 8));
    assertEquals(WriteLifeHints.SHORT, WriteLifeHints.forStream(0, 1));
    assertThrows(IllegalArgumentException.class, () -> WriteLifeHints.forStream(8, 8));
  }

  @Test
  void staticGivesEveryClassItsOwnStreamUntilTheyRunOut() {
    StaticMapper m = new StaticMapper(8);
    assertEquals(7, m.open(LifetimeClass.FRESH.id(), 0));
    assertEquals(6, m.open(LifetimeClass.SURVIVOR.id(), 0));
    assertEquals(4, m.open(100, 0)); // first caller class: ordinal 3
    assertEquals(3, m.open(17, 0));
    assertEquals(4, m.open(100, 0), "stable");
    assertEquals(-1, m.streamOf(55));
    StaticMapper two = new StaticMapper(2);
    assertEquals(1, two.open(0, 0));
    assertEquals(0, two.open(1, 0));
    assertEquals(0, two.open(16, 0)); // ordinal 3 wraps
  }

  @Test
  void dsmPivotsGroupsAndPrediction() {
    // Fig. A.3: alpha = K gives equal groups; a larger alpha narrows the outer groups
    assertArrayEquals(new double[] {1, 2, 3}, DsmMapper.pivots(3, 0, 4, 4), 1e-12);
    assertArrayEquals(new double[] {1, 5, 9}, DsmMapper.pivots(3, 0, 10, 10), 1e-12);
    assertArrayEquals(new double[] {5}, DsmMapper.pivots(1, 0, 10, 2), 1e-12);
    // Fig. A.4: at or below the first pivot -> 0, at or above the last -> n, else between
    double[] p = {1, 2, 3};
    assertEquals(0, DsmMapper.group(0.5, p));
    assertEquals(0, DsmMapper.group(1, p));
    assertEquals(1, DsmMapper.group(1.5, p));
    assertEquals(2, DsmMapper.group(2.5, p));
    assertEquals(3, DsmMapper.group(3, p));
    // Fig. A.5: a confirmed prediction stays; a changed one takes the other region's stream
    int[] sid = {2, 0};
    DsmMapper.predict(sid, 2, 0);
    assertArrayEquals(new int[] {2, 0}, sid);
    DsmMapper.predict(sid, 0, 2); // the regions swapped hotness
    assertArrayEquals(new int[] {2, 0}, sid, "predicted to swap back");
    DsmMapper.predict(sid, 1, 1);
    assertArrayEquals(new int[] {1, 1}, sid);
  }

  @Test
  void dsmSeparatesHotFromColdClassesAtTheEpoch() {
    DsmMapper m = new DsmMapper(8, 4, 4);
    int hot = 16;
    int cold = 17;
    assertNotEquals(m.open(hot, 0), m.open(cold, 0), "initial streams are spread");
    for (int e = 1; e <= 3; e++) {
      m.epoch(new EpochSample(e, e * 64 * MIB, 64 * MIB, List.of(
          new EpochSample.ClassSample(hot, "hot", 40 * MIB, 30 * MIB, 20 * MIB, 32 * MIB, 64 * MIB),
          new EpochSample.ClassSample(cold, "cold", 4 * MIB, 10_000, 20_000, 8 * MIB, 200 * MIB),
          new EpochSample.ClassSample(1, "SURVIVOR", 8 * MIB, MIB, MIB, 16 * MIB, 64 * MIB))));
    }
    assertEquals(3, m.streamOf(hot), "the hottest group");
    assertEquals(0, m.streamOf(cold), "the coldest group");
    assertEquals(3, m.open(hot, 0));
    assertTrue(m.remaps() >= 1);
  }

  @Test
  void kmeansPlusPlusFindsSeparatedGroupsDeterministically() {
    double[] x = {0.01, 0.012, 0.011, 0.5, 0.52, 3.0, 3.1};
    double[] c = KMeans.cluster(x, 3, new SplittableRandom(1));
    assertEquals(3, c.length);
    assertEquals(0.011, c[0], 1e-9);
    assertEquals(0.51, c[1], 1e-9);
    assertEquals(3.05, c[2], 1e-9);
    assertArrayEquals(c, KMeans.cluster(x, 3, new SplittableRandom(1)));
    assertEquals(1, KMeans.cluster(new double[] {2, 2, 2}, 3, new SplittableRandom(1)).length,
        "no more clusters than distinct values");
  }

  @Test
  void fileStreamMapsNewClassesApartThenRemapsByInvalidationPerByte() {
    long t = 64 * MIB;
    FileStreamMapper m = new FileStreamMapper(8, t, 42);
    assertEquals(4, m.mapperStreams(), "half the streams before the divider has figures");
    int a = m.open(16, 0);
    m.written(16, 8 * MIB);
    int b = m.open(17, 8 * MIB);
    assertNotEquals(a, b, "a new class avoids the stream where another still writes");
    assertTrue(a < 4 && b < 4, "new classes use mapper streams");
    m.written(17, MIB);
    // after T both are established: the remapper clusters them by invalidations per byte
    for (int e = 1; e <= 2; e++) {
      m.epoch(new EpochSample(e, e * t, t, List.of(
          new EpochSample.ClassSample(16, "hot", 50 * MIB, 40 * MIB, 10 * MIB, 32 * MIB, 32 * MIB),
          new EpochSample.ClassSample(17, "cold", 5 * MIB, 0, 10_000, 8 * MIB, 120 * MIB))));
    }
    assertEquals(1, m.mapperStreams(), "no new classes: the remapper takes N - 1 streams");
    assertTrue(m.streamOf(16) > m.streamOf(17), "hotter class, higher stream: " + m.streamOf(16) + " vs " + m.streamOf(17));
    assertTrue(m.streamOf(17) >= 1);
    assertEquals(m.streamOf(16), m.open(16, 3 * t));
    // a class appearing now is new: mapper stream 0
    assertEquals(0, m.open(18, 3 * t));
  }

  @Test
  void fileStreamLifetimeDifference() {
    assertEquals(1, FileStreamMapper.dif(new long[] {10}, 1, new long[0], 0), 1e-12, "no history");
    assertEquals(0, FileStreamMapper.dif(new long[] {10, 10}, 2, new long[] {10}, 1), 1e-12);
    assertEquals(0.5, FileStreamMapper.dif(new long[] {10}, 1, new long[] {30}, 1), 1e-12);
  }

  @Test
  void hotnessIsLogScaledInvalidationDensityPerTime() {
    // 256 invalidated pages over a 1024-page region in a 1 MiB epoch: density 1/4 -> lg = -2
    assertEquals(-2, EpochSample.hotness(256 * 4096, 1024 * 4096, MIB), 1e-12);
    assertEquals(-3, EpochSample.hotness(256 * 4096, 1024 * 4096, 2 * MIB), 1e-12, "per unit of time");
    assertTrue(Double.isNaN(EpochSample.hotness(10, 0, MIB)));
    assertTrue(Double.isFinite(EpochSample.hotness(0, 4096, MIB)), "no invalidation: half a page");
  }

  @Test
  void kindsParse() {
    assertEquals(MapperKind.DSM, MapperKind.parse("f", " DSM "));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MapperKind.parse("f", "x"));
    assertTrue(e.getMessage().startsWith("f: "));
  }
}
