package io.hybridcache.bench.ycsb;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import site.ycsb.DB;
import site.ycsb.Workload;
import site.ycsb.WorkloadException;
import site.ycsb.workloads.CoreWorkload;

/**
 * Several YCSB core workloads at once, one per table, each with its own proportions: e.g. a table
 * updated all the time beside one that is mostly read (the placement experiment's mixed run).
 * Thread-safe as YCSB requires: the delegates are CoreWorkloads; routing uses an atomic counter and
 * thread-local randomness.
 *
 * <p>Properties: {@code multitable.tables=hot,cold} (table names), {@code multitable.recordshares}
 * (share of {@code recordcount} per table, default equal), {@code multitable.weights} (share of
 * transactions per table, default equal), and {@code multitable.<table>.<property>=value} to override
 * any core workload property for one table (e.g. {@code multitable.hot.updateproportion=0.9}). Every
 * other property applies to all tables. The load phase inserts each table's share of the records.
 */
public final class MultiTableWorkload extends Workload {
  public static final String PREFIX = "multitable.";

  private final List<CoreWorkload> tables = new ArrayList<>();
  private long[] insertUpTo; // cumulative record counts
  private double[] weightUpTo; // cumulative transaction weights
  private final AtomicLong inserted = new AtomicLong();

  @Override
  public void init(Properties p) throws WorkloadException {
    String list = p.getProperty(PREFIX + "tables", "");
    String[] names = list.isBlank() ? new String[0] : list.split(",");
    if (names.length == 0) {
      throw new WorkloadException(PREFIX + "tables must name at least one table");
    }
    double[] shares = fractions(p.getProperty(PREFIX + "recordshares"), names.length, "recordshares");
    double[] weights = fractions(p.getProperty(PREFIX + "weights"), names.length, "weights");
    long records = Long.parseLong(p.getProperty("recordcount", "0"));
    insertUpTo = new long[names.length];
    weightUpTo = new double[names.length];
    long given = 0;
    double w = 0;
    for (int i = 0; i < names.length; i++) {
      String table = names[i].trim();
      long n = i == names.length - 1 ? records - given : Math.round(records * shares[i]);
      given += n;
      insertUpTo[i] = given;
      w += weights[i];
      weightUpTo[i] = w;
      Properties q = new Properties();
      q.putAll(p);
      String own = PREFIX + table + ".";
      for (String k : p.stringPropertyNames()) {
        if (k.startsWith(own)) {
          q.setProperty(k.substring(own.length()), p.getProperty(k));
        }
      }
      q.setProperty(CoreWorkload.TABLENAME_PROPERTY, table);
      q.setProperty("recordcount", Long.toString(n));
      q.setProperty(Workload.INSERT_COUNT_PROPERTY, Long.toString(n));
      q.setProperty(Workload.INSERT_START_PROPERTY, "0");
      CoreWorkload cw = new CoreWorkload();
      cw.init(q);
      tables.add(cw);
    }
  }

  /** Comma-separated fractions normalized to sum 1 (equal if absent). */
  static double[] fractions(String v, int n, String name) throws WorkloadException {
    double[] f = new double[n];
    if (v == null || v.isBlank()) {
      java.util.Arrays.fill(f, 1.0 / n);
      return f;
    }
    String[] parts = v.split(",");
    if (parts.length != n) {
      throw new WorkloadException(PREFIX + name + " needs " + n + " values, was " + v);
    }
    double sum = 0;
    for (int i = 0; i < n; i++) {
      f[i] = Double.parseDouble(parts[i].trim());
      if (!(f[i] >= 0)) {
        throw new WorkloadException(PREFIX + name + " must be >= 0, was " + v);
      }
      sum += f[i];
    }
    if (sum <= 0) {
      throw new WorkloadException(PREFIX + name + " must not all be 0, was " + v);
    }
    for (int i = 0; i < n; i++) {
      f[i] /= sum;
    }
    return f;
  }

  @Override
  public boolean doInsert(DB db, Object threadstate) {
    long i = inserted.getAndIncrement();
    for (int t = 0; t < insertUpTo.length; t++) {
      if (i < insertUpTo[t]) {
        return tables.get(t).doInsert(db, threadstate);
      }
    }
    return tables.get(tables.size() - 1).doInsert(db, threadstate); // past recordcount: YCSB's own count decides
  }

  @Override
  public boolean doTransaction(DB db, Object threadstate) {
    double r = ThreadLocalRandom.current().nextDouble();
    for (int t = 0; t < weightUpTo.length - 1; t++) {
      if (r < weightUpTo[t]) {
        return tables.get(t).doTransaction(db, threadstate);
      }
    }
    return tables.get(tables.size() - 1).doTransaction(db, threadstate);
  }

  @Override
  public void requestStop() {
    super.requestStop();
    tables.forEach(CoreWorkload::requestStop);
  }

  @Override
  public void cleanup() throws WorkloadException {
    for (CoreWorkload t : tables) {
      t.cleanup();
    }
  }
}
