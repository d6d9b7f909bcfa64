package io.hybridcache.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.ChildJvm;
import io.hybridcache.bench.StatsJson;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Each store's memory cgroup allowance: calibrated from what a child of the store measured in its own
 * memory.stat (anonymous + kernel, not page cache; less heap and the budget's direct buffers; plus the code
 * mapped into it) and a margin; the flat allowance, with a warning, when a calibration fails or reads
 * implausibly; the override for every store alike; and the figures in the records and tables.
 */
class NativeAllowanceTest {
  private static final long MIB = 1L << 20;
  /** A heap of 2 x 32 MiB + 256 MiB, pre-touched, as in a quick run. */
  private static final long HEAP = 320 * MIB;

  /** A cgroup v2 memory.stat of a child with its 320 MiB heap, 90 MiB native, 25 MiB of mapped code and 60 MiB of page cache. */
  private static final String V2_STAT = String.join("\n",
      "anon " + (HEAP + 80 * MIB),
      "file " + 60 * MIB,
      "kernel " + 10 * MIB,
      "kernel_stack " + MIB,
      "pagetables " + 2 * MIB,
      "sock 0",
      "shmem 0",
      "file_mapped " + 25 * MIB,
      "file_dirty 4096",
      "slab " + 6 * MIB,
      "pgfault 123456",
      "");

  @Test
  void aV2MemoryStatIsAnonymousPlusKernelNotPageCache() {
    CgroupMemoryStat s = CgroupMemoryStat.parse(V2_STAT, 999 * MIB);
    assertEquals(HEAP + 90 * MIB, s.nonFileBytes(), "anon + kernel; v1's kmem figure is ignored for v2");
    assertEquals(60 * MIB, s.fileBytes());
    assertEquals(25 * MIB, s.mappedFileBytes());
  }

  @Test
  void aV2MemoryStatWithoutAKernelLineSumsItsParts() {
    String old = V2_STAT.replace("kernel " + 10 * MIB + "\n", "");
    CgroupMemoryStat s = CgroupMemoryStat.parse(old, 0);
    assertEquals(MIB + 2 * MIB + 6 * MIB, s.kernelBytes(), "kernel_stack + pagetables + percpu + sock + slab");
  }

  @Test
  void aV1MemoryStatTakesItsKernelMemoryFromKmem() {
    String v1 = "cache " + 60 * MIB + "\nrss " + (HEAP + 80 * MIB) + "\nrss_huge 0\nshmem 0\nmapped_file " + 25 * MIB
        + "\ntotal_rss " + 4000 * MIB + "\n";
    CgroupMemoryStat s = CgroupMemoryStat.parse(v1, 10 * MIB);
    assertEquals(HEAP + 90 * MIB, s.nonFileBytes());
    assertEquals(25 * MIB, s.mappedFileBytes());
  }

