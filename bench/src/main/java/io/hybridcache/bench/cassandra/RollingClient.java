package io.hybridcache.bench.cassandra;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.HdrHistogram.ConcurrentHistogram;
import site.ycsb.generator.ZipfianGenerator;

/**
 * The client of the rolling-restart experiment: loads {@code records} partitions of YCSB's shape
 * (10 text fields of 100 B) at QUORUM, then runs the transactional mix (95% reads, 5% updates of
 * {@code field0}, QUORUM both, YCSB's "latest" skew: a Zipfian over the newest keys) from
 * {@code threads} threads until {@link #close}, through every restart, and checks every read.
 *
 * <p><b>Read-your-writes checker.</b> {@code field0} starts with the partition's version. Writes of
 * one key are serialized (a lock stripe per key), so versions and the driver's monotonic client
 * timestamps rise together; after a write is acknowledged its version is the key's floor. A read
 * takes the floor before it is sent and must return that version or a newer one: anything older is
 * a stale read (counted, the first ones kept with key and versions). A read that finds no row at all is
 * a missing read, counted and kept apart: every partition was written and acknowledged at QUORUM by
 * {@link #load} before the workers start and nothing deletes one, so a missing partition is lost data
 * (or a cache that answers "no such partition"), a different fault from an old version. A read or
 * write that fails (timeout, unavailable) is an error, counted apart: never stale nor missing.
 *
 * <p><b>Figures.</b> Per second since {@link #start}: reads, updates, errors, stale reads; per 10 s
 * window (window w is [10w, 10w + 10) s; the one now is in is reported up to now): the latency of the
 * reads that returned (HdrHistogram, µs) and, beside it, the reads that failed. A failed read is not put in the latency: an unavailable replica fails a read in under a
 * millisecond, a timeout at the driver's limit, so either way the p99 would say nothing about the
 * reads; the count beside it keeps a window whose reads fail from looking fast. Concurrency: workers
 * only add to striped counters and concurrent histograms; buckets are made on demand in a fixed array
 * (at most {@code maxSeconds}).
 */
final class RollingClient implements AutoCloseable {
  static final int FIELDS = 10;
  static final int FIELD_BYTES = 100;
  static final int HISTOGRAM_SECONDS = 10;
  private static final int STRIPES = 4096;
  private static final int LOAD_ATTEMPTS = 5;

  /** Counters of one second. */
  static final class Second {
    final LongAdder reads = new LongAdder();
    final LongAdder updates = new LongAdder();
    final LongAdder errors = new LongAdder();
    final LongAdder stale = new LongAdder();
  }

  /** One 10 s window's reads: the latency of those that returned, the count of those that failed. */
  static final class Window {
    final ConcurrentHistogram latency = new ConcurrentHistogram(TimeUnit.SECONDS.toMicros(60), 2);
    final LongAdder failedReads = new LongAdder();
  }

  /** A read older than what was acknowledged before it was sent. */
  record StaleRead(String key, long floor, long got, double atSeconds) {}

  /** A read that found no row although the partition was loaded (and acknowledged at {@code floor}). */
  record MissingRead(String key, long floor, double atSeconds) {}

  /** Reads kept of each kind for the report: the first ones only. */
  static final int KEPT = 100;

  private final CqlSession session;
  private final long records;
  private final int threads;
  private final PrintStream log;
  private final AtomicLongArray acked;
  private final AtomicLongArray issued;
  private final Object[] stripes = new Object[STRIPES];
  private final Second[] seconds;
  private final Window[] windows;
  private final ConcurrentLinkedQueue<StaleRead> staleReads = new ConcurrentLinkedQueue<>();
  private final AtomicLong staleCount = new AtomicLong();
  private final ConcurrentLinkedQueue<MissingRead> missingReads = new ConcurrentLinkedQueue<>();
  private final AtomicLong missingCount = new AtomicLong();
  private final AtomicReference<Throwable> lastError = new AtomicReference<>();
  private final List<Thread> workers = new ArrayList<>();
  private final LongSupplier nanoClock;
  private volatile boolean running;
  private long startNanos;
  private PreparedStatement read;
  private PreparedStatement update;

