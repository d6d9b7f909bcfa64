package io.hybridcache.bench.compare;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import site.ycsb.DB;
import site.ycsb.Workload;
import site.ycsb.WorkloadException;
import site.ycsb.measurements.Measurements;
import site.ycsb.workloads.CoreWorkload;

/**
 * Drives YCSB's {@link CoreWorkload} over a fixed set of client DBs (one per thread, kept for the
 * whole comparison so the store stays open and DRAM-only stores keep their data): a load of N
 * records, then time-bounded transaction phases with an unmeasured warm-up. Measurement is this
 * class's own ({@link TimedDB}, {@link OpStats}), not YCSB's global {@link Measurements}.
 *
 * <p>Not thread-safe: one phase at a time, from one caller; each phase starts and joins its own
 * worker threads, one per DB.
 */
final class PhaseDriver {
  private static final long STATUS_NANOS = 5_000_000_000L;
  private final List<DB> dbs;
  private final OpStats stats;
  private final PrintStream err;
  private final String label;

  /** {@code dbs} are {@link TimedDB}s recording into {@code stats}, initialised. */
  PhaseDriver(List<DB> dbs, OpStats stats, PrintStream err, String label) {
    this.dbs = dbs;
    this.stats = stats;
    this.err = err;
    this.label = label;
  }

  /** One measured window. */
  record Window(String phase, double seconds, OpStats.Interval ops, ProcessIo io, long bytesAdmitted) {
    double throughput() {
      return ops.operations() / seconds;
    }

    /** Device bytes written (less cancelled ones) per byte put into the store; NaN when nothing was put. */
    double writeAmplification() {
      return bytesAdmitted == 0 ? Double.NaN : (double) io.netWriteBytes() / bytesAdmitted;
    }
  }

  /**
   * Inserts {@code records} records ({@code props} describe them) with all threads, stopping early
   * after {@code maxSeconds}: the window's operations then fall short of {@code records}.
   */
  Window load(Properties props, long records, double maxSeconds) throws Exception {
    Workload w = workload(props);
    AtomicLong left = new AtomicLong(records);
    stats.interval();
    KvStoreDB.bytesAdmittedThenReset();
    ProcessIo io0 = ProcessIo.now();
    long t0 = System.nanoTime();

    run("load", w, props, t0 + (long) (maxSeconds * 1e9), (db, state) -> {
      if (left.getAndDecrement() <= 0) {
        return false;
      }
      if (!w.doInsert(db, state)) {
        throw new IllegalStateException("insert failed (see the store's error above)");
      }
      return true;
    });
    double secs = (System.nanoTime() - t0) / 1e9;
    return new Window("load", secs, stats.interval(), ProcessIo.now().since(io0), KvStoreDB.bytesAdmittedThenReset());
  }

  /**
   * Runs the transactions {@code props} describe for {@code warmupSeconds} unmeasured, then
   * {@code seconds} measured.
   */
  Window transactions(String phase, Properties props, double warmupSeconds, double seconds) throws Exception {
    Workload w = workload(props);
    long start = System.nanoTime();
    long measureFrom = start + (long) (warmupSeconds * 1e9);
    long end = measureFrom + (long) (seconds * 1e9);
    AtomicReference<ProcessIo> io0 = new AtomicReference<>();
    AtomicLong measuredStart = new AtomicLong();
    Thread marker = new Thread(() -> {
      try {
        sleepUntil(measureFrom);
        stats.interval(); // drop the warm-up
        KvStoreDB.bytesAdmittedThenReset();
        io0.set(ProcessIo.now());
        measuredStart.set(System.nanoTime());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "compare-warmup-marker");
    marker.start();
    run(phase, w, props, end, (db, state) -> {
      if (!w.doTransaction(db, state)) {
        throw new IllegalStateException("transaction failed (see the store's error above)");
      }
      return true;
    });
    marker.join();
    double secs = (System.nanoTime() - measuredStart.get()) / 1e9;
    return new Window(phase, secs, stats.interval(), ProcessIo.now().since(io0.get()), KvStoreDB.bytesAdmittedThenReset());
  }

  private static void sleepUntil(long nanoTime) throws InterruptedException {
    long left;
    while ((left = nanoTime - System.nanoTime()) > 0) {
      Thread.sleep(Math.max(1, left / 1_000_000));
    }
  }

  private static Workload workload(Properties props) throws WorkloadException {
    Measurements.setProperties(props);
    CoreWorkload w = new CoreWorkload();
    w.init(props);
    return w;
  }

  /** One step of a worker: false = the phase is done. */
  private interface Step {
    boolean run(DB db, Object threadState) throws Exception;
  }

  /** Runs {@code step} on every DB's thread until it says done or {@code endNanos} passes. */
  private void run(String phase, Workload w, Properties props, long endNanos, Step step) throws Exception {
    AtomicLong done = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < dbs.size(); i++) {
      DB db = dbs.get(i);
      Object state = w.initThread(props, i, dbs.size());
      Thread t = new Thread(() -> {
        try {
          while (failure.get() == null && System.nanoTime() < endNanos && step.run(db, state)) {
            done.incrementAndGet();
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }, "compare-" + phase + "-" + i);
      threads.add(t);
      t.start();
    }
    long t0 = System.nanoTime();
    long last = 0;
    long lastAt = t0;
    for (Thread t : threads) {
      while (t.isAlive()) {
        t.join(1_000);
        long now = System.nanoTime();
        if (now - lastAt >= STATUS_NANOS) {
          long n = done.get();
          err.printf("%s %s: %.0f s, %,d ops, %,.0f ops/s%n", label, phase, (now - t0) / 1e9, n,
              (n - last) / ((now - lastAt) / 1e9));
          last = n;
          lastAt = now;
        }
      }
    }
    w.cleanup();
    if (failure.get() != null) {
      throw new IllegalStateException(phase + " failed: " + failure.get(), failure.get());
    }
  }
}
