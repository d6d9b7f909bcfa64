package io.hybridcache.bench.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
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
    assertTrue(line.contains("node2: 2 JMX read(s)") && line.contains("an Error"), line);
  }

  @Test
  void noLineWhenNoPollFailed() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new RollingRestartCommand.PollFaults().report("node2", new PrintStream(out, true, StandardCharsets.UTF_8));
    assertEquals("", out.toString(StandardCharsets.UTF_8));
  }

  /** Review 20: a survivor that does not answer is a counted fault, and the time-out says none answered. */
  @Test
  void survivorsThatDoNotAnswerAreCountedAndTheTimeoutSaysSo() throws Exception {
    int[] closed = new int[3];
    for (int j = 0; j < 3; j++) {
      try (ServerSocket s = new ServerSocket(0)) {
        closed[j] = s.getLocalPort(); // nothing listens there once closed: the connection is refused
      }
    }
    RollingRestartCommand.PollFaults faults = new RollingRestartCommand.PollFaults();
    assertNull(RollingRestartCommand.observe(1, faults, j -> new NodeJmx("127.0.0.1", closed[j])));
    assertEquals(2, faults.count(), "both survivors' failed reads");
    String message = faults.timeout("roll2", 180);
    assertTrue(message.contains("no survivor answered over JMX (1 polls, 2 failed reads"), message);
  }

  @Test
  void theTimeoutSaysWhenTheSurvivorsAnsweredButNeverShowedTheNodeUpNormal() {
    RollingRestartCommand.PollFaults faults = new RollingRestartCommand.PollFaults();
    faults.polled(true);
    faults.polled(true);
    faults.failed(new RuntimeException("connection refused"));
    faults.polled(false);
    assertEquals("no survivor showed roll2 Up/Normal in a new incarnation within 180 s of its CQL port opening: a"
        + " survivor answered 2 of 3 polls, and none showed it Up/Normal in a new incarnation",
        faults.timeout("roll2", 180));
  }
}