  RollingClient(CqlSession session, long records, int threads, int maxSeconds, PrintStream log) {
    this(session, records, threads, maxSeconds, log, System::nanoTime);
  }

  /** With the clock {@code nanoClock} (a test's: {@link #secondsSinceStart} counts from its 0 until {@link #start}). */
  RollingClient(CqlSession session, long records, int threads, int maxSeconds, PrintStream log,
                LongSupplier nanoClock) {
    if (records < 1 || records > Integer.MAX_VALUE || threads < 1 || maxSeconds < 1) {
      throw new IllegalArgumentException("records in 1.." + Integer.MAX_VALUE + ", threads and maxSeconds >= 1, were "
          + records + ", " + threads + ", " + maxSeconds);
    }
    this.session = session;
    this.records = records;
    this.threads = threads;
    this.log = log;
    this.nanoClock = nanoClock;
    this.acked = new AtomicLongArray((int) records);
    this.issued = new AtomicLongArray((int) records);
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new Object();
    }
    this.seconds = new Second[maxSeconds];
    this.windows = new Window[maxSeconds / HISTOGRAM_SECONDS + 1];
  }

  static String key(long id) {
    return "user" + id;
  }

  /** Field {@code f} of key {@code id} at {@code version}: field0 carries the version, the rest fixed bytes. */
  static String field(long id, int f, long version) {
    StringBuilder sb = new StringBuilder(FIELD_BYTES);
    if (f == 0) {
      sb.append('v').append(version).append('|');
    }
    SplittableRandom r = new SplittableRandom(id * 31 + f);
    while (sb.length() < FIELD_BYTES) {
      sb.append((char) ('a' + r.nextInt(26)));
    }
    return sb.toString();
  }

  /** The version at the head of a field0, or -1 if it has none. */
  static long version(String field0) {
    if (field0 == null || field0.isEmpty() || field0.charAt(0) != 'v') {
      return -1;
    }
    int bar = field0.indexOf('|');
    try {
      return Long.parseLong(field0.substring(1, bar < 0 ? field0.length() : bar));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * Inserts every record at version 0, QUORUM, {@code inFlight} at a time, each retried up to 5 times;
   * progress every 10%.
   */
  void load(int inFlight) throws InterruptedException {
    StringBuilder cql = new StringBuilder("INSERT INTO ycsb.usertable (y_id");
    for (int f = 0; f < FIELDS; f++) {
      cql.append(", field").append(f);
    }
    cql.append(") VALUES (?").append(", ?".repeat(FIELDS)).append(')');
    PreparedStatement insert = session.prepare(cql.toString());
    Semaphore permits = new Semaphore(inFlight);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long t0 = nanoClock.getAsLong();
    long step = Math.max(1, records / 10);
    for (long id = 0; id < records && failure.get() == null; id++) {
      Object[] values = new Object[FIELDS + 1];
      values[0] = key(id);
      for (int f = 0; f < FIELDS; f++) {
        values[f + 1] = field(id, f, 0);
      }
      BoundStatement b = insert.bind(values).setConsistencyLevel(ConsistencyLevel.QUORUM);
      permits.acquire();
      insert(b, 1, permits, failure);
      if ((id + 1) % step == 0) {
        log.printf(Locale.ROOT, "cassandra-rolling: loaded %,d of %,d records (%.0f/s)%n", id + 1, records,
            (id + 1) / ((nanoClock.getAsLong() - t0) / 1e9));
      }
    }
    permits.acquire(inFlight);
    permits.release(inFlight);
    if (failure.get() != null) {
      throw new IllegalStateException("the load failed: " + failure.get(), failure.get());
    }
  }

  /** One insert, retried (it is idempotent) up to {@link #LOAD_ATTEMPTS} times on a timeout or an unavailable replica. */
  private void insert(BoundStatement b, int attempt, Semaphore permits, AtomicReference<Throwable> failure) {
    session.executeAsync(b).whenComplete((rs, e) -> {
      if (e == null) {
        permits.release();
      } else if (attempt < LOAD_ATTEMPTS) {
        insert(b, attempt + 1, permits, failure);
      } else {
        failure.compareAndSet(null, e);
        permits.release();
      }
    });
  }

  /** Starts the workers; the clock of {@link #secondsSinceStart} starts here. */
  synchronized void start() {
    if (running) {
      throw new IllegalStateException("started already");
    }
    read = session.prepare("SELECT field0, field1, field2, field3, field4, field5, field6, field7, field8, field9"
        + " FROM ycsb.usertable WHERE y_id = ?");
    update = session.prepare("UPDATE ycsb.usertable SET field0 = ? WHERE y_id = ?");
    startNanos = nanoClock.getAsLong();
    running = true;
    ZipfianGenerator zipf = new ZipfianGenerator(records);
    for (int t = 0; t < threads; t++) {
      Thread w = new Thread(() -> work(zipf), "rolling-client-" + t);
      w.setDaemon(true);
      workers.add(w);
      w.start();
    }
  }

  double secondsSinceStart() {
    return (nanoClock.getAsLong() - startNanos) / 1e9;
  }

  private void work(ZipfianGenerator zipf) {
    SplittableRandom r = new SplittableRandom();
    while (running) {
      long id = records - 1 - Math.min(records - 1, zipf.nextValue()); // "latest": the newest keys are hot
      try {
        if (r.nextInt(100) < 5) {
          update(id);
        } else {
          read(id);
        }
      } catch (RuntimeException e) {
        lastError.set(e);
        second().errors.increment();
      }
    }
  }

  private void update(long id) {
    synchronized (stripes[(int) (id % STRIPES)]) {
      long v = issued.incrementAndGet((int) id);
      session.execute(update.bind(field(id, 0, v), key(id)).setConsistencyLevel(ConsistencyLevel.QUORUM));
      acked.accumulateAndGet((int) id, v, Math::max);
    }
    second().updates.increment();
  }

  private void read(long id) {
    long floor = acked.get((int) id);
    long t0 = nanoClock.getAsLong();
    Row row;
    try {
      row = session.execute(read.bind(key(id)).setConsistencyLevel(ConsistencyLevel.QUORUM)).one();
    } catch (RuntimeException e) {
      readFailed();
      throw e; // an error too, counted by the worker
    }
    long us = (nanoClock.getAsLong() - t0) / 1000;
    readReturned(id, floor, row != null, row == null ? -1 : version(row.getString("field0")), us);
  }

  /**
   * Accounts one read of key {@code id} that returned after {@code micros}: {@code found} whether a row came
   * back, {@code got} the version of its field0 (-1 if none), {@code floor} the version acknowledged before
   * it was sent.
   */
  void readReturned(long id, long floor, boolean found, long got, long micros) {
    Second s = second();
    s.reads.increment();
    window().latency.recordValue(Math.max(1, micros));
    if (!found) {
      keep(missingCount, missingReads, new MissingRead(key(id), floor, secondsSinceStart()));
    } else if (got < floor) {
      s.stale.increment();
      keep(staleCount, staleReads, new StaleRead(key(id), floor, got, secondsSinceStart()));
    }
  }

  /** Accounts one read that failed (timeout, unavailable) in its window. */
  void readFailed() {
    window().failedReads.increment();
  }

  /** Counts {@code read} and keeps it if it is among the first {@link #KEPT}. */
  private static <T> void keep(AtomicLong count, ConcurrentLinkedQueue<T> kept, T read) {
    if (count.incrementAndGet() <= KEPT) {
      kept.add(read);
    }
  }

  private Second second() {
    return bucket(seconds, 1_000_000_000L, Second::new);
  }

  private Window window() {
    return bucket(windows, HISTOGRAM_SECONDS * 1_000_000_000L, Window::new);
  }

  /** The bucket of {@code buckets} (each {@code nanosEach} long, the last one open-ended) for now, made on demand. */
  private <T> T bucket(T[] buckets, long nanosEach, Supplier<T> make) {
    int i = (int) Math.min(buckets.length - 1, (nanoClock.getAsLong() - startNanos) / nanosEach);
    T b = buckets[i];
    if (b == null) {
      synchronized (buckets) {
        b = buckets[i];
        if (b == null) {
          b = make.get();
          buckets[i] = b;
        }
      }
    }
    return b;
  }

  /** Operations (reads + updates) completed in each whole second so far, from {@link #start}. */
  long[] opsPerSecond() {
    int n = (int) Math.min(seconds.length, (long) secondsSinceStart());
    long[] ops = new long[n];
    for (int i = 0; i < n; i++) {
      Second s = seconds[i];
      ops[i] = s == null ? 0 : s.reads.sum() + s.updates.sum();
    }
    return ops;
  }

  /**
   * The p99 in µs of the reads that returned, per 10 s window begun so far, the current one (up to now) included
   * (NaN for a window without one).
   */
  double[] readP99PerWindow() {
    double[] p99 = new double[windowsSoFar()];
    for (int i = 0; i < p99.length; i++) {
      p99[i] = windows[i] == null || windows[i].latency.getTotalCount() == 0 ? Double.NaN
          : windows[i].latency.getValueAtPercentile(99);
    }
    return p99;
  }

  /** Reads that failed (timeout, unavailable) per 10 s window begun so far, beside {@link #readP99PerWindow}. */
  long[] failedReadsPerWindow() {
    long[] failed = new long[windowsSoFar()];
    for (int i = 0; i < failed.length; i++) {
      failed[i] = windows[i] == null ? 0 : windows[i].failedReads.sum();
    }
    return failed;
  }

  /** The windows begun so far: the complete ones and the one now is in (none at the very start). */
  private int windowsSoFar() {
    return (int) Math.min(windows.length, (long) Math.ceil(secondsSinceStart() / HISTOGRAM_SECONDS));
  }

  /** The start of the first 10 s window that begins at or after {@code seconds}. */
  static double windowStartFrom(double seconds) {
    return Math.ceil(seconds / HISTOGRAM_SECONDS) * HISTOGRAM_SECONDS;
  }

  /**
   * Waits until the next 10 s window begins (returns at once on a window's start) and returns that start, in
   * seconds since {@link #start}: a round that starts there owns whole windows.
   */
  double awaitWindowStart() throws InterruptedException {
    double next = windowStartFrom(secondsSinceStart());
    for (double now = secondsSinceStart(); now < next; now = secondsSinceStart()) {
      TimeUnit.NANOSECONDS.sleep(Math.max(1_000_000, (long) ((next - now) * 1e9)));
    }
    return next;
  }

  long staleReads() {
    return staleCount.get();
  }

  List<StaleRead> firstStaleReads() {
    return List.copyOf(staleReads);
  }

  /** Reads that found no row (never counted as stale). */
  long missingReads() {
    return missingCount.get();
  }

  List<MissingRead> firstMissingReads() {
    return List.copyOf(missingReads);
  }

  long reads() {
    long n = 0;
    for (Second s : seconds) {
      n += s == null ? 0 : s.reads.sum();
    }
    return n;
  }

  long errors() {
    long n = 0;
    for (Second s : seconds) {
      n += s == null ? 0 : s.errors.sum();
    }
    return n;
  }

  /** The last failed operation's exception, for the log; null if none failed. */
  Throwable lastError() {
    return lastError.get();
  }

  /** Stops the workers (each finishes its operation; bounded by the driver's request timeout). */
  @Override
  public void close() throws InterruptedException {
    running = false;
    for (Thread w : workers) {
      w.join(TimeUnit.SECONDS.toMillis(60));
    }
  }
}
