package io.hybridcache.bench.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Progress lines: the clock format, the estimate before any run is done, and the phase line. */
class ProgressTest {
  @Test
  void beforeAnyRunTheEstimateIsRunsTimesTheExpectedLength() {
    Progress p = new Progress(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), 6, 400);
    double left = p.secondsLeft();
    assertTrue(left <= 2400 && left > 2390, "6 runs x 400 s, less the few ms of this run: " + left);
  }

  @Test
  void thePhaseLineNamesTheRunThePhaseAndTheTimes() {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    Progress p = new Progress(new PrintStream(b, true, StandardCharsets.UTF_8), 2, 90);
    p.phase("pair 1/1, ohc: warm-up window 1");
    String line = b.toString(StandardCharsets.UTF_8);
    assertTrue(line.contains("run 1/2] pair 1/1, ohc: warm-up window 1"), line);
    assertTrue(line.contains("about 3:0") || line.contains("about 2:59"), line);
    p.runDone();
    p.runDone();
    assertEquals(0, p.secondsLeft(), "every run done");
  }

  @Test
  void clockAndBadSettings() {
    assertEquals("0:00", Progress.clock(0.2));
    assertEquals("2:05", Progress.clock(125));
    assertEquals("61:40", Progress.clock(3700));
    assertThrows(IllegalArgumentException.class, () -> new Progress(System.err, 0, 10));
    assertThrows(IllegalArgumentException.class, () -> new Progress(System.err, 1, 0));
  }
}
