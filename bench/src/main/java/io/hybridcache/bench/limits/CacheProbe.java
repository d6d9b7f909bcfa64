package io.hybridcache.bench.limits;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.HdrHistogram.Histogram;

/**
 * Measures what the cache gets out of the disk, for comparison with fio in {@link LimitsCommand}:
 *
 * <ul>
 *   <li>{@link #fillAndReopen flash-hit reads}: N entries of 8-byte keys and {@code valueBytes}
 *       values are put into a cache whose DRAM tier is 1 MiB, the cache is closed and reopened
 *       (warm), then T threads get random existing keys for a fixed time. Reported: flash hits per
 *       second, gets per second, get latency (HdrHistogram), the DRAM-hit and miss shares and
 *       device reads per flash hit over the measured interval.
 *   <li>{@link #fill tiny-object reads}: the same reads of a cache filled without a reopen (the
 *       test reads what it filled, in the same open), with filler keys put after the ones read
 *       ({@link SmallObjectReads}); the read result then says which engine and which pages served them.
 *   <li>{@link #insert insert bandwidth}: T threads put unique keys with {@code valueBytes} values
 *       into a cache with a 1 MiB DRAM tier for a fixed time; the clock stops when the flash
 *       tier's flushed bytes ({@link CacheStats#flushBytesWritten()}) have caught up with what it
 *       admitted. Reported: MiB/s of value bytes that went to flash (puts minus entries still in
 *       DRAM minus rejected evictions), of value bytes put, and of bytes the device was written.
 * </ul>
 *
 * Not thread-safe: one measurement at a time. Keys and values: key = 8-byte big-endian index;
 * value = the key followed by filler, checked on every get (a wrong value fails the run).
 */
public final class CacheProbe {
  private static final long MAX_LATENCY_NS = TimeUnit.SECONDS.toNanos(10);

  private final Function<CacheConfig, HybridCache> opener;
  private final PrintStream err;

  public CacheProbe(Function<CacheConfig, HybridCache> opener, PrintStream err) {
    this.opener = opener;
    this.err = err;
  }

  /** Flash-read figures over the measured interval. */
  public record ReadResult(int threads, double flashHitsPerSec, double getsPerSec, double p50Us, double p99Us,
                           double dramHitShare, double missShare, double deviceReadsPerFlashHit, long gets,
                           double pagesPerFlashHit, SmallObjectReads.Split small, double cpuUsPerGet) {}

  /**
   * Insert figures; {@code seconds} runs from the first put until flushes caught up. {@code cpuCores}:
   * the process's CPU seconds per second over the test (all its threads: putting, flushing, reclaim,
   * GC), NaN where the JVM cannot tell; {@code cpuNanosPerPut} the same CPU per put.
   */
  public record InsertResult(int threads, double valueMiBs, double putMiBs, double deviceMiBs, double seconds,
                             long puts, long rejected, long inDram, boolean caughtUp, double cpuCores,
                             double cpuNanosPerPut) {}

  /** CPU nanoseconds this process has used, or -1 where the JVM cannot tell. */
  static long processCpuNanos() {
    return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
        ? os.getProcessCpuTime() : -1;
  }

  static byte[] key(long i) {
    return ByteBuffer.allocate(8).putLong(i).array();
  }

  static byte[] value(long i, int valueBytes) {
    byte[] v = new byte[valueBytes];
    ThreadLocalRandom.current().nextBytes(v);
    ByteBuffer.wrap(v).putLong(0, i);
    return v;
  }

  /** Puts {@code entries} entries into a new cache of {@code config}, closes it and returns it reopened. */
  public HybridCache fillAndReopen(CacheConfig config, long entries, int valueBytes) {
    long t0 = System.nanoTime();
    try (HybridCache c = opener.apply(config)) {
      putRange(c, 0, entries, valueBytes);
    }
    double fill = (System.nanoTime() - t0) / 1e9;
    long t1 = System.nanoTime();
    HybridCache c = opener.apply(config);
    err.printf("limits: filled in %.1f s, closed, reopened in %.2f s: %,d entries on flash%n",
        fill, (System.nanoTime() - t1) / 1e9, c.stats().flashEntries());
    return c;
  }

