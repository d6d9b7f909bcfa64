package io.hybridcache.bench.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a memory cgroup is charged, from its {@code memory.stat}: anonymous memory, kernel memory, page
 * cache and the part of the page cache mapped into processes. cgroup v2 names them {@code anon},
 * {@code kernel} (before Linux 5.18 the sum of {@code kernel_stack}, {@code pagetables}, {@code percpu},
 * {@code sock} and {@code slab}), {@code file} and {@code file_mapped}; cgroup v1 {@code rss}, {@code
 * cache} and {@code mapped_file}, with kernel memory in {@code memory.kmem.usage_in_bytes} beside it.
 * Immutable.
 *
 * @param anonBytes anonymous memory: heap, off-heap, thread stacks, malloc
 * @param kernelBytes kernel memory charged to the group (page tables, stacks, slab); 0 where unknown
 * @param fileBytes page cache
 * @param mappedFileBytes page cache mapped into the group's processes: code (the JVM, native libraries) and
 *     memory-mapped files
 */
record CgroupMemoryStat(long anonBytes, long kernelBytes, long fileBytes, long mappedFileBytes) {
  /** The kernel's parts in a v2 {@code memory.stat} without the {@code kernel} line (before Linux 5.18). */
  private static final List<String> V2_KERNEL_PARTS = List.of("kernel_stack", "pagetables", "percpu", "sock", "slab");

  CgroupMemoryStat {
    if (anonBytes < 0 || kernelBytes < 0 || fileBytes < 0 || mappedFileBytes < 0) {
      throw new IllegalArgumentException("negative memory.stat figure: anon " + anonBytes + ", kernel " + kernelBytes
          + ", file " + fileBytes + ", mapped " + mappedFileBytes);
    }
  }

  /** Memory that is not page cache: anonymous and kernel. What a process needs to run, without the file pages it reads. */
  long nonFileBytes() {
    return anonBytes + kernelBytes;
  }

  /**
   * Parses a {@code memory.stat} text; {@code v1KernelBytes} is {@code memory.kmem.usage_in_bytes} of a v1
   * group (ignored for v2, whose memory.stat has its kernel memory). Throws IllegalArgumentException naming
   * the text's first line when it is neither v1 nor v2.
   */
  static CgroupMemoryStat parse(String memoryStat, long v1KernelBytes) {
    Map<String, Long> v = new HashMap<>();
    for (String line : memoryStat.split("\n")) {
      String[] kv = line.trim().split("\\s+");
      if (kv.length == 2 && kv[1].matches("\\d+")) {
        v.put(kv[0], Long.parseLong(kv[1]));
      }
    }
    if (v.containsKey("anon") && v.containsKey("file")) {
      long kernel = v.containsKey("kernel") ? v.get("kernel")
          : V2_KERNEL_PARTS.stream().mapToLong(k -> v.getOrDefault(k, 0L)).sum();
      return new CgroupMemoryStat(v.get("anon"), kernel, v.get("file"), v.getOrDefault("file_mapped", 0L));
    }
    if (v.containsKey("rss") && v.containsKey("cache")) {
      return new CgroupMemoryStat(v.get("rss"), Math.max(0, v1KernelBytes), v.get("cache"), v.getOrDefault("mapped_file", 0L));
    }
    String first = memoryStat.isBlank() ? "(empty)" : memoryStat.strip().lines().findFirst().orElse("");
    throw new IllegalArgumentException("not a cgroup memory.stat (no anon/file nor rss/cache lines), first line: " + first);
  }

  /** Reads the group in {@code cgroupDir}; IOException if its memory.stat cannot be read. */
  static CgroupMemoryStat read(Path cgroupDir) throws IOException {
    String stat = Files.readString(cgroupDir.resolve("memory.stat"));
    Path kmem = cgroupDir.resolve("memory.kmem.usage_in_bytes");
    long v1Kernel = 0;
    if (Files.isRegularFile(kmem)) {
      try {
        v1Kernel = Long.parseLong(Files.readString(kmem).trim());
      } catch (NumberFormatException e) {
        throw new IOException("unreadable " + kmem + ": " + e.getMessage(), e);
      }
    }
    return parse(stat, v1Kernel);
  }
}
