package io.hybridcache.bench.jmh;

import io.hybridcache.bench.BenchDirs;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.device.Device;
import io.hybridcache.core.device.FileDevice;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/**
 * What the benchmarks of this package share: keys, values, scratch directories on the disk, loading a
 * cache so that every key is on flash. Thread-safe: stateless.
 */
public final class Fixtures {
  /**
   * System property naming the parent of the benchmarks' scratch directories (default
   * {@code target/jmh-data} under the working directory). It must be on a file system with O_DIRECT
   * (not tmpfs on older kernels): {@code jmh -jvmArgsAppend -Dhybridcache.jmh.dir=/mnt/ssd ...}.
   */
  static final String DIR_PROPERTY = "hybridcache.jmh.dir";

  /** Puts between two waits for the flash writer while loading. */
  private static final int LOAD_BATCH = 4096;

  private Fixtures() {}

  /** A new, empty directory under {@link #DIR_PROPERTY}; the caller deletes it at teardown. */
  public static Path scratchDir(String name) throws IOException {
    Path parent = Path.of(System.getProperty(DIR_PROPERTY, "target/jmh-data")).toAbsolutePath();
    Files.createDirectories(parent);
    return Files.createTempDirectory(parent, name + "-");
  }

  /** Fails unless files in {@code dir} can be read and written with O_DIRECT. */
  public static void requireDirectIo(Path dir) throws IOException {
    try (FileDevice probe = FileDevice.open(dir, 1, Device.ALIGNMENT, true)) {
      if (!probe.directIo()) {
        throw new IllegalStateException("direct I/O (O_DIRECT) is not available in " + dir
            + "; point -D" + DIR_PROPERTY + " at a disk file system (jmh -jvmArgsAppend -D" + DIR_PROPERTY + "=...)");
      }
    }
  }

  /**
   * Closes a JCache benchmark's {@code manager} (its caches and engine), or {@code engine} when there is no manager
   * (either may be null), then deletes {@code dir} (if not null), even if the close threw.
   */
  public static void closeAndDelete(javax.cache.CacheManager manager, HybridCache engine, Path dir)
      throws IOException {
    try {
      if (manager != null) {
        manager.close();
      } else if (engine != null) {
        engine.close();
      }
    } finally {
      if (dir != null) {
        BenchDirs.deleteTree(dir);
      }
    }
  }

  /** A set-up or tear-down step. */
  @FunctionalInterface
  public interface Step {
    void run() throws IOException;
  }

  /**
   * Runs {@code setUp}; if it throws, runs {@code tearDown} (JMH does not tear down a failed set-up,
   * which would leave scratch files behind) and rethrows. {@code tearDown} must cope with a partial set-up.
   */
  public static void setUpOrTearDown(Step setUp, Step tearDown) throws IOException {
    try {
      setUp.run();
    } catch (IOException | RuntimeException | Error e) {
      try {
        tearDown.run();
      } catch (IOException | RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /** Key {@code i}: {@code "user<i>"} in ASCII, as YCSB names its records. */
  public static byte[] key(long i) {
    return ("user" + i).getBytes(StandardCharsets.US_ASCII);
  }

  /** Keys 0..n-1. */
  public static byte[][] keys(int n) {
    byte[][] keys = new byte[n][];
    for (int i = 0; i < n; i++) {
      keys[i] = key(i);
    }
    return keys;
  }

  /** {@code bytes} random bytes (incompressible, fixed seed). */
  public static byte[] value(int bytes) {
    byte[] v = new byte[bytes];
    new Random(bytes).nextBytes(v);
    return v;
  }

  /** 0..n-1 in a random order (fixed seed). */
  public static int[] permutation(int n) {
    int[] p = new int[n];
    for (int i = 0; i < n; i++) {
      p[i] = i;
    }
    Random rnd = new Random(n);
    for (int i = n - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }

  /**
   * Puts every key with {@code value}, flushing to flash every {@value #LOAD_BATCH} puts so no DRAM
   * eviction is refused at a full queue, then writes the rest of DRAM back: afterwards every
   * key is on flash and DRAM holds clean copies of the most recent ones. Fails if the flash tier did not
   * take every key.
   */
  static void load(HybridCache cache, byte[][] keys, byte[] value) {
    putAll(cache, keys, value);
    CacheStats s = cache.stats();
    if (s.flashEntries() != keys.length || s.degraded()) {
      throw new IllegalStateException("loading " + keys.length + " keys left " + s.flashEntries()
          + " on flash: " + describe(s));
    }
  }

  /** Puts every key with {@code value}, flushing to flash every {@value #LOAD_BATCH} puts and at the end. */
  static void putAll(HybridCache cache, byte[][] keys, byte[] value) {
    for (int i = 0; i < keys.length; i++) {
      cache.put(keys[i], value);
      if ((i + 1) % LOAD_BATCH == 0) {
        cache.flush();
      }
    }
    cache.flush();
  }

  /**
   * Prints {@code label} with the cache's counters since open, closes the cache and deletes {@code dir};
   * either may be null (a set-up that failed early).
   */
  static void closeAndDelete(HybridCache cache, Path dir, String label) throws IOException {
    try {
      if (cache != null) {
        System.out.println(System.lineSeparator() + label + ", since open: " + describe(cache.stats()));
        cache.close();
      }
    } finally {
      if (dir != null) {
        BenchDirs.deleteTree(dir);
      }
    }
  }

  /** Hit ratios and the counters that explain them, for a line of benchmark output. */
  static String describe(CacheStats s) {
    return String.format("gets %d: DRAM hits %.3f, flash hits %.3f, misses %.3f; device reads %d, buffer hits %d;"
            + " puts %d; evictions dropped (queue full) %d; reclaimed segments %d; degraded %s",
        s.gets(), s.hitRatioDram(), s.hitRatioFlash(), s.gets() == 0 ? 0.0 : (double) s.misses() / s.gets(),
        s.deviceReads(), s.bufferHits(), s.puts(), s.queueRejected(), s.reclaimedSegments(), s.degraded());
  }
}
