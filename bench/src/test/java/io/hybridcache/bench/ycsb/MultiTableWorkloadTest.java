package io.hybridcache.bench.ycsb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import org.junit.jupiter.api.Test;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.Status;
import site.ycsb.WorkloadException;

class MultiTableWorkloadTest {
  /** Counts operations per table and kind. */
  static final class CountingDB extends DB {
    final Map<String, Integer> counts = new HashMap<>();

    private Status count(String op, String table) {
      counts.merge(op + ":" + table, 1, Integer::sum);
      return Status.OK;
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
      return count("read", table);
    }

    @Override
    public Status scan(String table, String startkey, int n, Set<String> fields, Vector<HashMap<String, ByteIterator>> r) {
      return count("scan", table);
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
      return count("update", table);
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
      return count("insert", table);
    }

    @Override
    public Status delete(String table, String key) {
      return count("delete", table);
    }
  }

  @Test
  void eachTableGetsItsShareOfRecordsAndItsOwnProportions() throws Exception {
    Properties p = new Properties();
    p.setProperty("recordcount", "1000");
    p.setProperty("fieldcount", "2");
    p.setProperty("fieldlength", "10");
    p.setProperty("multitable.tables", "hot,cold");
    p.setProperty("multitable.recordshares", "3,1");
    p.setProperty("multitable.weights", "1,1");
    p.setProperty("multitable.hot.readproportion", "0");
    p.setProperty("multitable.hot.updateproportion", "1");
    p.setProperty("multitable.cold.readproportion", "1");
    p.setProperty("multitable.cold.updateproportion", "0");
    site.ycsb.measurements.Measurements.setProperties(p); // as site.ycsb.Client does before any workload
    MultiTableWorkload w = new MultiTableWorkload();
    w.init(p);
    CountingDB db = new CountingDB();
    db.setProperties(new Properties());
    for (int i = 0; i < 1000; i++) {
      assertTrue(w.doInsert(db, null));
    }
    assertEquals(750, db.counts.get("insert:hot"));
    assertEquals(250, db.counts.get("insert:cold"));
    for (int i = 0; i < 4000; i++) {
      w.doTransaction(db, null);
    }
    int hot = db.counts.getOrDefault("update:hot", 0);
    int cold = db.counts.getOrDefault("read:cold", 0);
    assertEquals(4000, hot + cold, "hot only updates, cold only reads: " + db.counts);
    assertTrue(Math.abs(hot - 2000) < 200, "half the transactions each: " + hot);
  }

  @Test
  void badSettingsAreRefused() {
    assertArrayEquals(new double[] {0.5, 0.5}, assertDoesNotThrow(() -> MultiTableWorkload.fractions(null, 2, "x")), 1e-12);
    assertThrows(WorkloadException.class, () -> MultiTableWorkload.fractions("1", 2, "weights"));
    assertThrows(WorkloadException.class, () -> MultiTableWorkload.fractions("0,0", 2, "weights"));
    assertThrows(WorkloadException.class, () -> new MultiTableWorkload().init(new Properties()));
  }

  private static double[] assertDoesNotThrow(org.junit.jupiter.api.function.ThrowingSupplier<double[]> s) {
    return org.junit.jupiter.api.Assertions.assertDoesNotThrow(s);
  }
}
