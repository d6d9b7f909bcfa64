package io.hybridcache.bench.jmh;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
 * The small-object engine's get and put paths through {@link HybridCache} (issue 27), against the log
 * engine alone on the same budgets: single-threaded, average time per call, 100 B values.
 *
 * <p>Workload: a cache on files in a scratch directory under {@code target/jmh-data} (see
 * {@link Fixtures#DIR_PROPERTY}; deleted at teardown), compact (heap) index, 1 MiB DRAM tier (the minimum,
 * about 7,000 such entries), 64 MiB flash, 4 MiB segments; {@code engine=SMALL} gives a quarter of the flash to the
 * small-object engine ({@code smallObjectShare(0.25)}: a 4 MiB log, about 27,000 such objects, in front of
 * 3,072 set pages; every entry is below {@code smallObjectMaxBytes}), so at the default {@code entries} most
 * objects have left the log for set pages (the printed {@code logHits} / {@code hits} says how many gets the
 * log served),
 * {@code engine=LOG} none. Loaded with {@code entries} (default 65,536) keys {@code user0..} of 100 B values,
 * flushed to flash every 4,096 puts. The small engine's log drops objects whose set gathers too few, so
 * the gets visit only the keys present after the load (probed once; at least half must be, or setup fails),
 * in a random order, each thread from its own place.
 * <ul>
 *   <li>{@code get}: a flash hit: the key comes round only after all the others, long after the 1 MiB DRAM
 *       tier evicted it, so each get misses DRAM and reads flash (SMALL: Bloom filter, one 4 KiB set-page
 *       or log-page read, check, promotion; LOG: index lookup, one aligned read, check, promotion).
 *   <li>{@code put}: an overwrite of a present key with another 100 B value; DRAM is full, so each put
 *       evicts a dirty entry to flash (SMALL: the engine's log, and set rewrites as the log is reclaimed;
 *       LOG: the write buffer, and reclaim), and makes the key's older flash version unreachable.
 * </ul>
 * Setup fails without O_DIRECT; after each iteration of {@code get} it fails unless at least 95% of the
 * iteration's gets were flash hits (DRAM may explain the rest within one round, as in
 * {@link CacheGetBenchmark}) and, for SMALL, at least 95% of those flash hits came from the small engine;
 * {@code put} fails if the tier degrades. The counters (and the small engine's) are printed at the end.
 *
 * <p>Run: {@code java -jar bench/target/hybridcache-bench.jar jmh -f 1 -wi 2 -i 3 -w 1s -r 1s SmallObjectBenchmark}
 * (about 1 minute on 2 cores). Not in the {@code jmh} default set; {@code BenchmarksTest} runs it once.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class SmallObjectBenchmark {
  static final int VALUE_BYTES = 100;

  /** Which flash engine takes the entries. */
  public enum Engine { SMALL, LOG }

  @Param({"SMALL", "LOG"})
  public Engine engine;

  @Param("65536")
  public int entries;

  private Path dir;
  private HybridCache cache;
  private byte[][] keys; // present keys, in the order calls visit them
  private byte[] value;
  private byte[] other;
  private CacheStats last;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    Fixtures.setUpOrTearDown(this::open, this::tearDown);
  }

  private void open() throws IOException {
    dir = Fixtures.scratchDir("small-" + engine.name().toLowerCase());
    Fixtures.requireDirectIo(dir);
    CacheConfig.Builder b = CacheConfig.builder(dir)
        .dramBytes(CacheConfig.MIB)
        .flashBytes(64 * CacheConfig.MIB)
        .segmentBytes((int) (4 * CacheConfig.MIB))
        .jmx(false);
    if (engine == Engine.SMALL) {
      b.smallObjectShare(0.25);
    }
    cache = HybridCache.open(b.build());
    value = Fixtures.value(VALUE_BYTES);
    other = Fixtures.value(VALUE_BYTES);
    other[0] ^= 1;
    byte[][] all = Fixtures.keys(entries);
    Fixtures.putAll(cache, all, value); // not Fixtures.load: the small engine's log may drop some
    int[] order = Fixtures.permutation(entries);
    List<byte[]> present = new ArrayList<>();
    for (int i : order) {
      if (cache.get(all[i]) != null) {
        present.add(all[i]);
      }
    }
    CacheStats s = cache.stats();
    if (present.size() < entries / 2 || s.degraded()) {
      throw new IllegalStateException(engine + ": only " + present.size() + " of " + entries
          + " loaded keys are present after the load: " + Fixtures.describe(s));
    }
    if (engine == Engine.SMALL && s.smallObjects().hits() < present.size() / 2) {
      throw new IllegalStateException("SMALL: the small-object engine served " + s.smallObjects().hits()
          + " of " + present.size() + " probe hits: " + s.smallObjects());
    }
    keys = present.toArray(new byte[0][]);
    last = s;
  }

  /** Fails a get iteration unless its gets were flash hits (SMALL: from the small engine), see the class comment. */
  @TearDown(Level.Iteration)
  public void checkIteration() {
    CacheStats now = cache.stats();
    long gets = now.gets() - last.gets();
    long flashHits = now.flashHits() - last.flashHits();
    long smallHits = now.smallObjects().hits() - last.smallObjects().hits();
    CacheStats before = last;
    last = now;
    if (now.degraded()) {
      throw new IllegalStateException(engine + ": the flash tier degraded: " + Fixtures.describe(now));
    }
    if (gets == 0) {
      return; // a put iteration
    }
    boolean dramExplainsTheRest = gets < keys.length && gets - flashHits <= now.dramEntries();
    if (flashHits < CacheGetBenchmark.MIN_TIER_SHARE * gets && !dramExplainsTheRest) {
      throw new IllegalStateException(String.format("%s: %d of %d gets were flash hits (%d misses); expected at least %.0f%%",
          engine, flashHits, gets, now.misses() - before.misses(), 100 * CacheGetBenchmark.MIN_TIER_SHARE));
    }
    if (engine == Engine.SMALL && smallHits < CacheGetBenchmark.MIN_TIER_SHARE * flashHits) {
      throw new IllegalStateException(String.format("SMALL: %d of %d flash hits came from the small-object engine",
          smallHits, flashHits));
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    if (cache != null && engine == Engine.SMALL) {
      System.out.println(System.lineSeparator() + engine + " small-object engine: " + cache.stats().smallObjects());
    }
    Fixtures.closeAndDelete(cache, dir, engine + " engine");
  }

  @Benchmark
  public byte[] get(Cursor c) {
    return cache.get(keys[c.next(keys.length)]);
  }

  @Benchmark
  public void put(Cursor c) {
    int i = c.next(keys.length);
    cache.put(keys[i], (i & 1) == 0 ? other : value);
  }
}
