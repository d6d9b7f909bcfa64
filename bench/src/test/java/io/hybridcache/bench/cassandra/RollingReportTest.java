package io.hybridcache.bench.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
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
  void aRoundsReadFiguresComeFromTheWindowsThatBeginInIt() {
    // 10 s windows [0,10) [10,20) [20,30) [30,40); a round from 10 s to 31 s: windows 1-3 begin in it
    double[] p99 = {900, 2000, Double.NaN, 1500};
    long[] failed = {7, 5, 40, 3};
    assertEquals(48, RollingReport.failedReads(failed, 10, 31));
    assertEquals(2000, RollingReport.worstP99(p99, 10, 31), "a window without a returned read is skipped");
    assertEquals(1500, RollingReport.worstP99(p99, 12, 31), "window 1 began before the round: not its");
    assertTrue(Double.isNaN(RollingReport.worstP99(p99, 20, 29)), "no window with a returned read");
    assertEquals(0, RollingReport.failedReads(failed, 35, 99), "windows not begun yet are not there");
  }

  /**
   * Review 20: a read that failed in the 10 s window where one round ends and the next begins was counted in
   * both rounds' read_failures: the rounds' figures added up to more failures than there were.
   */
  @Test
  void aFailedReadIsCountedInOneRoundOnly() {
    long[] failedPerWindow = new long[10];
    failedPerWindow[5] = 7; // 7 reads failed between 50 s and 60 s
    double drainEnd = 55.3; // the drain round ends, the kill round starts at once (RollingRestartCommand)
    long drain = RollingReport.failedReads(failedPerWindow, 0, drainEnd);
    long kill = RollingReport.failedReads(failedPerWindow, drainEnd, 100);
    assertEquals(7, drain + kill, "drain round " + drain + " + kill round " + kill + " failed reads, of 7");
  }

  /**
   * Review 20: the run's windows are taken when its last round ends; the window that end falls in was left out,
   * and the reads that failed in the last seconds of the last round with it.
   */
  @Test
  void theLastRoundsLastSecondsAreCounted() {
    AtomicLong nanos = new AtomicLong();
    RollingClient client = new RollingClient(null, 1000, 1, 600, new PrintStream(OutputStream.nullOutputStream()),
        nanos::get);
    nanos.set(25_000_000_000L);
    client.readFailed(); // 25 s: a read fails in the round's last seconds
    nanos.set(27_000_000_000L); // 27 s: the round ends, the Run is built (RollingRestartCommand.runCluster)
    double end = client.secondsSinceStart();
    assertEquals(1, RollingReport.failedReads(client.failedReadsPerWindow(), 0, end),
        "failed reads of the round [0, " + end + ") s");
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
