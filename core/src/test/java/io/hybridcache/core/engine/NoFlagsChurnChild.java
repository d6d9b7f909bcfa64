package io.hybridcache.core.engine;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;

/**
 * Child JVM of {@link NoFlagsChurnTest}, started with no JVM flags: a user's application on the default
 * configuration (but for sizes), through the public API ({@link HybridCache#open}). Two modes:
 * <ul>
 *   <li>{@code churn}: one writer rewrites {@value #KEYS} keys of about 700 B (1.5x the flash budget) and
 *       reads a recently written key between writes, so reclaim runs on both its paths (few live entries
 *       to move: the summary; many read since written: the scan). Prints {@code I k v} before a put,
 *       {@code P k v} after it returned, {@code R k v} after a remove, {@code M written summary scan
 *       writerFaults degraded} every {@value #REPORT_EVERY} operations, and {@code READY} once written
 *       bytes passed 1.5x the budget and reclaim took both paths; then goes on until it is killed.
 *   <li>{@code verify}: opens (after the kill), prints {@code F flashEntries}, reads every key ({@code G k v}
 *       a hit, {@code X k} a value not written for k), then {@code S writerFaults degraded flashHits} and
 *       closes.
 * </ul>
 * Every line is one {@code write}, so a kill never leaves half a line. Any Throwable exits with 3.
 */
public final class NoFlagsChurnChild {
  static final int KEYS = 100_000;
  static final int VALUE_BYTES = 700;
  static final long FLASH_BYTES = 48L * CacheConfig.MIB;
  static final int REPORT_EVERY = 2_000;
  private static final FileOutputStream OUT = new FileOutputStream(FileDescriptor.out);

  private NoFlagsChurnChild() {}

  static CacheConfig config(Path dir) {
    return CacheConfig.builder(dir)
        .dramBytes(4 * CacheConfig.MIB)
        .flashBytes(FLASH_BYTES)
        .segmentBytes(2 * CacheConfig.MIB)
        .jmx(false)
        .build();
  }

  public static void main(String[] args) {
    Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
      e.printStackTrace();
      Runtime.getRuntime().halt(3);
    });
    try {
      Path dir = Path.of(args[0]);
      if (args[1].equals("churn")) {
        churn(dir, Long.parseLong(args[2]));
      } else {
        verify(dir);
      }
    } catch (Throwable e) {
      e.printStackTrace();
      Runtime.getRuntime().halt(3);
    }
  }

  private static void churn(Path dir, long seed) {
    HybridCache cache = HybridCache.open(config(dir));
    Counters counters = ((Engine) cache).counters();
    Random rnd = new Random(seed);
    long written = 0;
    boolean ready = false;
    boolean everDegraded = false;
    for (long op = 0, version = 1; ; op++, version++) {
      int k = op < KEYS ? (int) op : rnd.nextInt(KEYS);
      if (op >= KEYS && rnd.nextInt(20) == 0) {
        cache.remove(TestCaches.key(k));
        emit("R " + k + " " + version);
      } else {
        int length = VALUE_BYTES - 50 + rnd.nextInt(100);
        emit("I " + k + " " + version);
        cache.put(TestCaches.key(k), TestCaches.value(k, version, length));
        emit("P " + k + " " + version);
        written += length;
      }
      int recent = (int) Math.max(0, Math.min(op, KEYS - 1) - rnd.nextInt(3_000));
      cache.get(TestCaches.key(op < KEYS ? recent : rnd.nextInt(KEYS))); // read between writes
      if (op % REPORT_EVERY == 0) {
        CacheStats s = cache.stats();
        everDegraded |= s.degraded();
        long summary = counters.reclaimedFromSummary.sum();
        long scan = counters.reclaimedSegments.sum() - summary;
        emit("M " + written + " " + summary + " " + scan + " " + s.writerFaults() + " " + everDegraded);
        if (!ready && written > 1.5 * FLASH_BYTES && summary > 0 && scan > 0) {
          ready = true;
          emit("READY");
        }
      }
    }
  }

  private static void verify(Path dir) {
    try (HybridCache cache = HybridCache.open(config(dir))) {
      emit("F " + cache.stats().flashEntries());
      for (int k = 0; k < KEYS; k++) {
        byte[] v = cache.get(TestCaches.key(k));
        if (v != null) {
          long version = TestCaches.versionOf(k, v);
          emit(version > 0 ? "G " + k + " " + version : "X " + k);
        }
      }
      CacheStats s = cache.stats();
      emit("S " + s.writerFaults() + " " + s.degraded() + " " + s.flashHits());
    }
  }

  private static void emit(String line) {
    try {
      OUT.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
    } catch (IOException e) {
      Runtime.getRuntime().halt(4);
    }
  }
}
