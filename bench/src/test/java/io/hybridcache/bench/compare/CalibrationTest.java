package io.hybridcache.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.hybridcache.bench.MemoryCgroup;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real calibration: a child JVM of ours, in a memory cgroup, on a few records of workload C, reports what
 * it holds beside heap and budget, and the allowance is that plus the margin. Runs where the cgroup tree is
 * writable (root); skipped elsewhere, saying why.
 */
class CalibrationTest {
  private static final long MIB = 1L << 20;

  @TempDir
  Path dir;

  @Test
  void ourChildMeasuresItsNativeMemoryInItsCgroup() throws Exception {
    MemoryCgroup.Attempt probe = MemoryCgroup.create("hybridcache-calibration-test-" + ProcessHandle.current().pid(), 64 * MIB);
    assumeTrue(probe.group() != null, () -> "no memory cgroup here: " + probe.whyNot());
    probe.group().close();
    long budget = 32 * MIB;
    long heap = 2 * budget + 256 * MIB;
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    StoreRunner runner = new StoreRunner(dir, budget, heap, new Allowances(true, null), 2, 1, 0, 60, Map.of(),
        new PrintStream(log, true, StandardCharsets.UTF_8));
    Path workload = Path.of("../src/workloads/workloadc").toAbsolutePath().normalize();
    CompareCommand.Section sec = new CompareCommand.Section("core", List.of("workloadc"), Map.of("workloadc", workload), 150_000,
        CompareCommand.RECORD_BYTES, 512 * MIB, 150_000);
    NativeAllowance a = runner.calibrate(StoreType.HYBRIDCACHE, sec);
    String out = log.toString(StandardCharsets.UTF_8);
    assertNull(a.warning(), out);
    assertTrue(a.isCalibrated(), out);
    assertTrue(a.measuredNativeBytes() >= NativeAllowance.MIN_PLAUSIBLE_NATIVE
        && a.measuredNativeBytes() < NativeAllowance.FLAT_DEFAULT, a + "\n" + out);
    assertTrue(a.measuredMappedBytes() >= 0, a.toString());
    assertEquals(CompareCommand.roundUpMiB(a.measuredNativeBytes() + a.measuredMappedBytes() + NativeAllowance.MARGIN), a.bytes());
    assertTrue(out.contains("hybridcache calibrated: allowance " + a), out);
    System.err.println("calibrated: " + a);
  }
}
