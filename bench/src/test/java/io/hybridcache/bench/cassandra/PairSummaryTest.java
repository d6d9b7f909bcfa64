package io.hybridcache.bench.cassandra;

import io.hybridcache.bench.Spread;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.bench.cassandra.CassandraCommand.DiskFigures;
import io.hybridcache.bench.cassandra.CassandraCommand.Result;
import io.hybridcache.bench.cassandra.CassandraCommand.SstableReads;
import io.hybridcache.bench.cassandra.CassandraCommand.Warmup;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The summary over pairs: the per-pair ratio, its median and range, and the per-run derived figures. */
class PairSummaryTest {
  private static Result run(String provider, int pair, double ops, long misses, long deviceReads,
                            SstableReads sstables) {
    Warmup w = new Warmup(100, 0.8, "plateau", List.of(0.7, 0.8), "plateau");
    DiskFigures d = new DiskFigures(deviceReads, deviceReads * 4096, 0, deviceReads, 0, 0, 0, 0);
    return new Result(provider, pair, ops, 1000, 300_000, 0.5, 1000, 950, 0, misses, "", 500, w, d, sstables);
  }

  @Test
  void theHeadlineIsTheMedianOfThePairsRatios() {
    List<Result> runs = new ArrayList<>();
    double[][] pairs = {{300, 450}, {400, 480}, {350, 700}}; // ratios 1.5, 1.2, 2.0
    for (int i = 0; i < pairs.length; i++) {
      runs.add(run("ohc", i + 1, pairs[i][0], 500, 400, SstableReads.UNKNOWN));
      runs.add(run("hybrid", i + 1, pairs[i][1], 200, 300, SstableReads.UNKNOWN));
    }
    PairSummary s = new PairSummary(runs);
    assertEquals(List.of(1.5, 1.2, 2.0), s.throughputRatios());
    Spread r = s.throughputRatio();
    assertEquals(1.5, r.median(), 1e-12);
    assertEquals(1.2, r.min(), 1e-12);
    assertEquals(2.0, r.max(), 1e-12);
    assertEquals(3, r.n());
    assertEquals(350, s.spread("ohc", "throughput_ops").median(), "per provider, over its own runs");
    assertEquals(List.of("ohc", "hybrid"), s.providers());
  }

  @Test
  void aPairMissingAProviderOrWithZeroOhcThroughputHasNoRatio() {
    PairSummary s = new PairSummary(List.of(run("ohc", 1, 0, 1, 1, SstableReads.UNKNOWN),
        run("hybrid", 1, 100, 1, 1, SstableReads.UNKNOWN), run("ohc", 2, 100, 1, 1, SstableReads.UNKNOWN),
        run("hybrid", 3, 100, 1, 1, SstableReads.UNKNOWN)));
    assertEquals(List.of(), s.throughputRatios());
    assertEquals(0, s.throughputRatio().n());
    assertTrue(Double.isNaN(s.throughputRatio().median()));
  }

  @Test
  void deviceReadsPerMissAndThePageCacheShare() {
    Result r = run("ohc", 1, 300, 1000, 820, new SstableReads(1000, 1.6)); // 1,600 SSTables read, 820 from disk
    assertEquals(0.82, r.deviceReadsPerMiss(), 1e-12);
    assertEquals(1 - 820 / 1600.0, r.pageCacheServedShare(), 1e-12);
    assertEquals(0.0, run("hybrid", 1, 1, 100, 500, new SstableReads(100, 1.0)).pageCacheServedShare(),
        "more device reads than SSTable reads: none served by the page cache, never negative");
    assertTrue(Double.isNaN(run("ohc", 1, 1, 0, 5, SstableReads.UNKNOWN).deviceReadsPerMiss()), "no miss");
    assertTrue(Double.isNaN(run("ohc", 1, 1, 5, 5, SstableReads.UNKNOWN).pageCacheServedShare()), "JMX silent");
    assertThrows(IllegalArgumentException.class, () -> new PairSummary(List.of(r)).spread("ohc", "speed"));
  }

  @Test
  void spreadLeavesOutWhatWasNotMeasured() {
    Spread s = Spread.of(List.of(3.0, Double.NaN, 1.0, 2.0, 10.0));
    assertEquals(2.5, s.median(), 1e-12);
    assertEquals(1.0, s.min());
    assertEquals(10.0, s.max());
    assertEquals(4, s.n());
    assertEquals(0, Spread.of(List.of(Double.NaN)).n());
  }
}
