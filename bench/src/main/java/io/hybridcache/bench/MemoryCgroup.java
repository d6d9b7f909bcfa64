package io.hybridcache.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A Linux memory cgroup for one child process, so that every store of a comparison runs with the
 * same memory, page cache included: without it a store that reads through the page cache (mmap,
 * buffered files) would get the machine's free DRAM as a second, unbudgeted cache. cgroup v1
 * ({@code /sys/fs/cgroup/memory}) and v2 (unified hierarchy with the memory controller) are
 * supported; both charge page cache to the group and reclaim it at the limit.
 *
 * <p>Needs write access to the cgroup tree (root here); {@link #create} says why when it cannot.
 * Not thread-safe; one child per group.
 */
public final class MemoryCgroup implements AutoCloseable {
  private static final Path V1 = Path.of("/sys/fs/cgroup/memory");
  private static final Path V2 = Path.of("/sys/fs/cgroup");

  private final Path dir;
  private final boolean v2;
  private final long limitBytes;

  private MemoryCgroup(Path dir, boolean v2, long limitBytes) {
    this.dir = dir;
    this.v2 = v2;
    this.limitBytes = limitBytes;
  }

  /** The outcome of {@link #create}: a group, or why there is none. */
  public record Attempt(MemoryCgroup group, String whyNot) {}

  /**
   * Creates (or resets) group {@code name} limited to {@code limitBytes}; {@code name} may be a
   * path below the hierarchy's root, e.g. this process's own group plus a name.
   */
  public static Attempt create(String name, long limitBytes) {
    try {
      if (Files.isRegularFile(V1.resolve("memory.limit_in_bytes"))) {
        Path d = V1.resolve(name);
        reset(d);
        Files.writeString(d.resolve("memory.limit_in_bytes"), Long.toString(limitBytes));
        return new Attempt(new MemoryCgroup(d, false, limitBytes), null);
      }
      Path controllers = V2.resolve("cgroup.controllers");
      if (Files.isRegularFile(controllers) && Files.readString(controllers).contains("memory")) {
        Files.writeString(V2.resolve("cgroup.subtree_control"), "+memory");
        Path d = V2.resolve(name);
        reset(d);
        Files.writeString(d.resolve("memory.max"), Long.toString(limitBytes));
        Files.writeString(d.resolve("memory.swap.max"), "0");
        return new Attempt(new MemoryCgroup(d, true, limitBytes), null);
      }
      return new Attempt(null, "no memory cgroup controller under /sys/fs/cgroup");
    } catch (IOException | RuntimeException e) {
      return new Attempt(null, "cannot create a memory cgroup (" + e + "); run as root to bound page cache");
    }
  }

  private static void reset(Path d) throws IOException {
    if (Files.isDirectory(d)) {
      Files.delete(d); // fails if a process is still inside: then the caller learns why
    }
    Files.createDirectory(d);
  }

  public long limitBytes() {
    return limitBytes;
  }

  /** {@code command} run by a shell that first moves itself into this group, then execs it. */
  public List<String> wrap(List<String> command) {
    List<String> c = new ArrayList<>(List.of("/bin/sh", "-c",
        "echo $$ > '" + dir.resolve("cgroup.procs") + "' && exec \"$@\"", "sh"));
    c.addAll(command);
    return c;
  }

  /** Bytes charged now (anonymous memory and page cache). */
  public long usageBytes() {
    return read(v2 ? "memory.current" : "memory.usage_in_bytes");
  }

  /** The most ever charged to the group; -1 if the kernel does not say (v2 before 5.19). */
  public long peakBytes() {
    long p = read(v2 ? "memory.peak" : "memory.max_usage_in_bytes");
    return p < 0 ? -1 : p;
  }

  /** Page cache charged to the group now. */
  public long pageCacheBytes() {
    return keyed("memory.stat", v2 ? "file" : "cache");
  }

  /** Anonymous memory (heap, off-heap, stacks) charged to the group now. */
  public long anonymousBytes() {
    return keyed("memory.stat", v2 ? "anon" : "rss");
  }

  /** The group's directory (its {@code cgroup.procs} takes a process in). */
  public Path dir() {
    return dir;
  }

  /** Processes the kernel killed for the group's limit (OOM); -1 if unknown. */
  public long oomKills() {
    long n = keyed(v2 ? "memory.events" : "memory.oom_control", "oom_kill");
    return n < 0 ? 0 : n;
  }

  /** The value of line {@code key} in {@code memory.stat}-style file {@code file}; -1 if absent. */
  private long keyed(String file, String key) {
    try {
      for (String line : Files.readAllLines(dir.resolve(file))) {
        if (line.startsWith(key + " ")) {
          return Long.parseLong(line.substring(key.length() + 1).trim());
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  private long read(String file) {
    try {
      return Long.parseLong(Files.readString(dir.resolve(file)).trim());
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** Removes the group (its process must have exited). */
  @Override
  public void close() throws IOException {
    Files.deleteIfExists(dir);
  }

  @Override
  public String toString() {
    return dir + " (cgroup " + (v2 ? "v2" : "v1") + ", limit " + limitBytes + " B)";
  }
}