  /**
   * Puts keys [0, {@code entries}), then {@code filler} keys above them (never read by {@link #read}), into
   * a new cache of {@code config} and returns it open (no reopen: what is read is what this open filled).
   * Dirty entries still in DRAM are flushed before it returns.
   */
  public HybridCache fill(CacheConfig config, long entries, long filler, int valueBytes) {
    long t0 = System.nanoTime();
    HybridCache c = opener.apply(config);
    try {
      putRange(c, 0, entries, valueBytes);
      putRange(c, entries, entries + filler, valueBytes);
      c.flush(); // the dirty entries still in DRAM go to flash now: the reads that follow write nothing
    } catch (RuntimeException | Error e) {
      c.close();
      throw e;
    }
    err.printf("limits: filled %,d + %,d filler entries in %.1f s: %,d entries on flash%n", entries, filler,
        (System.nanoTime() - t0) / 1e9, c.stats().flashEntries());
    return c;
  }

  private void putRange(HybridCache c, long from, long to, int valueBytes) {
    long step = Math.max(1, (to - from) / 5);
    for (long i = from; i < to; i++) {
      c.put(key(i), value(i, valueBytes));
      if ((i + 1 - from) % step == 0) {
        err.printf("limits: filled %,d of %,d entries%n", i + 1 - from, to - from);
      }
    }
  }

