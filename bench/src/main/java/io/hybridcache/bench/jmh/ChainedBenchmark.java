package io.hybridcache.bench.jmh;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import site.ycsb.generator.ScrambledZipfianGenerator;

/**
 * Gets and puts through the whole {@link HybridCache} (DRAM tier chained over the flash tier) with a
 * zipfian key stream, two threads, operations per second (both threads together).
 *
 * <p>Workload: a cache on files in a scratch directory under {@code target/jmh-data} (see
 * {@link Fixtures#DIR_PROPERTY}; deleted at teardown) sized as by the {@code ycsb} command's defaults:
 * 16 MiB DRAM, 512 MiB flash in 16 MiB segments, Chronicle index, O_DIRECT where available. It is loaded
 * with {@code entries} (default 100,000) keys {@code user0..} of 1 KiB values (about 110 MiB, so most of
 * them live on flash only). The key stream is 2^20 draws of YCSB's {@link ScrambledZipfianGenerator}
 * over the keys (constant 0.99, hot keys scattered), drawn once per trial; each position is a get with
 * probability {@code readPercent} % (95: YCSB B, 50: YCSB A), else a put of a 1 KiB value. Each thread
 * walks the stream from its own place. A get is a DRAM hit, a flash hit (one device read, promoted to
 * DRAM) or, after reclaim evicted the key, a miss; a put goes to DRAM and invalidates the flash copy,
 * and DRAM's dirty evictions are written to flash by the writer thread (reclaim runs when free segments
 * run low), so puts cost flash writes in the background. The hit ratios are printed at the end; setup
 * fails if the load did not put every key on flash, an iteration if the flash tier degraded.
 *
 * <p>Run: {@code java -jar bench/target/hybridcache-bench.jar jmh -f 1 -wi 2 -i 3 -w 1s -r 1s ChainedBenchmark}
 * (add {@code -t 4} for four threads, {@code -p readPercent=100} for YCSB C).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(2)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ChainedBenchmark {
  private static final int STREAM = 1 << 20;
  private static final int VALUE_BYTES = 1024;

  @Param({"95", "50"})
  public int readPercent;

  @Param("100000")
  public int entries;

  private Path dir;
  private HybridCache cache;
  private byte[][] keys;
  private byte[] value;
  /** Key index of each stream position, with bit 31 set for a put. */
  private int[] stream;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    Fixtures.setUpOrTearDown(this::open, this::tearDown);
  }

  private void open() throws IOException {
    dir = Fixtures.scratchDir("chained");
    cache = HybridCache.open(CacheConfig.builder(dir)
        .dramBytes(16 * CacheConfig.MIB)
        .flashBytes(512 * CacheConfig.MIB)
        .segmentBytes((int) (16 * CacheConfig.MIB))
        .jmx(false)
        .build());
    keys = Fixtures.keys(entries);
    value = Fixtures.value(VALUE_BYTES);
    Fixtures.load(cache, keys, value);
    ScrambledZipfianGenerator zipf = new ScrambledZipfianGenerator(entries);
    Random ops = new Random(readPercent);
    stream = new int[STREAM];
    for (int i = 0; i < STREAM; i++) {
      int k = zipf.nextValue().intValue();
      stream[i] = ops.nextInt(100) < readPercent ? k : k | Integer.MIN_VALUE;
    }
  }

  /** Fails the iteration if the flash tier went out of service (the figures would be DRAM-only). */
  @TearDown(Level.Iteration)
  public void check() {
    CacheStats s = cache.stats();
    if (s.degraded()) {
      throw new IllegalStateException("the flash tier degraded: " + Fixtures.describe(s));
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    Fixtures.closeAndDelete(cache, dir, "readPercent " + readPercent);
  }

  @Benchmark
  public byte[] getOrPut(Cursor c) {
    int op = stream[c.next(STREAM)];
    if (op >= 0) {
      return cache.get(keys[op]);
    }
    cache.put(keys[op & Integer.MAX_VALUE], value);
    return value;
  }
}