  @Test
  void somethingElseIsRefusedNamingIt() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CgroupMemoryStat.parse("max 123\n", 0));
    assertTrue(e.getMessage().contains("max 123"), e.getMessage());
  }

  @Test
  void theAllowanceIsTheMeasuredNativeMemoryAndMappedCodePlusTheMargin() {
    CgroupMemoryStat s = CgroupMemoryStat.parse(V2_STAT, 0);
    // 20 MiB of direct buffers, under the 32 MiB budget: the budget's (an off-heap tier allocated up front, write buffers)
    NativeBaseline b = new NativeBaseline(s.nonFileBytes(), s.mappedFileBytes(), HEAP, 20 * MIB);
    assertEquals(70 * MIB, b.nativeBytes(), "anon + kernel less heap and the budget's direct buffers");
    NativeAllowance a = NativeAllowance.calibrated(b, NativeAllowance.FLAT_DEFAULT);
    assertTrue(a.isCalibrated());
    assertNull(a.warning());
    assertEquals(70 * MIB + 25 * MIB + NativeAllowance.MARGIN, a.bytes(), "native + mapped code + 32 MiB");
    assertEquals(127 * MIB, a.bytes());
    assertEquals(70 * MIB, a.measuredNativeBytes());
    assertEquals(HEAP + 32 * MIB + 127 * MIB, a.limitBytes(HEAP, 32 * MIB));
    // what a page-cache store could cache beyond its need is the margin, no longer the flat allowance's spare
    assertTrue(a.bytes() - a.measuredNativeBytes() - a.measuredMappedBytes() <= NativeAllowance.MARGIN);
    // a partial MiB rounds up: never less than measured
    NativeBaseline odd = new NativeBaseline(s.nonFileBytes() + 1, s.mappedFileBytes(), HEAP, 20 * MIB);
    assertEquals(128 * MIB, NativeAllowance.calibrated(odd, NativeAllowance.FLAT_DEFAULT).bytes());
  }

  @Test
  void anImplausibleCalibrationIsTheFlatAllowanceWithAWarning() {
    // the heap not resident (not pre-touched) or memory.stat misread: native memory under any JVM's
    NativeAllowance low = NativeAllowance.calibrated(new NativeBaseline(HEAP + 4 * MIB, 25 * MIB, HEAP, 0),
        NativeAllowance.FLAT_DEFAULT);
    assertFalse(low.isCalibrated());
    assertEquals(NativeAllowance.FLAT_DEFAULT, low.bytes());
    assertTrue(low.warning().contains("4 MiB of native memory") && low.warning().contains("misread"), low.warning());
    assertTrue(low.source().startsWith("flat: "), low.source());
    // as much as the calibration's cgroup allowed beside heap and budget: it may have been squeezed
    NativeAllowance squeezed = NativeAllowance.calibrated(new NativeBaseline(HEAP + 380 * MIB, 20 * MIB, HEAP, 0),
        NativeAllowance.FLAT_DEFAULT);
    assertEquals(NativeAllowance.FLAT_DEFAULT, squeezed.bytes());
    assertTrue(squeezed.warning().contains("squeezed") && squeezed.warning().contains("380 MiB"), squeezed.warning());
  }

  @Test
  void aCalibrationChildThatFailsOrSaysNothingIsTheFlatAllowanceNotAFailedRun() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    StoreRunner runner = new StoreRunner(Path.of("unused"), 32 * MIB, HEAP, new Allowances(true, null), 2, 1, 0, 60, Map.of(),
        new PrintStream(bytes, true, StandardCharsets.UTF_8));
    NativeAllowance crashed = runner.allowance(new ChildJvm.Result(1, List.of(), List.of("java.lang.IllegalStateException: boom",
        "\tat x.y(Z.java:1)")), List.of(), 0);
    assertEquals(NativeAllowance.FLAT_DEFAULT, crashed.bytes());
    assertTrue(crashed.warning().contains("exited with 1") && crashed.warning().contains("boom"), crashed.warning());
    NativeAllowance killed = runner.allowance(new ChildJvm.Result(137, List.of(), List.of()), List.of(), 1);
    assertTrue(killed.warning().contains("OOM killer"), killed.warning());
    NativeAllowance garbled = runner.allowance(new ChildJvm.Result(0, List.of(), List.of()),
        List.of(NativeBaseline.PREFIX + "{\"non_file_bytes\": 5}"), 0);
    assertEquals(NativeAllowance.FLAT_DEFAULT, garbled.bytes());
    assertTrue(garbled.warning().contains("mapped_file_bytes"), garbled.warning());
    NativeAllowance fine = runner.allowance(new ChildJvm.Result(0, List.of(), List.of()),
        List.of(new NativeBaseline(HEAP + 90 * MIB, 25 * MIB, HEAP, 0).line()), 0);
    assertEquals(90 * MIB + 25 * MIB + NativeAllowance.MARGIN, fine.bytes());
  }

  @Test
  void theCalibrationLineRoundTrips() {
    NativeBaseline b = new NativeBaseline(HEAP + 90 * MIB, 25 * MIB, HEAP, 16 * MIB);
    assertEquals(b, NativeBaseline.parse(b.line()));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NativeBaseline.parse("compare-result {}"));
    assertTrue(e.getMessage().contains("compare-result {}"), e.getMessage());
  }

  @Test
  void eachStoreIsCalibratedOnceUnlessTheOverrideOrNoCgroupSaysOtherwise() throws Exception {
    AtomicInteger calibrations = new AtomicInteger();
    NativeAllowance measured = NativeAllowance.calibrated(new NativeBaseline(HEAP + 90 * MIB, 25 * MIB, HEAP, 0),
        NativeAllowance.FLAT_DEFAULT);
    Allowances.Calibration counted = () -> {
      calibrations.incrementAndGet();
      return measured;
    };
    Allowances calibrating = new Allowances(true, null);
    assertTrue(calibrating.calibrating());
    assertEquals(measured, calibrating.of(StoreType.ROCKSDB, counted));
    assertEquals(measured, calibrating.of(StoreType.ROCKSDB, counted));
    assertEquals(measured, calibrating.of(StoreType.HYBRIDCACHE, counted), "ours alike");
    assertEquals(2, calibrations.get(), "once per store");
    NativeAllowance flat = NativeAllowance.fallback(calibrating.flat(), "OOM-killed");
    calibrating.replace(StoreType.ROCKSDB, flat);
    assertEquals(flat, calibrating.of(StoreType.ROCKSDB, counted));

    Allowances overridden = new Allowances(true, 100 * MIB);
    assertFalse(overridden.calibrating());
    NativeAllowance o = overridden.of(StoreType.MAPDB, () -> fail("--native-allowance disables calibration"));
    assertEquals(100 * MIB, o.bytes());
    assertEquals(NativeAllowance.OVERRIDE, o.source());
    assertEquals(100 * MIB, overridden.flat(), "the override is also what a failed run falls back to");

    Allowances unbounded = new Allowances(false, null);
    assertEquals(-1, unbounded.of(StoreType.MAPDB, () -> fail("no cgroup, nothing to calibrate")).limitBytes(HEAP, 32 * MIB));

    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Allowances(true, 0L));
    assertTrue(e.getMessage().contains("was 0"), e.getMessage());
  }

  @Test
  void theTinyDefaultsLeaveMoreDataThanAPageCacheStoreCanCache() {
    // a store reading through the page cache may cache its budget and the margin: the tiny data set must be larger
    for (long budget : new long[] {32 * MIB, 64 * MIB}) {
      long tinyData = (long) (2.5 * budget);
      assertTrue(tinyData > NativeAllowance.cacheableBytes(budget), budget / MIB + " MiB budget: " + tinyData / MIB + " MiB");
    }
    assertEquals(48 * MIB, NativeAllowance.cacheableBytes(16 * MIB), "at 16 MiB, 2.5x (40 MiB) is not: compare refuses it");
  }

  @Test
  void theRecordsRunsAndTablesShowTheAllowanceAndWhatWasMeasured() throws Exception {
    NativeAllowance measured = NativeAllowance.calibrated(new NativeBaseline(HEAP + 90 * MIB, 25 * MIB, HEAP, 0),
        NativeAllowance.FLAT_DEFAULT);
    NativeAllowance flat = NativeAllowance.fallback(NativeAllowance.FLAT_DEFAULT, "the calibration child exited with 1");
    ObjectNode ours = phase("hybridcache", measured);
    ObjectNode peer = phase("mapdb", flat);
    CompareReport r = new CompareReport(StatsJson.MAPPER.createObjectNode(), null, List.of(
        new CompareCommand.StoreRun(StoreType.HYBRIDCACHE, 1, List.of(ours), null, -1, 0, measured),
        new CompareCommand.StoreRun(StoreType.MAPDB, 1, List.of(peer), null, -1, 0, flat)), List.of("workloadc"));
    JsonNode json = StatsJson.MAPPER.readTree(r.toJson().toString());
    assertEquals(147 * MIB, json.at("/records/0/allowance_bytes").asLong());
    assertEquals(90 * MIB, json.at("/records/0/measured_native_bytes").asLong());
    assertEquals(25 * MIB, json.at("/records/0/measured_mapped_file_bytes").asLong());
    assertEquals("calibrated", json.at("/records/0/allowance_source").asText());
    assertEquals(-1, json.at("/records/1/measured_native_bytes").asLong());
    assertTrue(json.at("/runs/1/allowance_source").asText().startsWith("flat: the calibration child exited"), json.toString());
    assertEquals(147 * MIB, json.at("/runs/0/allowance_bytes").asLong());
    String md = CompareTables.markdown(r);
    assertTrue(md.contains("|allowance MiB (measured native MiB)|"), md);
    assertTrue(md.contains("|147 (90.0)|"), md);
    assertTrue(md.contains("|192 (flat)|"), md);
    // a record of a run before calibration (no allowance fields) has an empty cell, so old JSON still replots
    assertNull(CompareTables.allowance(StatsJson.MAPPER.createObjectNode()));
  }

  private static ObjectNode phase(String store, NativeAllowance a) {
    ObjectNode n = StatsJson.MAPPER.createObjectNode();
    n.put("store", store);
    n.put("workload", "workloadc");
    n.put("throughput_ops", 1000.0);
    n.put("seconds", 1.0);
    n.put("disk_bytes_written", 0);
    a.putInto(n);
    return n;
  }
}
