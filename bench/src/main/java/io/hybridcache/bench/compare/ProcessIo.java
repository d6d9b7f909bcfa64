package io.hybridcache.bench.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This process's storage I/O and memory as Linux reports them: {@code /proc/self/io} (bytes the
 * process caused to be read from or written to storage, page-cache writeback and direct I/O
 * alike, all threads; a buffered write is counted when its page is dirtied, so later writeback by the
 * kernel's threads is not missed), {@code /proc/self/status} (resident set) and {@code /proc/self/stat}
 * (major page faults, process-wide: a memory-mapped store's reads from disk, and also the JVM re-reading
 * its own code pages when the memory cgroup reclaims them). Zeros where /proc is missing.
 * Stateless and thread-safe.
 */
record ProcessIo(long readBytes, long writeBytes, long cancelledWriteBytes, long rssBytes, long rssPeakBytes,
                 long majorFaults) {
  /** Field 12 of /proc/PID/stat, counted after the parenthesised command name (fields 3 on). */
  private static final int MAJFLT_AFTER_NAME = 12 - 3;

  static ProcessIo now() {
    return new ProcessIo(field("/proc/self/io", "read_bytes:", 1), field("/proc/self/io", "write_bytes:", 1),
        field("/proc/self/io", "cancelled_write_bytes:", 1), field("/proc/self/status", "VmRSS:", 1024), field("/proc/self/status", "VmHWM:", 1024), readMajorFaults());
  }

  /** The counters accumulated since {@code earlier}; memory figures are this snapshot's. */
  ProcessIo since(ProcessIo earlier) {
    return new ProcessIo(readBytes - earlier.readBytes, writeBytes - earlier.writeBytes,
        cancelledWriteBytes - earlier.cancelledWriteBytes, rssBytes, rssPeakBytes, majorFaults - earlier.majorFaults);
  }

  /**
   * Bytes written less those cancelled (dirty page-cache bytes of files truncated or deleted before
   * writeback, which {@code write_bytes} counted when they were dirtied).
   */
  long netWriteBytes() {
    return writeBytes - cancelledWriteBytes;
  }

  private static long readMajorFaults() {
    try {
      String stat = Files.readString(Path.of("/proc/self/stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[MAJFLT_AFTER_NAME]);
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  private static long field(String file, String name, long unit) {
    try {
      for (String line : Files.readAllLines(Path.of(file))) {
        if (line.startsWith(name)) {
          return Long.parseLong(line.substring(name.length()).trim().split("\\s+")[0]) * unit;
        }
      }
    } catch (IOException | RuntimeException e) {
      return 0;
    }
    return 0;
  }
}
