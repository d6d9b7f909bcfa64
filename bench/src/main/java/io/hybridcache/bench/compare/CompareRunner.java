package io.hybridcache.bench.compare;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.StatsJson;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import site.ycsb.DB;

/**
 * The child JVM of one store in a comparison ({@link CompareCommand} starts it): opens the store
 * once through {@link KvStoreDB} (one instance per client thread), loads the records, runs each
 * workload for a fixed time after a warm-up, and prints one {@value #RESULT_PREFIX} JSON line per
 * phase on stdout (with {@code --calibrate}, also a {@link NativeBaseline} line of itself before the store
 * closes). Progress goes to stderr. Exits 0 if every phase ran.
 */
@Command(name = "compare-runner", mixinStandardHelpOptions = true)
public final class CompareRunner implements Callable<Integer> {
  /** Start of each result line on stdout. */
  public static final String RESULT_PREFIX = "compare-result ";
  /** Exit code when the load did not finish within --load-seconds. */
  public static final int LOAD_TOO_SLOW = 4;
  /**
   * The phase name of the record covering the whole run, from before the store opened to after it
   * closed: its write amplification counts what a window's does not (writes a phase left pending and the
   * close's flush).
   */
  public static final String WHOLE_RUN = "whole run";

  @Option(names = "--store", required = true)
  String store;

  @Option(names = "--dir", required = true)
  Path dir;

  @Option(names = "--dram", required = true)
  long dram;

  @Option(names = "--disk", required = true)
  long disk;

  @Option(names = "--records", required = true)
  long records;

  @Option(names = "--threads", required = true)
  int threads;

  @Option(names = "--seconds", required = true)
  double seconds;

  @Option(names = "--warmup", required = true)
  double warmup;

  @Option(names = "--load-seconds", required = true, description = "give up a load that takes longer (the store is reported too slow)")
  double loadSeconds;

  @Option(names = "--load-workload", required = true, description = "workload file whose record shape the load uses")
  Path loadWorkload;

  @Option(names = "--workload", required = true, description = "NAME=FILE, in run order (repeatable)")
  Map<String, Path> workloads = new LinkedHashMap<>();

  @Option(names = "--calibrate", paramLabel = "CGROUP_DIR", description = "after the workloads, with the store still open,"
      + " print a calibration line: what this JVM's memory cgroup (this directory) holds beside heap and budget")
  Path calibrate;

  @Option(names = "-p", description = "YCSB property for every phase (repeatable)")
  Map<String, String> extra = new LinkedHashMap<>();

