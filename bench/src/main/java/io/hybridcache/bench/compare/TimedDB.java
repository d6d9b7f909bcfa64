package io.hybridcache.bench.compare;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * A YCSB {@link DB} that times each call of the one it wraps into {@link OpStats}. As thread-safe
 * as the wrapped DB (YCSB gives each client thread its own).
 */
final class TimedDB extends DB {
  private final DB db;
  private final OpStats stats;

  TimedDB(DB db, OpStats stats) {
    this.db = db;
    this.stats = stats;
  }

  @Override
  public void setProperties(Properties p) {
    super.setProperties(p);
    db.setProperties(p);
  }

  @Override
  public void init() throws DBException {
    db.init();
  }

  @Override
  public void cleanup() throws DBException {
    db.cleanup();
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    long t0 = System.nanoTime();
    Status s = db.read(table, key, fields, result);
    stats.record(OpStats.Op.READ, s, System.nanoTime() - t0);
    return s;
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                     Vector<HashMap<String, ByteIterator>> result) {
    return db.scan(table, startkey, recordcount, fields, result);
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    long t0 = System.nanoTime();
    Status s = db.update(table, key, values);
    stats.record(OpStats.Op.UPDATE, s, System.nanoTime() - t0);
    return s;
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    long t0 = System.nanoTime();
    Status s = db.insert(table, key, values);
    stats.record(OpStats.Op.INSERT, s, System.nanoTime() - t0);
    return s;
  }

  @Override
  public Status delete(String table, String key) {
    long t0 = System.nanoTime();
    Status s = db.delete(table, key);
    stats.record(OpStats.Op.DELETE, s, System.nanoTime() - t0);
    return s;
  }
}
