package io.hybridcache.bench.cassandra;

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
}