  public static void main(String[] args) {
    System.setProperty("chronicle.analytics.disable", "true");
    System.exit(new CommandLine(new CompareRunner()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    Properties base = read(loadWorkload);
    base.putAll(extra);
    base.setProperty("recordcount", Long.toString(records));
    base.setProperty(KvStoreDB.TYPE, store);
    base.setProperty(KvStoreDB.DIR, dir.toString());
    base.setProperty(KvStoreDB.DRAM_BYTES, Long.toString(dram));
    base.setProperty(KvStoreDB.DISK_BYTES, Long.toString(disk));
    String label = "[" + store + "]";

    OpStats stats = new OpStats();
    List<DB> dbs = new ArrayList<>();
    ProcessIo start = ProcessIo.now();
    long admittedBefore = KvStoreDB.bytesAdmittedTotal();
    long t0 = System.nanoTime();
    int code;
    try {
      for (int i = 0; i < threads; i++) {
        DB db = new TimedDB(new KvStoreDB(), stats);
        db.setProperties(base);
        db.init();
        dbs.add(db);
      }
      KvStore s = KvStoreDB.sharedStore();
      System.err.println(label + " opened: " + (s == null ? "?" : s.describe()));
      PhaseDriver driver = new PhaseDriver(dbs, stats, System.err, label);
      PhaseDriver.Window load = driver.load(base, records, loadSeconds);
      emit(load);
      if (load.ops().operations() < records) {
        System.err.printf("%s load stopped after %.0f s with %,d of %,d records: too slow for this run, workloads skipped%n",
            label, load.seconds(), load.ops().operations(), records);
        return LOAD_TOO_SLOW;
      }
      long operations = load.ops().operations();
      for (Map.Entry<String, Path> e : workloads.entrySet()) {
        Properties p = new Properties();
        p.putAll(base);
        p.putAll(read(e.getValue()));
        p.putAll(extra);
        p.setProperty("recordcount", Long.toString(records));
        System.err.printf("%s %s: %.0f s warm-up, %.0f s measured, %d threads%n", label, e.getKey(), warmup, seconds, threads);
        PhaseDriver.Window w = driver.transactions(e.getKey(), p, warmup, seconds);
        operations += w.ops().operations();
        emit(w);
      }
      if (calibrate != null) {
        System.out.println(NativeBaseline.measure(calibrate, dram).line()); // the store still open
        System.out.flush();
      }
      code = 0;
      for (DB db : dbs) {
        db.cleanup(); // the last one closes the store: its final flush belongs to the whole run
      }
      dbs.clear();
      double secs = (System.nanoTime() - t0) / 1e9;
      emitWholeRun(secs, operations, ProcessIo.now().since(start), KvStoreDB.bytesAdmittedTotal() - admittedBefore);
    } finally {
      for (DB db : dbs) {
        db.cleanup();
      }
    }
    return code;
  }

  private void emitWholeRun(double secs, long operations, ProcessIo io, long admitted) {
    ObjectNode n = StatsJson.MAPPER.createObjectNode();
    n.put("store", store);
    n.put("workload", WHOLE_RUN);
    n.put("seconds", secs);
    n.put("operations", operations);
    n.put("throughput_ops", operations / secs);
    n.put("disk_bytes_written", io.writeBytes());
    n.put("disk_bytes_read", io.readBytes());
    n.put("cancelled_write_bytes", io.cancelledWriteBytes());
    n.put("bytes_admitted", admitted);
    number(n, "write_amplification", admitted == 0 ? Double.NaN : (double) io.netWriteBytes() / admitted);
    n.put("major_faults", io.majorFaults());
    n.put("rss_peak_bytes", io.rssPeakBytes());
    System.out.println(RESULT_PREFIX + n);
    System.out.flush();
    System.err.printf("[%s] whole run: %,d bytes written (%,d cancelled) for %,d bytes put: write amplification %s%n", store,
        io.writeBytes(), io.cancelledWriteBytes(), admitted, n.get("write_amplification"));
  }

  private void emit(PhaseDriver.Window w) {
    KvStore s = KvStoreDB.sharedStore();
    String counters = s == null ? null : s.counters();
    if (counters != null) {
      System.err.println("[" + store + "] after " + w.phase() + ": " + counters);
    }
    ObjectNode n = toJson(store, w);
    System.out.println(RESULT_PREFIX + n);
    System.out.flush();
    System.err.printf("[%s] %s: %,.0f ops/s, read p99 %s us, hit ratio %s, %,d bytes written%n", store, w.phase(),
        w.throughput(), n.get("read_p99_us"), n.get("hit_ratio"), w.io().writeBytes());
  }

  /** One phase's record: the keys of {@code compare --json}. */
  static ObjectNode toJson(String store, PhaseDriver.Window w) {
    ObjectNode n = StatsJson.MAPPER.createObjectNode();
    OpStats.Interval o = w.ops();
    n.put("store", store);
    n.put("workload", w.phase());
    n.put("seconds", w.seconds());
    n.put("operations", o.operations());
    n.put("throughput_ops", w.throughput());
    number(n, "read_p50_us", o.percentileUs(OpStats.Op.READ, 50));
    number(n, "read_p99_us", o.percentileUs(OpStats.Op.READ, 99));
    number(n, "read_p999_us", o.percentileUs(OpStats.Op.READ, 99.9));
    number(n, "update_p99_us", o.percentileUs(OpStats.Op.UPDATE, 99));
    number(n, "insert_p99_us", o.percentileUs(OpStats.Op.INSERT, 99));
    number(n, "hit_ratio", o.hitRatio());
    n.put("reads_found", o.readsFound());
    n.put("reads_missing", o.readsMissing());
    n.put("errors", o.errors());
    n.put("disk_bytes_written", w.io().writeBytes());
    n.put("cancelled_write_bytes", w.io().cancelledWriteBytes());
    n.put("disk_bytes_read", w.io().readBytes());
    n.put("disk_bytes_written_per_op", o.operations() == 0 ? 0 : (double) w.io().writeBytes() / o.operations());
    n.put("disk_bytes_read_per_op", o.operations() == 0 ? 0 : (double) w.io().readBytes() / o.operations());
    n.put("bytes_admitted", w.bytesAdmitted());
    number(n, "write_amplification", w.writeAmplification());
    n.put("major_faults", w.io().majorFaults());
    KvStore s = KvStoreDB.sharedStore();
    n.put("index_bytes", s == null ? -1 : s.indexBytes());
    n.put("index_charge_bytes", s == null ? -1 : s.indexChargeBytes());
    n.put("rss_bytes", w.io().rssBytes());
    n.put("rss_peak_bytes", w.io().rssPeakBytes());
    return n;
  }

  private static void number(ObjectNode n, String key, double v) {
    if (Double.isNaN(v)) {
      n.putNull(key);
    } else {
      n.put(key, v);
    }
  }

  private static Properties read(Path file) throws IOException {
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(file)) {
      p.load(in);
    }
    return p;
  }
}
