package io.hybridcache.bench.cassandra;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The checker's and the figures' accounting of one read at a time, through {@link RollingClient#readReturned}. */
class RollingClientTest {
  private final AtomicLong nanos = new AtomicLong();
  private final RollingClient client = new RollingClient(null, 1000, 1, 600, new PrintStream(OutputStream.nullOutputStream()),
      nanos::get);

  @Test
  void aReadThatFindsNoRowIsMissingNotStale() {
    client.readReturned(7, 0, false, -1, 500); // the partition is gone: no row at all
    client.readReturned(8, 3, true, 2, 500); // a row older than the floor: stale
    client.readReturned(9, 3, true, 3, 500); // current
    assertEquals(1, client.staleReads(), "only the row older than its floor is stale");
    assertEquals(1, client.missingReads());
    assertEquals(List.of(new RollingClient.MissingRead("user7", 0, 0)), client.firstMissingReads());
    assertEquals(List.of(new RollingClient.StaleRead("user8", 3, 2, 0)), client.firstStaleReads());
    assertEquals(3, client.reads(), "a missing row is still a read that returned");
  }

  @Test
  void failedReadsAreCountedInTheirWindowBesideTheP99() {
    for (int i = 0; i < 100; i++) {
      client.readReturned(i, 0, true, 0, 1000);
    }
    nanos.set(10_500_000_000L); // the second window: two fast reads, and 50 that failed (unavailable: fast too)
    client.readReturned(1, 0, true, 0, 800);
    client.readReturned(2, 0, true, 0, 800);
    for (int i = 0; i < 50; i++) {
      client.readFailed();
    }
    nanos.set(20_000_000_000L);
    assertArrayEquals(new long[] {0, 50}, client.failedReadsPerWindow());
    // the p99 is the successful reads' (a failure has no latency to report): the count beside it says it
    assertEquals(800, client.readP99PerWindow()[1], 800 * 0.01);
    assertEquals(102, client.reads(), "a failed read is not a read that returned");
  }

  @Test
  void theWindowNowIsInIsReportedUpToNow() {
    nanos.set(23_000_000_000L);
    client.readFailed();
    client.readReturned(1, 0, true, 0, 700);
    assertArrayEquals(new long[] {0, 0, 1}, client.failedReadsPerWindow(), "window 2, [20, 30) s, up to 23 s");
    assertEquals(700, client.readP99PerWindow()[2], 700 * 0.01);
    nanos.set(0);
    assertEquals(0, client.failedReadsPerWindow().length, "no window begun before the start");
  }

  @Test
  void aRoundStartsOnAWindowsStart() {
    assertEquals(30, RollingClient.windowStartFrom(23.4));
    assertEquals(20, RollingClient.windowStartFrom(20), "on a window's start: that one");
    assertEquals(0, RollingClient.windowStartFrom(0));
  }
}
