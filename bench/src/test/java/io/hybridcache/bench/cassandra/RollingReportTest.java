package io.hybridcache.bench.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class RollingReportTest {
  private static RollingReport.Sample s(double t, double hits, double requests) {
    return new RollingReport.Sample(t, hits, requests, (long) (t * 10));
  }

  @Test
  void lostOperationsAreTheShortfallBelowTheSteadyRateOnly() {
    long[] ops = {100, 100, 40, 0, 100, 150, 100};
    double steady = RollingReport.steady(ops, 0, 2);
    assertEquals(100, steady);
    // 60 + 100 short in seconds 2 and 3; the 150 above it does not pay them back
    assertEquals(160, RollingReport.lost(ops, steady, 2, 7));
    assertTrue(Double.isNaN(RollingReport.steady(ops, 5, 5)));
  }

  @Test
  void hitRatioIsTheCounterDifferenceInsideTheInterval() {
    List<RollingReport.Sample> samples = List.of(s(0, 0, 0), s(2, 50, 100), s(4, 140, 200),
        s(6, Double.NaN, Double.NaN));
    assertEquals(0.7, RollingReport.hitRatio(samples, 0, 6), 1e-9);
    assertEquals(0.9, RollingReport.hitRatio(samples, 2, 4), 1e-9);
    assertTrue(Double.isNaN(RollingReport.hitRatio(samples, 5, 6)), "no two valid samples");
  }

  @Test
  void recoveryNeedsTwoIntervalsInARowWithinFivePointsAfterTheNodeServes() {
    double before = 0.80;
    List<RollingReport.Sample> samples = List.of(
        s(9, 0, 0), // before "up": ignored
        s(10, 0, 0),
        s(12, 20, 100), // 0.20
        s(14, 96, 200), // 0.76: within 5 points of 0.80
        s(16, 126, 300), // 0.30: not two in a row
        s(18, 202, 400), // 0.76
        s(20, 280, 500)); // 0.78: the second in a row
    assertEquals(8, RollingReport.recoverySeconds(samples, 10, 30, before), 1e-9);
    assertTrue(Double.isNaN(RollingReport.recoverySeconds(samples, 10, 17, before)), "not back before 'until'");
    assertTrue(Double.isNaN(RollingReport.recoverySeconds(samples, 10, 30, Double.NaN)));
  }

  @Test
  void diskReadsPerSecondComeFromTheDiskCounter() {
    List<RollingReport.Sample> samples = List.of(s(0, 0, 0), s(10, 0, 0), s(20, 0, 0));
    assertEquals(10, RollingReport.diskReadsPerSecond(samples, 0, 20), 1e-9);
  }

  @Test
  void aDiskCounterThatCouldNotBeReadIsSkippedNotTakenAsZero() {
    // the sampler stores -1 when the disk's stat file cannot be read
    List<RollingReport.Sample> samples = List.of(new RollingReport.Sample(0, 0, 0, -1),
        new RollingReport.Sample(2, 0, 0, 1000), new RollingReport.Sample(4, 0, 0, 1100),
        new RollingReport.Sample(6, 0, 0, -1));
    assertEquals(50, RollingReport.diskReadsPerSecond(samples, 0, 6), 1e-9);
  }

  @Test
  void requestsPerSecondShowWhetherTheNodeIsReadAtAll() {
    // a hit ratio over 47 requests in 30 s is not the node's hit ratio under load: the rate says so
    List<RollingReport.Sample> samples = List.of(s(0, 0, 0), s(2, 1, 10), s(30, 3, 47),
        new RollingReport.Sample(32, Double.NaN, Double.NaN, 0));
    assertEquals(47 / 30.0, RollingReport.requestsPerSecond(samples, 0, 32), 1e-9);
    assertTrue(Double.isNaN(RollingReport.requestsPerSecond(samples, 31, 32)), "no two valid samples");
  }

  @Test
  void aRoundsReadFiguresComeFromEveryWindowItTouches() {
    // 10 s windows [0,10) [10,20) [20,30) [30,40); a round from 12 s to 31 s touches windows 1-3
    double[] p99 = {900, 2000, Double.NaN, 1500};
    long[] failed = {7, 0, 40, 3};
    assertEquals(43, RollingReport.failedReads(failed, 12, 31));
    assertEquals(2000, RollingReport.worstP99(p99, 12, 31), "a window without a returned read is skipped");
    assertTrue(Double.isNaN(RollingReport.worstP99(p99, 20, 29)), "no window with a returned read");
    assertEquals(3, RollingReport.failedReads(failed, 35, 99), "windows not complete yet are not there");
  }

  @Test
  void aFieldCarriesItsVersionAndAllFieldsHaveTheirSize() {
    String f0 = RollingClient.field(42, 0, 17);
    assertEquals(RollingClient.FIELD_BYTES, f0.length());
    assertEquals(17, RollingClient.version(f0));
    assertEquals(RollingClient.FIELD_BYTES, RollingClient.field(42, 3, 17).length());
    assertEquals(RollingClient.field(42, 3, 0), RollingClient.field(42, 3, 9), "only field0 changes with a version");
    assertEquals(-1, RollingClient.version("garbage"));
    assertEquals(-1, RollingClient.version(null));
  }
}
