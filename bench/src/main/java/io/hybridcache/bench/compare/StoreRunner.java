package io.hybridcache.bench.compare;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.BenchDirs;
import io.hybridcache.bench.ChildJvm;
import io.hybridcache.bench.MemoryCgroup;
import io.hybridcache.bench.Sizes;
import io.hybridcache.bench.StatsJson;
import io.hybridcache.core.api.CacheConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs one store on one section in its own child JVM ({@link CompareRunner}) and memory cgroup, with the
 * same JVM flags for every store, and turns what the child reported into a {@link CompareCommand.StoreRun}:
 * its phase records, or why it did not complete (too slow a load, an exit code with the exception that
 * caused it, the cgroup's OOM killer, no exit within its time limit). The cgroup's room beside heap and
 * budget is the store's {@link NativeAllowance} from {@code allowances}: by default its own calibration,
 * a child of the same store on {@value #CALIBRATION_RECORDS} records ({@link #calibrate}); a run killed by
 * the cgroup under a calibrated allowance runs again under the flat one, with a warning. The store's data
 * directory is deleted afterwards. One run at a time.
 */
record StoreRunner(Path work, long budget, long heapBytes, Allowances allowances, int threads, double seconds, double warmup,
                   double loadSeconds, Map<String, String> properties, PrintStream err) {
  /** Beyond the load's cap and the phases' time, a child gets this long (start-up, close) before it is destroyed. */
  static final Duration MARGIN = Duration.ofMinutes(5);
  /** Records a calibration child loads: enough to run every operation, too few to be a data cache worth measuring. */
  static final long CALIBRATION_RECORDS = 1_000;
  /** Seconds a calibration child runs each workload (no warm-up): every operation's path is compiled by then. */
  static final double CALIBRATION_SECONDS = 1;
  /** A calibration child's cap on its load of {@value #CALIBRATION_RECORDS} records. */
  static final double CALIBRATION_LOAD_SECONDS = 60;

  CompareCommand.StoreRun run(StoreType s, int repetition, CompareCommand.Section sec) throws Exception {
    NativeAllowance a = allowances.of(s, () -> calibrate(s, sec));
    CompareCommand.StoreRun r = runOnce(s, repetition, sec, a);
    if (r.oomKills() > 0 && a.isCalibrated()) {
      NativeAllowance flat = NativeAllowance.fallback(allowances.flat(), "a run under the calibrated " + a
          + " was killed by the memory cgroup");
      err.println("compare: warning: " + s.cliName() + ": " + flat.warning() + "; running it again");
      allowances.replace(s, flat);
      r = runOnce(s, repetition, sec, flat);
    }
    return r;
  }

  private CompareCommand.StoreRun runOnce(StoreType s, int repetition, CompareCommand.Section sec, NativeAllowance a)
      throws Exception {
    Path data = work.resolve("data-" + s.cliName());
    try {
      return runIn(s, repetition, sec, data, a);
    } finally {
      BenchDirs.deleteTree(data);
    }
  }

  /** The longest a child may run: its load's cap, every phase's warm-up and measured time, and {@link #MARGIN}. */
  Duration timeLimit(CompareCommand.Section sec) {
    return timeLimit(sec, loadSeconds, warmup + seconds);
  }

  private static Duration timeLimit(CompareCommand.Section sec, double load, double perPhase) {
    return Duration.ofMillis((long) ((load + sec.files().size() * perPhase) * 1000)).plus(MARGIN);
  }

  /**
   * Measures what {@code s} needs beside heap and budget: a child of the same store, JVM flags and section
   * settings, on {@value #CALIBRATION_RECORDS} records and {@value #CALIBRATION_SECONDS} s of each workload,
   * in a cgroup with {@link NativeAllowance#calibrationRoom} beside heap and budget, reports a {@link
   * NativeBaseline} of itself with its store open. A calibration that cannot run or report is the flat
   * allowance with a warning, never a failed run.
   */
  NativeAllowance calibrate(StoreType s, CompareCommand.Section sec) throws IOException, InterruptedException {
    long room = NativeAllowance.calibrationRoom(allowances.flat());
    Path data = work.resolve("calibrate-" + s.cliName());
    NativeAllowance a;
    try {
      Files.createDirectories(data);
      DropCaches.tryDrop();
      MemoryCgroup.Attempt attempt = MemoryCgroup.create("hybridcache-calibrate-" + s.cliName(), heapBytes + budget + room);
      if (attempt.group() == null) {
        a = NativeAllowance.fallback(allowances.flat(), "no memory cgroup to calibrate in: " + attempt.whyNot());
      } else {
        try (MemoryCgroup g = attempt.group()) {
          List<String> extra = List.of("--calibrate", g.dir().toString());
          List<String> cmd = g.wrap(command(s, data, sec, Math.min(sec.records(), CALIBRATION_RECORDS), CALIBRATION_SECONDS, 0,
              CALIBRATION_LOAD_SECONDS, extra));
          List<String> lines = new ArrayList<>();
          ChildJvm.Result r = ChildJvm.run(cmd, "  calibration: ", err, line -> {
            if (line.startsWith(NativeBaseline.PREFIX)) {
              lines.add(line);
            }
          }, work.resolve("calibrate-" + s.cliName() + ".out"), timeLimit(sec, CALIBRATION_LOAD_SECONDS, CALIBRATION_SECONDS));
          a = allowance(r, lines, g.oomKills());
        }
      }
    } catch (IOException | RuntimeException e) {
      a = NativeAllowance.fallback(allowances.flat(), "the calibration could not run: " + e);
    } finally {
      BenchDirs.deleteTree(data);
    }
    if (a.warning() != null) {
      err.println("compare: warning: " + s.cliName() + ": " + a.warning());
    } else {
      err.println("compare: " + s.cliName() + " calibrated: allowance " + a);
    }
    return a;
  }

  /** The allowance from a calibration child's result: its line's, or the flat one saying why there is none. */
  NativeAllowance allowance(ChildJvm.Result r, List<String> calibrationLines, long ooms) {
    if (r.exitCode() != 0 || calibrationLines.isEmpty()) {
      return NativeAllowance.fallback(allowances.flat(), "the calibration child exited with " + r.exitCode()
          + (ooms > 0 ? " (killed by the memory cgroup's OOM killer)" : "") + " and " + calibrationLines.size()
          + " calibration line(s): " + cause(r.stderrTail()));
    }
    try {
      return NativeAllowance.calibrated(NativeBaseline.parse(calibrationLines.get(0)), allowances.flat());
    } catch (IllegalArgumentException e) {
      return NativeAllowance.fallback(allowances.flat(), e.getMessage());
    }
  }

  /** The child's command, without the cgroup: the same JVM flags for every store, the section's settings. */
  private List<String> command(StoreType s, Path data, CompareCommand.Section sec, long records, double secs, double warm,
                               double load, List<String> extra) {
    Map<String, Path> files = sec.files();
    List<String> args = new ArrayList<>(List.of("--store", s.cliName(), "--dir", data.toString(),
        "--dram", Long.toString(budget), "--disk", Long.toString(sec.disk()), "--records", Long.toString(records),
        "--threads", Integer.toString(threads), "--seconds", Double.toString(secs), "--warmup", Double.toString(warm),
        "--load-seconds", Double.toString(load), "--load-workload", files.values().iterator().next().toString()));
    files.forEach((name, f) -> args.addAll(List.of("--workload", name + "=" + f)));
    args.addAll(List.of("-p", KvStoreDB.EXPECTED_ENTRIES + "=" + sec.expectedEntries()));
    properties.forEach((k, v) -> args.addAll(List.of("-p", k + "=" + v)));
    args.addAll(extra);
    List<String> jvm = List.of("-Xms" + heapBytes / CacheConfig.MIB + "m", "-Xmx" + heapBytes / CacheConfig.MIB + "m",
        "-XX:+AlwaysPreTouch", "-XX:+UseG1GC");
    // glibc's per-thread malloc arenas let off-heap stores (OHC mallocs each entry) grow far past their
    // capacity under churn; Cassandra's launcher caps them the same way. The same for every store.
    List<String> cmd = new ArrayList<>(List.of("env", "MALLOC_ARENA_MAX=4"));
    cmd.addAll(ChildJvm.javaCommand(jvm, CompareRunner.class.getName(), args, s.opensChronicle()));
    return cmd;
  }

  private CompareCommand.StoreRun runIn(StoreType s, int repetition, CompareCommand.Section sec, Path data, NativeAllowance a)
      throws Exception {
    Files.createDirectories(data);
    DropCaches.tryDrop();
    List<String> cmd = command(s, data, sec, sec.records(), seconds, warmup, loadSeconds, List.of());
    long limitBytes = a.limitBytes(heapBytes, budget);
    MemoryCgroup group = null;
    if (limitBytes > 0) {
      MemoryCgroup.Attempt attempt = MemoryCgroup.create("hybridcache-compare-" + s.cliName(), limitBytes);
      if (attempt.group() == null) {
        err.println("compare: warning: " + attempt.whyNot() + "; page cache is not bounded, so stores reading through it get more DRAM than the budget");
      } else {
        group = attempt.group();
        cmd = group.wrap(cmd);
        err.println("compare: " + s.cliName() + " runs in memory cgroup " + group + ": heap + budget + allowance " + a);
      }
    }
    List<ObjectNode> phases = new ArrayList<>();
    MemoryCgroup g = group;
    try {
      Duration limit = timeLimit(sec);
      ChildJvm.Result r = ChildJvm.run(cmd, "  ", err, line -> {
        if (line.startsWith(CompareRunner.RESULT_PREFIX)) {
          try {
            ObjectNode p = (ObjectNode) StatsJson.MAPPER.readTree(line.substring(CompareRunner.RESULT_PREFIX.length()));
            if (g != null) {
              p.put("cgroup_bytes", g.usageBytes());
              p.put("page_cache_bytes", g.pageCacheBytes());
            }
            p.put("memory_limit_bytes", g == null ? -1 : limitBytes);
            a.putInto(p);
            phases.add(p);
          } catch (Exception e) {
            err.println("compare: unreadable result line: " + line);
          }
        }
      }, work.resolve("runner-" + s.cliName() + "-" + sec.name() + "-" + repetition + ".out"), limit);
      long peak = g == null ? -1 : g.peakBytes();
      long ooms = g == null ? 0 : g.oomKills();
      return new CompareCommand.StoreRun(s, repetition, phases, failure(r, phases, sec, ooms, limit), peak, ooms, a);
    } finally {
      if (group != null) {
        group.close();
      }
    }
  }

  /** Why a run did not complete, or null if it did: every phase and the whole-run record reported. */
  static String failure(ChildJvm.Result r, List<ObjectNode> phases, CompareCommand.Section sec, long ooms, Duration limit) {
    if (r.timedOut()) {
      return "hung: no exit within " + limit.toSeconds() + " s (destroyed) after " + phases.size() + " phase(s)";
    }
    if (r.exitCode() == CompareRunner.LOAD_TOO_SLOW && !phases.isEmpty()) {
      ObjectNode load = phases.get(0);
      return String.format("too slow: loaded %,d of %,d records in %.0f s (%,.0f ops/s; %,d major page faults, %s read"
              + " from disk, RSS %s); workloads skipped", load.get("operations").asLong(), sec.records(),
          load.get("seconds").asDouble(), load.get("throughput_ops").asDouble(), load.path("major_faults").asLong(),
          Sizes.format(load.path("disk_bytes_read").asLong()), Sizes.format(load.path("rss_bytes").asLong()));
    }
    if (r.exitCode() != 0) {
      return "the child JVM exited with " + r.exitCode() + (ooms > 0 ? " (killed by the memory cgroup's OOM killer)" : "")
          + ": " + cause(r.stderrTail());
    }
    int expected = sec.files().size() + 2; // the load, each workload, the whole run
    return phases.size() == expected ? null : "the child JVM reported " + phases.size() + " of " + expected + " records";
  }

  /** The last exception line of a child's stderr (not a stack frame), else its last line. */
  static String cause(List<String> stderrTail) {
    for (int i = stderrTail.size() - 1; i >= 0; i--) {
      String line = stderrTail.get(i).strip();
      if (!line.startsWith("at ") && !line.startsWith("...") && (line.contains("Exception") || line.contains("Error"))) {
        return line;
      }
    }
    return stderrTail.isEmpty() ? "(no output)" : stderrTail.get(stderrTail.size() - 1).strip();
  }
}
