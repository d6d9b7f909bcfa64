package io.hybridcache.bench.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class RollingRestartCommandTest {
  private static RollingRestartCommand.Run run(String provider, long reads, long stale, long missing) {
    return new RollingRestartCommand.Run(provider, 1, List.of(), List.of(), new long[0], new double[0], new long[0], reads, 0,
        stale, List.of(), missing, List.of());
  }

  @Test
  void aMissingRowFailsTheRunWithHybridcacheAsAStaleReadDoes() {
    assertEquals(List.of(), RollingRestartCommand.failures(List.of(run("hybrid", 100, 0, 0), run("ohc", 100, 0, 0))));
    assertEquals(List.of("hybrid #1: 2 reads found no row with hybridcache (lost partitions)"),
        RollingRestartCommand.failures(List.of(run("hybrid", 100, 0, 2))));
    assertEquals(List.of("hybrid #1: hybridcache served 1 stale reads"),
        RollingRestartCommand.failures(List.of(run("hybrid", 100, 1, 0))));
    // a peer's are reported, not failed; a run that read nothing fails whoever it was
    assertEquals(List.of("ohc-saved #1: the client read nothing"),
        RollingRestartCommand.failures(List.of(run("ohc", 100, 3, 4), run("ohc-saved", 0, 0, 0))));
  }

  /** A ring-watch poll that throws, an Error included, is counted and reported, not lost with its thread. */
  @Test
  void aFailedRingPollIsCountedAndReported() {
    RollingRestartCommand.PollFaults faults = new RollingRestartCommand.PollFaults();
    faults.failed(new RuntimeException("connection refused"));
    faults.failed(new AssertionError("an Error"));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    faults.report("node2", new PrintStream(out, true, StandardCharsets.UTF_8));
    assertEquals(2, faults.count());
    String line = out.toString(StandardCharsets.UTF_8);
    assertTrue(line.contains("node2: 2 JMX poll(s)") && line.contains("an Error"), line);
  }

  @Test
  void noLineWhenNoPollFailed() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new RollingRestartCommand.PollFaults().report("node2", new PrintStream(out, true, StandardCharsets.UTF_8));
    assertEquals("", out.toString(StandardCharsets.UTF_8));
  }
}
