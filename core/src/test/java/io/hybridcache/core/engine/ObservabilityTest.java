package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.api.RandomReject;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** JMX bean, device write trace, admission wiring and stats after close. */
class ObservabilityTest {
  @TempDir Path dir;

  @Test
  void jmxBeanReportsLiveFiguresAndGoesAwayAtClose() throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    ObjectName name = new ObjectName("io.hybridcache:type=HybridCache,name=\"jmx-test\"");
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).name("jmx-test").jmx(true).build())) {
      for (int i = 0; i < 100; i++) {
        c.put(key(i), value(i, 1, 300));
      }
      c.writeBackAndDropDram();
      c.get(key(1));
      assertTrue(server.isRegistered(name));
      assertEquals(1L, server.getAttribute(name, "FlashHits"));
      assertEquals(100L, server.getAttribute(name, "FlashEntries"));
      assertEquals(1.0, (Double) server.getAttribute(name, "DeviceReadsPerFlashHit"), 1e-9);
    }
    assertFalse(server.isRegistered(name));
  }

  @Test
  void writeTraceRecordsEveryDeviceWriteWithItsClass() throws Exception {
    Path trace = dir.resolve("trace.csv");
    long flushed;
    try (Engine c = TestCaches.open(TestCaches.small(dir.resolve("cache"), IndexType.HEAP).writeTrace(trace)
        .trimReclaimed(true).build())) {
      for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 2000; i++) {
          c.put(key(i), value(i, round, 300));
        }
        c.writeBack();
      }
      c.awaitFlashWrites();
      flushed = c.stats().flushBytesWritten() + c.stats().reclaimBytesWritten();
    }
    List<String> lines = Files.readAllLines(trace);
    assertEquals(WriteTrace.HEADER, lines.get(0));
    long traced = lines.stream().skip(1).filter(l -> l.startsWith("W,")).mapToLong(l -> Long.parseLong(l.split(",")[2])).sum();
    assertTrue(traced >= flushed, "every counted write is traced: " + traced + " < " + flushed);
    assertTrue(lines.stream().anyMatch(l -> l.startsWith("W,") && l.contains(",FRESH,")));
    assertTrue(lines.stream().anyMatch(l -> l.startsWith("T,")), "reclaimed slots are trimmed and traced");
    for (String l : lines.subList(1, lines.size())) {
      if (l.startsWith("E,")) {
        continue; // an epoch's hotness figures: its offset column is the device clock
      }
      long off = Long.parseLong(l.split(",")[1]);
      assertTrue(off % 4096 == 0 && off < 16L * TestCaches.SEGMENT, l);
    }
  }

  @Test
  void admissionPolicyFiltersEvictions() {
    RandomReject none = new RandomReject(0.0);
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).admission(none).build())) {
      for (int i = 0; i < 5000; i++) {
        c.put(key(i), value(i, 1, 300));
      }
      c.awaitFlashWrites();
      assertEquals(0, c.stats().flashEntries(), "nothing admitted");
      assertTrue(c.stats().admissionRejected() > 1000);
    }
  }

  @Test
  @NeedsChronicle
  void statsRemainReadableAfterClose() {
    Engine c = TestCaches.open(TestCaches.small(dir, IndexType.CHRONICLE).build());
    for (int i = 0; i < 100; i++) {
      c.put(key(i), value(i, 1, 300));
    }
    c.close();
    assertEquals(100, c.stats().flashEntries(), "the final snapshot includes what close wrote back");
  }
}
