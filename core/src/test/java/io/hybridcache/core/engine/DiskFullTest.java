package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.device.SmallTmpfs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 25 item 0, as a new user met it: a cache with the compact index (the default) on a small file
 * system (a 40 MiB tmpfs) that another writer fills while four threads put, get and remove. Every call
 * must return within the close timeout (no lock left held by a fault), the tier degrades on the full disk
 * and comes back once the space returns, no Throwable reaches a caller, and {@code close()} returns.
 *
 * <p>Every wait of the test itself is bounded: a call that does not return in time fails the test with
 * the stuck thread's stack instead of hanging it (stats() and close() run on helper threads for that).
 */
@Timeout(300)
class DiskFullTest {
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);
  private static final long CALL_LIMIT_NANOS = CLOSE_TIMEOUT.toNanos();
  private static final long PHASE_NANOS = TimeUnit.SECONDS.toNanos(90);
  /** Few enough that most puts replace a key on flash: each such put journals an invalidation. */
  private static final int KEYS = 4_000;
  /** Small mode: 10x the DRAM tier, about the small engine's room. */
  private static final int SMALL_KEYS = 40_000;
  /** Calls made while the disk stays full: enough to journal well past a half of the journal. */
  private static final long PUTS_WHILE_FULL = 60_000;
  private static final int THREADS = 4;
  private static final long MIB = 1 << 20;
  private static final int SLOTS = 16;

  private SmallTmpfs tmpfs;
  /** Small values (60..300 B) into the small-object engine, each caller checking its own keys' versions. */
  private boolean small;
  private final ConcurrentLinkedQueue<String> older = new ConcurrentLinkedQueue<>();
  private final List<Worker> workers = new ArrayList<>();
  private final ConcurrentLinkedQueue<String> thrown = new ConcurrentLinkedQueue<>();
  private volatile boolean stop;

  @BeforeEach
  void mount() throws Exception {
    tmpfs = SmallTmpfs.mount("40m");
  }

  @AfterEach
  void unmount() throws Exception {
    stop = true;
    for (Worker w : workers) {
      w.thread.join(TimeUnit.NANOSECONDS.toMillis(CALL_LIMIT_NANOS));
    }
    if (tmpfs != null) {
      tmpfs.close();
    }
  }

  /** One caller thread: puts, gets and removes random keys, timing each call. */
  private final class Worker implements Runnable {
    final Thread thread;
    final Engine cache;
    volatile long callStarted; // 0 between calls
    volatile String call = "";
    final AtomicLong longestNanos = new AtomicLong();
    final AtomicLong calls = new AtomicLong();

    final int n;

    Worker(Engine cache, int n) {
      this.cache = cache;
      this.n = n;
      this.thread = new Thread(this, "disk-full-caller-" + n);
      thread.setDaemon(true); // a thread stuck for ever must not keep the test JVM alive
      thread.setUncaughtExceptionHandler((t, e) -> thrown.add(t.getName() + " died: " + e));
    }

    @Override
    public void run() {
      ThreadLocalRandom r = ThreadLocalRandom.current();
      long version = 0;
      long[] lastPut = new long[SMALL_KEYS]; // of this caller's keys (small mode): 0 = removed or never put
      while (!stop) {
        int k = small ? r.nextInt(SMALL_KEYS / THREADS) * THREADS + n : r.nextInt(KEYS);
        int op = r.nextInt(10);
        call = op < 6 ? "put" : op < 9 ? "get" : "remove";
        long t0 = System.nanoTime();
        callStarted = t0;
        try {
          if (op < 6) {
            cache.put(key(k), value(k, ++version, small ? 60 + r.nextInt(240) : 1024 + r.nextInt(2048)));
            lastPut[k] = version;
          } else if (op < 9) {
            byte[] v = cache.get(key(k));
            if (small && v != null && TestCaches.versionOf(k, v) != lastPut[k]) {
              older.add("key " + k + ": read version " + TestCaches.versionOf(k, v) + ", last put " + lastPut[k]);
            }
          } else {
            cache.remove(key(k));
            lastPut[k] = 0;
          }
        } catch (Throwable t) {
          thrown.add(thread.getName() + " " + call + ": " + t);
        } finally {
          callStarted = 0;
        }
        longestNanos.accumulateAndGet(System.nanoTime() - t0, Math::max);
        calls.incrementAndGet();
      }
    }

    /** Null, or why this thread is stuck: dead, or a call running longer than the limit, with its stack. */
    String stuck() {
      if (!thread.isAlive() && !stop) {
        return thread.getName() + " died";
      }
      long started = callStarted;
      if (started == 0 || System.nanoTime() - started < CALL_LIMIT_NANOS) {
        return null;
      }
      return thread.getName() + " blocked for " + (System.nanoTime() - started) / 1_000_000 + " ms in " + call
          + " (state " + thread.getState() + "):\n" + stack(thread);
    }
  }

  /** The disk fills while slot files are still being allocated: new segments fail, the tier degrades. */
  @Test
  void aDiskFilledBeforeEverySlotIsAllocatedDegradesRecoversAndNeverHangs() throws Exception {
    Engine cache = start();
    awaitStats(cache, "4 MiB written to flash", s -> s.flushBytesWritten() >= 4 * MIB);

    Path filler = tmpfs.root().resolve("filler");
    long filled = fill(filler);
    CacheStats degraded = awaitStats(cache, "the tier degraded on the full disk", CacheStats::degraded);
    CacheStats full = holdFull(cache, degraded);

    Files.delete(filler); // the space returns
    CacheStats back = awaitStats(cache, "the tier back in service, writing again",
        s -> !s.degraded() && s.flushBytesWritten() >= full.flushBytesWritten() + 2 * MIB);
    String figures = stopAndClose(cache, filled, full, back);
    assertTrue(full.ioErrors() > 0, "the full disk shows as I/O errors: " + figures);
  }

  /**
   * The disk fills once every slot file is allocated (the held-out run's second case): segment writes go
   * on, the index checkpoints fail and are retried with back-off, not on every maintenance turn.
   */
  @Test
  void aDiskFilledOnceEverySlotIsAllocatedCostsOnlyCheckpointsRetriedWithBackOff() throws Exception {
    Engine cache = start();
    Path segments = tmpfs.root().resolve("cache").resolve(OwnedFiles.SEGMENTS);
    awaitStats(cache, "every slot file allocated", s -> slotFiles(segments) == SLOTS);

    Path filler = tmpfs.root().resolve("filler");
    long filled = fill(filler);
    CacheStats failing = awaitStats(cache, "a checkpoint failing on the full disk", s -> s.checkpointFailures() > 0);
    long t0 = System.nanoTime();
    CacheStats full = holdFull(cache, failing);
    double heldSeconds = (System.nanoTime() - t0) / 1e9;

    Files.delete(filler);
    CacheStats back = awaitStats(cache, "a checkpoint durable again", s -> s.checkpoints() > full.checkpoints());
    String figures = stopAndClose(cache, filled, full, back);
    long retries = full.checkpointFailures() - failing.checkpointFailures();
    assertTrue(retries <= 2 + Math.log(1 + heldSeconds) / Math.log(2), retries + " retries in " + heldSeconds
        + " s: a back-off doubling from 1 s allows about log2 of the time: " + figures);
    assertFalse(back.degraded(), "no segment write failed: " + figures);
  }

  /**
   * Issue 27's twin: the small-object engine on a disk filled right after the open, before its slot files
   * are allocated (they are, on their first write): its writes fail and are counted, nothing hangs or
   * throws, no caller reads a version other than its last put, and it writes again once the space
   * returns. Then a close on a refilled disk: its checkpoint is saved whole or not at all (no temp file
   * left), and the next open is warm exactly when one was saved. (Whether it fits depends on what the
   * close frees first, e.g. the log engine's failed checkpoint deletes its temp file: both outcomes occur.)
   */
  @Test
  void aDiskFilledUnderTheSmallObjectEngineNeverHangsNorServesAnOlderVersion() throws Exception {
    small = true;
    Engine cache = open();
    Path filler = tmpfs.root().resolve("filler");
    long filled = fill(filler);
    startWorkers(cache);
    CacheStats errors = awaitStats(cache, "the small engine's writes failing", s -> s.smallObjects().ioErrors() > 0);
    CacheStats full = holdFull(cache, errors);
    Files.delete(filler);
    CacheStats back = awaitStats(cache, "the small engine writing again",
        s -> s.smallObjects().bytesWritten() >= full.smallObjects().bytesWritten() + MIB);
    fill(filler); // the close's checkpoint meets a full disk
    String figures = stopAndClose(cache, filled, full, back);
    assertEquals(List.of(), older.stream().limit(5).toList(), "never another version: " + figures);
    assertTrue(back.smallObjects().hits() > 0, "the small engine served: " + figures);
    Path small = tmpfs.root().resolve("cache").resolve(OwnedFiles.SMALL);
    assertFalse(Files.exists(small.resolve(SmallCheckpoint.FILE + ".tmp")), "a failed checkpoint leaves no temp file");
    boolean saved = Files.exists(small.resolve(SmallCheckpoint.FILE));
    System.out.println("DiskFullTest: the small engine's checkpoint " + (saved ? "fit" : "did not fit") + " on the refilled disk");
    Files.delete(filler);
    try (Engine again = Engine.open(config())) {
      assertEquals(saved, again.smallTier().openedWarm(), "warm exactly when the close saved a checkpoint");
    }
  }

  private Engine start() {
    Engine cache = open();
    startWorkers(cache);
    return cache;
  }

  private void startWorkers(Engine cache) {
    for (int i = 0; i < THREADS; i++) {
      workers.add(new Worker(cache, i));
    }
    workers.forEach(w -> w.thread.start());
  }

  private Engine open() {
    return Engine.open(config());
  }

  private CacheConfig config() {
    return CacheConfig.builder(tmpfs.root().resolve("cache"))
        .indexType(IndexType.HEAP)
        .dramBytes(2 * MIB)
        .flashBytes(SLOTS * MIB)
        .segmentBytes(MIB)
        .writeBufferBytes(64 * 1024)
        .expectedEntries(100_000)
        .faultRetryInterval(Duration.ofMillis(500))
        .closeTimeout(CLOSE_TIMEOUT)
        .smallObjectShare(small ? 0.5 : 0)
        .jmx(false)
        .build();
  }

  /** Keeps the disk full for {@link #PUTS_WHILE_FULL} puts after {@code from}. */
  private CacheStats holdFull(Engine cache, CacheStats from) throws Exception {
    return awaitStats(cache, PUTS_WHILE_FULL + " puts on the full disk",
        s -> s.puts() >= from.puts() + PUTS_WHILE_FULL);
  }

  /** Stops the callers (each within the call limit) and closes the cache (within its timeout); the figures. */
  private String stopAndClose(Engine cache, long filled, CacheStats full, CacheStats back) throws Exception {
    stop = true;
    for (Worker w : workers) {
      w.thread.join(TimeUnit.NANOSECONDS.toMillis(CALL_LIMIT_NANOS) + 1_000);
      String stuck = w.stuck();
      if (stuck != null) {
        fail(stuck);
      }
    }
    bounded("close()", () -> {
      cache.close();
      return null;
    }, CLOSE_TIMEOUT.toNanos() + TimeUnit.SECONDS.toNanos(10));

    String figures = "filler " + filled / MIB + " MiB; while full " + full + "; after " + back + "; calls "
        + workers.stream().mapToLong(w -> w.calls.get()).sum() + ", longest call "
        + workers.stream().mapToLong(w -> w.longestNanos.get()).max().orElse(0) / 1_000_000 + " ms";
    System.out.println("DiskFullTest: " + figures);
    assertEquals("0 Throwables", thrown(), "no call throws: " + figures);
    assertEquals(0, back.writerFaults(), "a full disk is an I/O error, never a fault: " + figures);
    for (Worker w : workers) {
      assertTrue(w.longestNanos.get() < CALL_LIMIT_NANOS, w.thread.getName() + " waited "
          + w.longestNanos.get() / 1_000_000 + " ms: " + figures);
    }
    return figures;
  }

  private static long slotFiles(Path segments) {
    try (java.util.stream.Stream<Path> files = Files.list(segments)) {
      return files.count();
    } catch (IOException e) {
      return -1;
    }
  }

  /** How many Throwables reached the callers, and the first three. */
  private String thrown() {
    return thrown.size() + " Throwables" + (thrown.isEmpty() ? "" : ", first " + thrown.stream().limit(3).toList());
  }

  /** Writes {@code file} until the file system is full; returns its size. */
  private static long fill(Path file) throws IOException {
    ByteBuffer chunk = ByteBuffer.allocateDirect(64 * 1024);
    long written = 0;
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      while (true) {
        chunk.clear();
        written += ch.write(chunk);
      }
    } catch (IOException e) {
      if (!String.valueOf(e.getMessage()).contains("No space left")) {
        throw e;
      }
    }
    return written;
  }

  /**
   * Waits until {@code stats()} satisfies {@code done}, at most {@link #PHASE_NANOS}; fails at once if a
   * caller is stuck or stats() itself does not return in time.
   */
  private CacheStats awaitStats(Engine cache, String what, Predicate<CacheStats> done) throws Exception {
    long deadline = System.nanoTime() + PHASE_NANOS;
    CacheStats s;
    while (!done.test(s = bounded("stats()", cache::stats, CALL_LIMIT_NANOS))) {
      for (Worker w : workers) {
        String stuck = w.stuck();
        if (stuck != null) {
          fail("waiting for " + what + ": " + stuck + "\nthrown: " + thrown() + "\nstats " + s);
        }
      }
      if (System.nanoTime() - deadline > 0) {
        fail("no " + what + " within " + TimeUnit.NANOSECONDS.toSeconds(PHASE_NANOS) + " s: " + s + "\nthrown: "
            + thrown());
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // a poll of a condition, with a deadline
    }
    return s;
  }

  /** Runs {@code call} on a helper thread; fails with its stack if it does not return within {@code nanos}. */
  private static <T> T bounded(String what, Callable<T> call, long nanos) throws Exception {
    FutureTask<T> task = new FutureTask<>(call);
    Thread t = new Thread(task, "disk-full-" + what);
    t.setDaemon(true);
    t.start();
    try {
      return task.get(nanos, TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      return fail(what + " did not return within " + nanos / 1_000_000 + " ms:\n" + stack(t));
    }
  }

  private static String stack(Thread t) {
    StringBuilder b = new StringBuilder();
    Arrays.stream(t.getStackTrace()).limit(40).forEach(f -> b.append("    at ").append(f).append('\n'));
    return b.toString();
  }
}
