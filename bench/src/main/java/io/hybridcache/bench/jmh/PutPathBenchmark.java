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
 * The put path under eviction: {@link HybridCache#put} of a new key into a full 1 MiB DRAM tier, so each
 * put evicts about one dirty entry to flash, single-threaded, average time per put (with {@code -prof gc},
 * bytes allocated per put). The putting thread writes its eviction into the flash write buffer itself;
 * the flusher (device writes) and reclaim run on their own threads. With the default {@code cascadeWait}
 * a put waits when the device falls behind, so in steady state the time per put is the time per eviction
 * written, as long as no eviction is refused. A refused eviction (no room within {@code cascadeWait}) is
 * dropped work: each iteration prints how many puts' evictions were refused, so a figure is read with
 * that share beside it.
 *
 * <p>Workload: a cache on files in a scratch directory under {@code target/jmh-data} (deleted at
 * teardown), compact index, 256 MiB of flash in 16 MiB segments (reclaim runs once it is full, as in
 * steady state), keys {@code user0..} in order, values of {@code valueBytes} random bytes.
 *
 * <p>Run: {@code java -jar bench/target/hybridcache-bench.jar jmh -f 1 -wi 2 -i 3 -w 2s -r 2s
 * -prof gc PutPathBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class PutPathBenchmark {

  @Param({"1024", "16384"})
  public int valueBytes;

  private Path dir;
  private HybridCache cache;
  private byte[] value;
  private long next;
  private CacheStats last;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    Fixtures.setUpOrTearDown(this::open, this::tearDown);
  }

  private void open() throws IOException {
    dir = Fixtures.scratchDir("put-" + valueBytes);
    Fixtures.requireDirectIo(dir);
    cache = HybridCache.open(CacheConfig.builder(dir)
        .dramBytes(CacheConfig.MIB)
        .flashBytes(256 * CacheConfig.MIB)
        .segmentBytes(16 * CacheConfig.MIB)
        .jmx(false)
        .build());
    value = Fixtures.value(valueBytes);
    last = cache.stats();
  }

  /** Prints the iteration's refused evictions (work not done that the time per put does not include). */
  @TearDown(Level.Iteration)
  public void reportIteration() {
    CacheStats now = cache.stats();
    long refused = (now.queueRejected() - last.queueRejected()) + (now.degradedRejected() - last.degradedRejected())
        + (now.indexFullRejected() - last.indexFullRejected());
    long puts = now.puts() - last.puts();
    last = now;
    System.out.printf("%n%d B values: %,d puts, %,d evictions refused (%.1f%%)%n", valueBytes, puts, refused,
        puts == 0 ? 0.0 : 100.0 * refused / puts);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    Fixtures.closeAndDelete(cache, dir, "put path, values of " + valueBytes + " B");
  }

  @Benchmark
  public void put() {
    cache.put(Fixtures.key(next++), value);
  }
}
