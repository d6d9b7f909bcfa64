package io.hybridcache.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    return run(t, 1, b, a);
  }

  private static CompareCommand.StoreRun run(StoreType t, int rep, double b, double a) {
    return run(t, rep, b, a, 1.0);
  }

  private static CompareCommand.StoreRun run(StoreType t, int rep, double b, double a, double hitRatio) {
    List<ObjectNode> phases = List.of(phase(t.cliName(), "workloadb", b), phase(t.cliName(), "workloada", a));
    phases.forEach(p -> p.put("hit_ratio", hitRatio));
    return new CompareCommand.StoreRun(t, rep, phases, null, -1, 0);
  }

  private static CompareCommand.StoreRun failed(StoreType t) {
    return new CompareCommand.StoreRun(t, 1, List.of(), "too slow: loaded 1 of 2 records", -1, 0);
  }

  @Test
  void theSpreadComparesMediansAndOurSlowestRunWithThePeersFastest() {
    CompareReport r = new CompareReport(StatsJson.MAPPER.createObjectNode(), null, List.of(
        run(StoreType.HYBRIDCACHE, 1, 30_000, 10_000), run(StoreType.ROCKSDB, 1, 18_000, 9_000),
        run(StoreType.ROCKSDB, 2, 20_000, 9_500), run(StoreType.HYBRIDCACHE, 2, 33_000, 10_200),
        run(StoreType.HYBRIDCACHE, 3, 25_000, 9_900), run(StoreType.ROCKSDB, 3, 19_000, 9_200)),
        List.of("workloadb", "workloada"));
    CompareReport.Summary b = r.summary().get(0);
    assertEquals(30_000, b.ours().median());
    assertEquals(25_000, b.ours().min());
    assertEquals(33_000, b.ours().max());
    assertEquals(3, b.ours().n());
    assertEquals(19_000, b.peer().median());
    assertEquals(30_000.0 / 19_000, b.ratio(), 1e-9);
    assertEquals(25_000.0 / 20_000, b.ratioAtWorst(), 1e-9);
    assertEquals("not met", b.verdict()); // 1.58 at the medians, 1.25 at the spread's edge
    CompareReport.Summary a = r.summary().get(1);
    assertEquals("met", a.verdict()); // 10,000 / 9,200 and 9,900 / 9,500 both >= 1.0
  }

  @Test
  void oursMeetsNoGoalByFindingFewerRecords() {
    CompareReport r = new CompareReport(StatsJson.MAPPER.createObjectNode(), null, List.of(
        run(StoreType.HYBRIDCACHE, 1, 90_000, 30_000, 0.97), run(StoreType.ROCKSDB, 1, 15_000, 12_000, 1.0)),
        List.of("workloadb", "workloada"));
    assertEquals("not comparable: ours found fewer records", r.summary().get(0).verdict());
  }

  @Test
  void theLeadersAreFixedAfterTheFirstRunsAndAlternateFromTheirFirstOrder() {
    // first runs: rocksdb ran before ours; infinispan leads A, rocksdb leads B; mapdb leads nothing
    CompareReport first = new CompareReport(StatsJson.MAPPER.createObjectNode(), null, List.of(
        run(StoreType.ROCKSDB, 1, 20_000, 9_000), run(StoreType.MAPDB, 1, 2_000, 1_000),
        run(StoreType.HYBRIDCACHE, 1, 30_000, 10_000), run(StoreType.INFINISPAN, 1, 19_000, 9_500)),
        List.of("workloadb", "workloada"));
    RunSchedule s = RunSchedule.after(first);
    assertEquals(List.of(StoreType.ROCKSDB, StoreType.HYBRIDCACHE, StoreType.INFINISPAN), s.leaders(), "in the order they ran");
    assertEquals(List.of(StoreType.INFINISPAN, StoreType.HYBRIDCACHE, StoreType.ROCKSDB), s.order(2));
    assertEquals(s.leaders(), s.order(3));
  }

  @Test
  void anIndexThatOutgrewItsChargeIsAVisibleWarning() {
    ObjectNode p = phase("hybridcache", "workloadd", 100_000);
    p.put("index_bytes", 777_613);
    p.put("index_charge_bytes", 464_400);
    CompareReport r = new CompareReport(StatsJson.MAPPER.createObjectNode(), null, List.of(
        new CompareCommand.StoreRun(StoreType.HYBRIDCACHE, 1, List.of(p), null, -1, 0)), List.of("workloadd"));
    assertEquals(1, r.warnings().size());
    assertTrue(r.warnings().get(0).contains("777,613 B, over the 464,400 B charged"), r.warnings().get(0));
    assertTrue(CompareTables.markdown(r).contains("777,613 B"), "the warning is in the Markdown");
  }

  @Test
  void aPeerThatCannotCompleteIsARowNotAFailedRunButOursFailingIs() {
    CompareReport peerFailed = new CompareReport(StatsJson.MAPPER.createObjectNode(), null, List.of(
        run(StoreType.HYBRIDCACHE, 30_000, 10_000), failed(StoreType.CHRONICLE_MAP)), List.of("workloadb", "workloada"));
    assertTrue(peerFailed.oursCompleted());
    assertEquals(1, peerFailed.failureLines().size());
    assertTrue(peerFailed.failureLines().get(0).startsWith("chronicle-map (core, run 1): did not complete"),
        peerFailed.failureLines().get(0));
    CompareReport oursFailed = new CompareReport(StatsJson.MAPPER.createObjectNode(), null, List.of(
        failed(StoreType.HYBRIDCACHE), run(StoreType.ROCKSDB, 15_000, 12_000)), List.of("workloadb", "workloada"));
    assertFalse(oursFailed.oursCompleted());
    assertTrue(oursFailed.failureLines().get(0).contains("FAILED"), oursFailed.failureLines().get(0));
  }

  @Test
  void bestDiskBackedPeerAndVerdict() {
    CompareReport r = new CompareReport(StatsJson.MAPPER.createObjectNode(), null, List.of(
        run(StoreType.HYBRIDCACHE, 30_000, 10_000),
        run(StoreType.CAFFEINE, 900_000, 900_000),
        run(StoreType.ROCKSDB, 15_000, 12_000),
        run(StoreType.MAPDB, 21_000, 5_000)), List.of("workloadb", "workloada", "tiny100"));
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
