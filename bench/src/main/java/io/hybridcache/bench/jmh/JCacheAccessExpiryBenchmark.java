package io.hybridcache.bench.jmh;

import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.device.DeviceCounters;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.expiry.AccessedExpiryPolicy;
import javax.cache.expiry.Duration;
import javax.cache.spi.CachingProvider;
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
 * What access expiry costs the flash tier: an {@code expire-after-access} cache of this project's JCache provider
 * ({@code AccessedExpiryPolicy} of one hour, so nothing expires during a run) served by gets only, and the figure
 * is the engine's <b>flash bytes written per 1,000 hits</b> (issue 37's goal: 0, an access moves the entry's
 * deadline in DRAM, never by rewriting it). The time per get is printed too, but is not the point.
 *
 * <p>Workload: {@code entries} (default 20,000) {@code String} keys {@code user0..} with values of 100 ASCII
 * characters, put at set-up and then forced to flash ({@code HybridCache.flush()}: every entry written to the
 * device, clean in DRAM), so the measured gets start from a flushed cache; each call takes the next key of a
 * random permutation, every thread from its own place ({@link Cursor}), and fails on a miss or a wrong value.
 * {@code hits}:
 * <ul>
 *   <li>{@code FLASH}: 1 MiB of DRAM (the provider's least) for 20,000 values of 100 characters (2 MB, twice the DRAM), so most gets are flash hits
 *       (each promotes a clean copy to DRAM, which a later DRAM eviction drops without a write);
 *   <li>{@code DRAM}: 64 MiB of DRAM, so every get is a DRAM hit of an entry that is also on flash.
 * </ul>
 * Both: 64 MiB of flash in 4 MiB segments, a 1 MiB write buffer, one manager of its own on a scratch directory under
 * {@code target/jmh-data} ({@link Fixtures#DIR_PROPERTY}; deleted at teardown), no statistics, no listeners.
 *
 * <p>The figure: after each iteration, {@code flash bytes written per 1,000 hits} = the engine's device bytes
 * written during the iteration ({@code HybridCache.deviceCounters()}) / the iteration's hits x 1,000, printed with
 * the iteration's DRAM and flash hits (so it shows which tier served them), and once more over the whole trial.
 *
 * <p>Run: {@code java -jar bench/target/hybridcache-bench.jar jmh JCacheAccessExpiryBenchmark} (outside the
 * default set; 1 fork, 3 iterations of 1 s after 1 of warm-up by default).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 1, time = 1)
@Measurement(iterations = 3, time = 1)
public class JCacheAccessExpiryBenchmark {
  static final int VALUE_CHARS = 100;
  private static final String CACHE_NAME = "jmh-access";

  /** Which tier serves the hits (see the class comment). */
  public enum Hits {
    FLASH("1m"),
    DRAM("64m");

    final String dramBytes;

    Hits(String dramBytes) {
      this.dramBytes = dramBytes;
    }
  }

  @Param({"FLASH", "DRAM"})
  public Hits hits;

  @Param("20000")
  public int entries;

  private Path dir;
  private CacheManager manager;
  private HybridCache engine;
  private Cache<String, String> cache;
  private String[] keys;
  private String[] values;
  private CacheStats iterationStats;
  private DeviceCounters.Snapshot iterationDevice;
  private CacheStats trialStats;
  private DeviceCounters.Snapshot trialDevice;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    Fixtures.setUpOrTearDown(this::open, this::tearDown);
  }

  private void open() throws IOException {
    dir = Fixtures.scratchDir("jcache-access-" + hits.name().toLowerCase());
    CachingProvider jsr107 = Caching.getCachingProvider("io.hybridcache.jcache.HybridCachingProvider");
    Properties settings = new Properties();
    settings.setProperty("directory", dir.toString());
    settings.setProperty("dram-bytes", hits.dramBytes);
    settings.setProperty("flash-bytes", "64m");
    settings.setProperty("segment-bytes", "4m");
    settings.setProperty("write-buffer-bytes", "1m");
    manager = jsr107.getCacheManager(URI.create("jmh-" + dir.getFileName()), jsr107.getDefaultClassLoader(), settings);
    cache = manager.createCache(CACHE_NAME, new MutableConfiguration<String, String>()
        .setTypes(String.class, String.class)
        .setExpiryPolicyFactory(FactoryBuilder.factoryOf(new AccessedExpiryPolicy(new Duration(TimeUnit.HOURS, 1))))
        .setStatisticsEnabled(false)
        .setManagementEnabled(false));
    engine = manager.unwrap(HybridCache.class);
    int[] order = Fixtures.permutation(entries);
    keys = new String[entries];
    values = new String[entries];
    for (int i = 0; i < entries; i++) {
      keys[i] = "user" + order[i];
      values[i] = (keys[i] + ":" + "v".repeat(VALUE_CHARS)).substring(0, VALUE_CHARS);
      cache.put(keys[i], values[i]);
    }
    engine.flush(); // every entry on flash, clean in DRAM: a hit then has nothing of its own to write back
    trialStats = engine.stats();
    trialDevice = engine.deviceCounters();
    System.out.printf("%n%s: %d entries put and flushed: %s%n", hits, entries, Fixtures.describe(trialStats));
  }

  @Setup(Level.Iteration)
  public void startIteration() {
    iterationStats = engine.stats();
    iterationDevice = engine.deviceCounters();
  }

  /** Prints the iteration's flash bytes written per 1,000 hits, and which tier served the hits. */
  @TearDown(Level.Iteration)
  public void endIteration() {
    print("iteration", iterationStats, iterationDevice);
  }

  private void print(String what, CacheStats fromStats, DeviceCounters.Snapshot fromDevice) {
    CacheStats now = engine.stats();
    long dramHits = now.dramHits() - fromStats.dramHits();
    long flashHits = now.flashHits() - fromStats.flashHits();
    long misses = now.misses() - fromStats.misses();
    long written = engine.deviceCounters().minus(fromDevice).bytesWritten();
    long served = dramHits + flashHits;
    System.out.printf("%n%s %s: flash bytes written per 1,000 hits %.3f (%d bytes, %d hits: %d DRAM, %d flash;"
        + " %d misses)%n", hits, what, served == 0 ? 0.0 : written * 1000.0 / served, written, served, dramHits,
        flashHits, misses);
    if (misses != 0) {
      throw new IllegalStateException(hits + " " + what + ": " + misses + " gets missed; every key is in the cache");
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    try {
      if (engine != null) {
        print("trial", trialStats, trialDevice);
      }
    } finally {
      Path d = dir;
      CacheManager m = manager;
      manager = null;
      engine = null;
      dir = null;
      Fixtures.closeAndDelete(m, null, d);
    }
  }

  @Benchmark
  public String get(Cursor c) {
    int i = c.next(keys.length);
    String v = cache.get(keys[i]);
    if (!values[i].equals(v)) {
      throw new IllegalStateException(hits + " returned " + v + " for " + keys[i]);
    }
    return v;
  }
}