  /** {@code threads} threads get random keys in [0, entries) for {@code runtime} after {@code warmup}. */
  public ReadResult read(HybridCache cache, long entries, int valueBytes, int threads, Duration warmup,
                         Duration runtime) throws InterruptedException {
    var measuring = new java.util.concurrent.atomic.AtomicBoolean();
    var stop = new java.util.concurrent.atomic.AtomicBoolean();
    AtomicLong wrong = new AtomicLong();
    List<Histogram> hists = new ArrayList<>();
    long[] ops = new long[threads];
    long[] misses = new long[threads];
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Histogram h = new Histogram(MAX_LATENCY_NS, 3);
      hists.add(h);
      int id = t;
      Thread th = new Thread(() -> {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        long n = 0;
        long miss = 0;
        while (!stop.get()) {
          long i = rnd.nextLong(entries);
          byte[] k = key(i);
          long s = System.nanoTime();
          byte[] v = cache.get(k);
          long d = System.nanoTime() - s;
          if (v != null && (v.length != valueBytes || ByteBuffer.wrap(v).getLong(0) != i)) {
            wrong.incrementAndGet();
          }
          if (measuring.get()) {
            h.recordValue(Math.min(d, MAX_LATENCY_NS));
            n++;
            if (v == null) {
              miss++;
            }
          }
        }
        ops[id] = n;
        misses[id] = miss;
      }, "flash-read-" + t);
      ts.add(th);
      th.start();
    }
    Thread.sleep(warmup.toMillis());
    CacheStats before = cache.stats();
    long cpu0 = processCpuNanos();
    long t0 = System.nanoTime();
    measuring.set(true);
    Thread.sleep(runtime.toMillis());
    measuring.set(false);
    double secs = (System.nanoTime() - t0) / 1e9;
    long cpu1 = processCpuNanos();
    CacheStats after = cache.stats();
    stop.set(true);
    for (Thread th : ts) {
      th.join();
    }
    if (wrong.get() > 0) {
      throw new IllegalStateException(wrong.get() + " gets returned a wrong value");
    }
    Histogram all = new Histogram(MAX_LATENCY_NS, 3);
    long n = 0;
    long miss = 0;
    for (int t = 0; t < threads; t++) {
      all.add(hists.get(t));
      n += ops[t];
      miss += misses[t];
    }
    long flashHits = after.flashHits() - before.flashHits();
    long dramHits = after.dramHits() - before.dramHits();
    long deviceHits = flashHits - (after.bufferHits() - before.bufferHits());
    long deviceReads = after.deviceReads() - before.deviceReads();
    long pages = after.devicePagesRead() - before.devicePagesRead();
    long gets = after.gets() - before.gets();
    return new ReadResult(threads, flashHits / secs, n / secs,
        all.getValueAtPercentile(50) / 1000.0, all.getValueAtPercentile(99) / 1000.0,
        gets == 0 ? Double.NaN : (double) dramHits / gets,
        n == 0 ? Double.NaN : (double) miss / n,
        deviceHits <= 0 ? Double.NaN : (double) deviceReads / deviceHits, n,
        deviceHits <= 0 ? Double.NaN : (double) pages / deviceHits, SmallObjectReads.Split.between(before, after),
        cpu0 < 0 || cpu1 < 0 || n == 0 ? Double.NaN : (cpu1 - cpu0) / 1000.0 / n);
  }

  /** Puts unique keys from {@code threads} threads for {@code runtime} into a new cache of {@code config}. */
  public InsertResult insert(CacheConfig config, int threads, int valueBytes, Duration runtime)
      throws InterruptedException {
    try (HybridCache cache = opener.apply(config)) {
      var stop = new java.util.concurrent.atomic.AtomicBoolean();
      long[] puts = new long[threads];
      List<Thread> ts = new ArrayList<>();
      long cpu0 = processCpuNanos();
      long t0 = System.nanoTime();
      for (int t = 0; t < threads; t++) {
        int id = t;
        Thread th = new Thread(() -> {
          byte[] v = value(id, valueBytes);
          long n = 0;
          while (!stop.get()) {
            long i = ((long) id << 48) | n;
            cache.put(key(i), v);
            n++;
          }
          puts[id] = n;
        }, "insert-" + t);
        ts.add(th);
        th.start();
      }
      Thread.sleep(runtime.toMillis());
      stop.set(true);
      for (Thread th : ts) {
        th.join();
      }
      // Wait for the flash tier to write what it admitted (less than one write buffer may stay
      // buffered until close), or for its flushed bytes to stop moving.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      CacheStats s = cache.stats();
      long lastFlushed = s.flushBytesWritten();
      long lastMove = System.nanoTime();
      boolean caughtUp = false;
      while (System.nanoTime() < deadline) {
        if (s.bytesAdmitted() - s.flushBytesWritten() < config.writeBufferBytes()) {
          caughtUp = true;
          break;
        }
        if (System.nanoTime() - lastMove > TimeUnit.MILLISECONDS.toNanos(500)) {
          break;
        }
        Thread.sleep(20);
        s = cache.stats();
        if (s.flushBytesWritten() != lastFlushed) {
          lastFlushed = s.flushBytesWritten();
          lastMove = System.nanoTime();
        }
      }
      double secs = (System.nanoTime() - t0) / 1e9;
      long cpu1 = processCpuNanos();
      double cpuNanos = cpu0 < 0 || cpu1 < 0 ? Double.NaN : cpu1 - cpu0;
      long total = 0;
      for (long p : puts) {
        total += p;
      }
      long rejected = s.admissionRejected() + s.queueRejected() + s.tooLargeRejected() + s.degradedRejected();
      long flashed = Math.max(0, total - s.dramEntries() - rejected);
      double mib = 1024.0 * 1024.0;
      return new InsertResult(threads, flashed * (double) valueBytes / secs / mib,
          total * (double) valueBytes / secs / mib,
          (s.flushBytesWritten() + s.reclaimBytesWritten()) / secs / mib, secs, total, rejected,
          s.dramEntries(), caughtUp, cpuNanos / 1e9 / secs, total == 0 ? Double.NaN : cpuNanos / total);
    }
  }
}
