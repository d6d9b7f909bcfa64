package io.hybridcache.bench.compare;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.StatsJson;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;

/**
 * What a calibration child ({@link CompareRunner} with {@code --calibrate}) measured of itself, in its
 * memory cgroup, with its store open after a few operations of every workload and a GC: the group's
 * memory that is not page cache (anonymous + kernel), the page cache mapped into it (the JVM's and the
 * native libraries' code; a memory-mapped store's few calibration pages), the committed heap, and the
 * direct buffers up to the DRAM budget (a store that allocates its budget off heap up front, as Ehcache's
 * off-heap tier does, and ours' write buffers: those are the budget's, not native memory beside it).
 * Immutable.
 */
record NativeBaseline(long nonFileBytes, long mappedFileBytes, long heapCommittedBytes, long budgetDirectBytes) {
  /** Start of the calibration line a child prints on stdout. */
  static final String PREFIX = "compare-calibration ";

  /** Native memory beside the heap and the budget: anonymous + kernel less the heap and the budget's direct buffers. */
  long nativeBytes() {
    return nonFileBytes - heapCommittedBytes - budgetDirectBytes;
  }

  /** Measures this JVM in the group of {@code cgroupDir} after a GC (direct buffers no longer referenced are freed by it). */
  static NativeBaseline measure(Path cgroupDir, long budgetBytes) throws IOException {
    System.gc();
    long direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
        .filter(p -> p.getName().equals("direct")).mapToLong(BufferPoolMXBean::getMemoryUsed).sum();
    CgroupMemoryStat stat = CgroupMemoryStat.read(cgroupDir);
    long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted();
    return new NativeBaseline(stat.nonFileBytes(), stat.mappedFileBytes(), heap, Math.min(direct, budgetBytes));
  }

  /** The calibration line: {@link #PREFIX} and this as JSON. */
  String line() {
    ObjectNode n = StatsJson.MAPPER.createObjectNode();
    n.put("non_file_bytes", nonFileBytes);
    n.put("mapped_file_bytes", mappedFileBytes);
    n.put("heap_committed_bytes", heapCommittedBytes);
    n.put("budget_direct_bytes", budgetDirectBytes);
    return PREFIX + n;
  }

  /** The baseline of a calibration line; IllegalArgumentException naming the line if it is not one. */
  static NativeBaseline parse(String line) {
    if (!line.startsWith(PREFIX)) {
      throw new IllegalArgumentException("not a calibration line: " + line);
    }
    try {
      JsonNode n = StatsJson.MAPPER.readTree(line.substring(PREFIX.length()));
      return new NativeBaseline(field(n, "non_file_bytes", line), field(n, "mapped_file_bytes", line),
          field(n, "heap_committed_bytes", line), field(n, "budget_direct_bytes", line));
    } catch (IOException e) {
      throw new IllegalArgumentException("unreadable calibration line: " + line, e);
    }
  }

  private static long field(JsonNode n, String key, String line) {
    JsonNode v = n.get(key);
    if (v == null || !v.canConvertToLong()) {
      throw new IllegalArgumentException("calibration line without a number " + key + ": " + line);
    }
    return v.asLong();
  }
}
