package io.hybridcache.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.StatsJson;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The summary picks the fastest disk-backed peer (never a DRAM-only one) and checks the goal. */
class CompareReportTest {
  private static ObjectNode phase(String store, String workload, double ops) {
    ObjectNode n = StatsJson.MAPPER.createObjectNode();
    n.put("store", store);
    n.put("workload", workload);
    n.put("throughput_ops", ops);
    n.put("seconds", 1.0);
    n.putNull("read_p99_us");
    n.put("disk_bytes_written", 0);
    return n;
  }

  private static CompareCommand.StoreRun run(StoreType t, double b, double a) {
    return new CompareCommand.StoreRun(t, List.of(phase(t.cliName(), "workloadb", b), phase(t.cliName(), "workloada", a)),
        null, -1, 0);
  }

  @Test
  void bestDiskBackedPeerAndVerdict() {
    CompareReport r = new CompareReport(StatsJson.MAPPER.createObjectNode(), null, List.of(
        run(StoreType.HYBRIDCACHE, 30_000, 10_000),
        run(StoreType.CAFFEINE, 900_000, 900_000),
        run(StoreType.ROCKSDB, 15_000, 12_000),
        run(StoreType.MAPDB, 21_000, 5_000)), List.of("workloadb", "workloada", "transactional"));
    List<CompareReport.Summary> s = r.summary();
    assertEquals("mapdb", s.get(0).bestPeer());
    assertEquals(30_000.0 / 21_000, s.get(0).ratio(), 1e-9);
    assertEquals("not met", s.get(0).verdict()); // 1.43 < 1.5
    assertEquals("rocksdb", s.get(1).bestPeer());
    assertEquals("not met", s.get(1).verdict()); // 0.83 < 1.0
    assertNull(s.get(2).goal());
    assertEquals("", s.get(2).verdict());
  }
}
