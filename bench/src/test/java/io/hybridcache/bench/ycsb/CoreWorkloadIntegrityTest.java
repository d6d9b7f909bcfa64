package io.hybridcache.bench.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.bench.MapCache;
import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.HybridCache;
import java.io.ByteArrayOutputStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.measurements.Measurements;
import site.ycsb.measurements.exporter.TextMeasurementsExporter;
import site.ycsb.workloads.CoreWorkload;

/**
 * Drives the binding with YCSB's own CoreWorkload and the checked-in workload files, with
 * {@code dataintegrity=true} so YCSB checks every value it reads back (over the in-memory cache;
 * the real engine runs through {@code ycsb}). Also checks that the workload files parse.
 */
class CoreWorkloadIntegrityTest {
  @TempDir
  Path tmp;

  @Test
  void readsBackWhatWasWrittenUnderWorkloadsAAndF() throws Exception {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(Path.of("../src/workloads/workloadf"))) {
      p.load(r);
    }
    p.setProperty("recordcount", "2000");
    p.setProperty("operationcount", "6000");
    p.setProperty("dataintegrity", "true");
    p.setProperty("measurementtype", "hdrhistogram");
    p.setProperty("hdrhistogram.percentiles", "50,99");
    p.setProperty(HybridCacheDB.DIR, tmp.toString());
    Measurements.setProperties(p);

    Function<CacheConfig, HybridCache> saved = HybridCacheDB.opener;
    HybridCacheDB.opener = MapCache::new;
    try {
      HybridCacheDB db = new HybridCacheDB();
      db.setProperties(p);
      db.init();
      CoreWorkload load = new CoreWorkload();
      load.init(p);
      Object state = load.initThread(p, 0, 1);
      for (int i = 0; i < 2000; i++) {
        assertTrue(load.doInsert(db, state));
      }
      for (String wl : List.of("workloadf", "workloada", "workloadc")) {
        Properties q = new Properties();
        try (Reader r = Files.newBufferedReader(Path.of("../src/workloads/" + wl))) {
          q.load(r);
        }
        q.setProperty("recordcount", "2000");
        q.setProperty("operationcount", "6000");
        q.setProperty("dataintegrity", "true");
        CoreWorkload run = new CoreWorkload();
        run.init(q);
        Object s = run.initThread(q, 0, 1);
        for (int i = 0; i < 6000; i++) {
          assertTrue(run.doTransaction(db, s));
        }
      }
      db.cleanup();
    } finally {
      HybridCacheDB.opener = saved;
    }

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    TextMeasurementsExporter exporter = new TextMeasurementsExporter(bytes);
    Measurements.getMeasurements().exportMeasurements(exporter);
    exporter.close();
    YcsbOutput o = YcsbOutput.parse(List.of(bytes.toString(StandardCharsets.UTF_8).split("\n")));
    assertTrue(o.returns("VERIFY", "OK") > 10_000, bytes.toString(StandardCharsets.UTF_8));
    assertEquals(0, o.returns("VERIFY", "UNEXPECTED_STATE"));
    assertEquals(0, o.returns("VERIFY", "ERROR"));
  }
}
