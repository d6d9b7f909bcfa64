package io.hybridcache.bench.compare;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.BenchDirs;
import io.hybridcache.bench.ChildJvm;
import io.hybridcache.bench.MemoryCgroup;
import io.hybridcache.bench.Sizes;
import io.hybridcache.bench.StatsJson;
import io.hybridcache.core.api.CacheConfig;
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
 * caused it, the cgroup's OOM killer, no exit within its time limit). The store's data directory is
 * deleted afterwards. Immutable; one run at a time.
 *
 * @param limitBytes the memory cgroup's limit, or -1 for none
 */
record StoreRunner(Path work, long budget, long heapBytes, long limitBytes, int threads, double seconds, double warmup,
                   double loadSeconds, Map<String, String> properties, PrintStream err) {
  /** Beyond the load's cap and the phases' time, a child gets this long (start-up, close) before it is destroyed. */
  static final Duration MARGIN = Duration.ofMinutes(5);

  CompareCommand.StoreRun run(StoreType s, int repetition, CompareCommand.Section sec) throws Exception {
    Path data = work.resolve("data-" + s.cliName());
    try {
      return runIn(s, repetition, sec, data);
    } finally {
      BenchDirs.deleteTree(data);
    }
  }

  /** The longest a child may run: its load's cap, every phase's warm-up and measured time, and {@link #MARGIN}. */
  Duration timeLimit(CompareCommand.Section sec) {
    return Duration.ofMillis((long) ((loadSeconds + sec.files().size() * (warmup + seconds)) * 1000)).plus(MARGIN);
  }

  private CompareCommand.StoreRun runIn(StoreType s, int repetition, CompareCommand.Section sec, Path data) throws Exception {
    Map<String, Path> files = sec.files();
    long n = sec.records();
    Files.createDirectories(data);
    DropCaches.tryDrop();
    List<String> args = new ArrayList<>(List.of("--store", s.cliName(), "--dir", data.toString(),
        "--dram", Long.toString(budget), "--disk", Long.toString(sec.disk()), "--records", Long.toString(n),
        "--threads", Integer.toString(threads), "--seconds", Double.toString(seconds), "--warmup", Double.toString(warmup),
        "--load-seconds", Double.toString(loadSeconds), "--load-workload", files.values().iterator().next().toString()));
    files.forEach((name, f) -> args.addAll(List.of("--workload", name + "=" + f)));
    args.addAll(List.of("-p", KvStoreDB.EXPECTED_ENTRIES + "=" + sec.expectedEntries()));
    properties.forEach((k, v) -> args.addAll(List.of("-p", k + "=" + v)));
    List<String> jvm = List.of("-Xms" + heapBytes / CacheConfig.MIB + "m", "-Xmx" + heapBytes / CacheConfig.MIB + "m",
        "-XX:+AlwaysPreTouch", "-XX:+UseG1GC");
    // glibc's per-thread malloc arenas let off-heap stores (OHC mallocs each entry) grow far past their
    // capacity under churn; Cassandra's launcher caps them the same way. The same for every store.
    List<String> cmd = new ArrayList<>(List.of("env", "MALLOC_ARENA_MAX=4"));
    cmd.addAll(ChildJvm.javaCommand(jvm, CompareRunner.class.getName(), args, s.opensChronicle()));

    MemoryCgroup group = null;
    if (limitBytes > 0) {
      MemoryCgroup.Attempt a = MemoryCgroup.create("hybridcache-compare-" + s.cliName(), limitBytes);
      if (a.group() == null) {
        err.println("compare: warning: " + a.whyNot() + "; page cache is not bounded, so stores reading through it get more DRAM than the budget");
      } else {
        group = a.group();
        cmd = group.wrap(cmd);
        err.println("compare: " + s.cliName() + " runs in memory cgroup " + group);
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
            phases.add(p);
          } catch (Exception e) {
            err.println("compare: unreadable result line: " + line);
          }
        }
      }, work.resolve("runner-" + s.cliName() + "-" + sec.name() + "-" + repetition + ".out"), limit);
      long peak = g == null ? -1 : g.peakBytes();
      long ooms = g == null ? 0 : g.oomKills();
      return new CompareCommand.StoreRun(s, repetition, phases, failure(r, phases, sec, ooms, limit), peak, ooms);
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
