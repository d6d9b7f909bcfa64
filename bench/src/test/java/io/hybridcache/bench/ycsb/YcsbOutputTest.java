package io.hybridcache.bench.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class YcsbOutputTest {
  private static final List<String> OUT = List.of(
      "[OVERALL], RunTime(ms), 10234",
      "[OVERALL], Throughput(ops/sec), 19542.3",
      "[TOTAL_GCS_G1_Young_Generation], Count, 12",
      "[TOTAL_GC_TIME_%], Time(%), 0.5",
      "[READ], Operations, 189900",
      "[READ], AverageLatency(us), 150.2",
      "[READ], 50thPercentileLatency(us), 98",
      "[READ], 99thPercentileLatency(us), 1203",
      "[READ], 99.9PercentileLatency(us), 4000",
      "[READ], Return=OK, 189900",
      "[CLEANUP], Operations, 4",
      "[UPDATE], Operations, 10000",
      "[UPDATE], Return=OK, 9999",
      "[UPDATE], Return=ERROR, 1",
      "[READ-FAILED], Operations, 100",
      "[READ-FAILED], Return=NOT_FOUND, 100",
      "java.lang.RuntimeException: noise, with, commas",
      "2026-01-01 10 sec: 1000 operations; 100 current ops/sec;");

  @Test
  void theRunsThroughputLeavesOutAPreloadThatYcsbsRuntimeIncludes() {
    YcsbOutput plain = YcsbOutput.parse(OUT);
    assertEquals(19542.3, YcsbCommand.runThroughput(plain));
    assertEquals(10234, YcsbCommand.runMs(plain));
    List<String> withPreload = new java.util.ArrayList<>(OUT);
    withPreload.add("[PRELOAD], RunTime(ms), 234");
    withPreload.add("[PRELOAD], Records, 5000");
    YcsbOutput o = YcsbOutput.parse(withPreload);
    assertEquals(10000, YcsbCommand.runMs(o));
    assertEquals((189900 + 10000 + 100) / 10.0, YcsbCommand.runThroughput(o), 1e-9);
    assertEquals(List.of("READ", "UPDATE", "READ-FAILED"), o.operations(), "the preload is no operation");
  }

  @Test
  void parsesTheTextExporter() {
    YcsbOutput o = YcsbOutput.parse(OUT);
    assertTrue(o.hasOverall());
    assertEquals(19542.3, o.throughput());
    assertEquals(10234, o.runtimeMs());
    assertEquals(98, o.percentileUs("READ", "50th"));
    assertEquals(1203, o.percentileUs("READ", "99th"));
    assertEquals(4000, o.percentileUs("READ", "99.9"));
    assertEquals(List.of("READ", "UPDATE", "READ-FAILED"), o.operations());
    assertEquals(200_000, o.totalOperations());
    assertEquals(1, o.returns("ERROR"));
    assertEquals(100, o.returns("NOT_FOUND"));
    assertTrue(Double.isNaN(o.percentileUs("INSERT", "50th")));
  }

  @Test
  void emptyOutput() {
    YcsbOutput o = YcsbOutput.parse(List.of("Error initializing datastore bindings."));
    assertFalse(o.hasOverall());
    assertEquals(0, o.totalOperations());
  }
}
