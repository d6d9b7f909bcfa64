package io.hybridcache.bench.jmh;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link HybridCache#get} (and {@link HybridCache#read}) of a present key served by one tier, {@code tier}, single-threaded, average
 * time per call: a DRAM hit, or a flash hit that reads the device with O_DIRECT.
 *
 * <p>Workload: a cache on files in a scratch directory under {@code target/jmh-data} (see
 * {@link Fixtures#DIR_PROPERTY}; deleted at teardown), Chronicle index (the default), 16 MiB segments,
 * 256 MiB flash, loaded with {@code entries} (default 65,536) keys {@code user0..} of 1 KiB random
 * values, all written to flash (about 68 MiB). Each call gets the next key of a random permutation of
 * all keys, every thread from its own place.
 * <ul>
 *   <li>{@code tier=DRAM}: a 128 MiB DRAM tier holds every key: each get is a Caffeine lookup that
 *       returns the stored array (no copy). The 75 MiB of entries do not fit in CPU caches, so a get
 *       costs several cache misses (with {@code -p entries=8192} it was about 10x faster here).
 *   <li>{@code tier=FLASH}: a 1 MiB DRAM tier (the minimum, about 900 entries). A key comes round again
 *       only after all the others, long after DRAM evicted it, so each get misses DRAM and does the
 *       whole flash hit: index lookup, one aligned O_DIRECT read of the pages holding the entry, CRC32C
 *       check, key compare, setting the accessed bit, and promotion into DRAM (which evicts a clean
 *       entry: no flash write). DRAM keeps up to ~900 keys (those left by the load, or promoted ones
 *       its admission favours), hit once a round: {@code entries} must stay well above that.
 * </ul>
 * Setup fails if the directory has no O_DIRECT or if the first gets are not served as stated (at least
 * 95% DRAM hits, or flash hits each with one device read); after each iteration the same check runs on
 * the iteration's gets, and the counters are printed at the end.
 *
 * <p>Run: {@code java -jar bench/target/hybridcache-bench.jar jmh -f 1 -wi 2 -i 3 -w 1s -r 1s CacheGetBenchmark}
 * (add {@code -p tier=FLASH -t 4} for four readers, i.e. queue depth 4).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class CacheGetBenchmark {
  private static final int VALUE_BYTES = 1024;
  /** Share of gets that must come from the tier under test. */
  static final double MIN_TIER_SHARE = 0.95;

  /** The tier that serves the gets. */
  public enum Tier { DRAM, FLASH }

  @Param({"DRAM", "FLASH"})
  public Tier tier;

  @Param("65536")
  public int entries;

  private Path dir;
  private HybridCache cache;
  private byte[][] keys; // in the order gets visit them
  private CacheStats last;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    Fixtures.setUpOrTearDown(this::open, this::tearDown);
  }

  private void open() throws IOException {
    dir = Fixtures.scratchDir("get-" + tier.name().toLowerCase());
    Fixtures.requireDirectIo(dir);
    cache = HybridCache.open(CacheConfig.builder(dir)
        .dramBytes(tier == Tier.DRAM ? 128 * CacheConfig.MIB : CacheConfig.MIB)
        .flashBytes(256 * CacheConfig.MIB)
        .segmentBytes((int) (16 * CacheConfig.MIB))
        .jmx(false)
        .build());
    byte[][] inOrder = Fixtures.keys(entries);
    Fixtures.load(cache, inOrder, Fixtures.value(VALUE_BYTES));
    int[] order = Fixtures.permutation(entries);
    keys = new byte[entries][];
    for (int i = 0; i < entries; i++) {
      keys[i] = inOrder[order[i]];
    }
    last = cache.stats();
    Cursor probe = new Cursor();
    for (int i = 0; i < Math.min(entries, 4096); i++) {
      get(probe);
    }
    checkTier("setup");
  }

  /** Fails the iteration unless its gets came from {@link #tier} as the class comment says. */
  @TearDown(Level.Iteration)
  public void checkIteration() {
    checkTier("iteration");
  }

  private void checkTier(String when) {
    CacheStats now = cache.stats();
    long gets = now.gets() - last.gets();
    long hits = tier == Tier.DRAM ? now.dramHits() - last.dramHits() : now.flashHits() - last.flashHits();
    long deviceReads = now.deviceReads() - last.deviceReads();
    last = now;
    if (gets == 0) {
      return;
    }
    // FLASH: within one round of the permutation each key DRAM holds (about 900) is hit at most once, so
    // a short iteration (few gets, as under the test suite's load) may see more DRAM hits than 5%.
    boolean dramExplainsTheRest = tier == Tier.FLASH && gets < entries && gets - hits <= now.dramEntries();
    if ((hits < MIN_TIER_SHARE * gets && !dramExplainsTheRest) || (tier == Tier.FLASH && deviceReads != hits)) {
      throw new IllegalStateException(String.format("%s: %d of %d gets were %s hits and %d read the device;"
          + " expected at least %.0f%% %s hits%s", when, hits, gets, tier, deviceReads, 100 * MIN_TIER_SHARE, tier,
          tier == Tier.FLASH ? ", each with one device read" : ""));
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    Fixtures.closeAndDelete(cache, dir, tier + " tier");
  }

  @Benchmark
  public byte[] get(Cursor c) {
    byte[] v = cache.get(keys[c.next(keys.length)]);
    if (v == null) {
      throw new IllegalStateException("a loaded key missed both tiers");
    }
    return v;
  }

  /**
   * The same lookup through {@link HybridCache#read}, decoding one long from the cache's own bytes: no
   * copy of the value on a DRAM hit or on a promoted flash hit. {@code get} minus {@code read} is what a
   * copy costs a caller that decodes at once (a row cache).
   */
  @Benchmark
  public long read(Cursor c) {
    Long v = cache.read(keys[c.next(keys.length)], b -> b.getLong(0));
    if (v == null) {
      throw new IllegalStateException("a loaded key missed both tiers");
    }
    return v;
  }
}
