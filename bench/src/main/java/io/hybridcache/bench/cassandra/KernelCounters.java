package io.hybridcache.bench.cassandra;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The kernel's counters the Cassandra experiment reads around its measured phase, and the parsers
 * of their text formats (kept apart from the reads so they are tested without root or a node):
 * a block device's {@code /sys/block/DEV/stat}, a process's {@code /proc/PID/stat} and a cgroup v1
 * blkio group's {@code blkio.throttle.io_serviced}. Stateless; thread-safe.
 */
final class KernelCounters {
  private KernelCounters() {}

  /**
   * The I/O counters of one block device ({@code Documentation/block/stat.rst}): requests completed
   * and 512-byte sectors moved, reads and writes.
   */
  record BlockStat(long readsCompleted, long sectorsRead, long writesCompleted, long sectorsWritten) {
    BlockStat minus(BlockStat before) {
      return new BlockStat(readsCompleted - before.readsCompleted, sectorsRead - before.sectorsRead,
          writesCompleted - before.writesCompleted, sectorsWritten - before.sectorsWritten);
    }
  }

  /**
   * Parses the one line of {@code /sys/block/DEV/stat}: read I/Os, read merges, read sectors, read
   * ticks, write I/Os, write merges, write sectors, ... (11 fields on old kernels, 17 on new ones).
   */
  static BlockStat parseBlockStat(String line) {
    String[] f = line.trim().split("\\s+");
    if (f.length < 11) {
      throw new IllegalArgumentException("a block stat line has at least 11 fields, was '" + line.trim() + "'");
    }
    return new BlockStat(Long.parseLong(f[0]), Long.parseLong(f[2]), Long.parseLong(f[4]), Long.parseLong(f[6]));
  }

  /**
   * User plus system CPU time in clock ticks from a {@code /proc/PID/stat} line: fields 14 (utime)
   * and 15 (stime). Field 2, the command in parentheses, may hold spaces and ')', so fields are
   * counted after its last ')'.
   */
  static long parseCpuTicks(String line) {
    int close = line.lastIndexOf(')');
    if (close < 0) {
      throw new IllegalArgumentException("not a /proc/PID/stat line: '" + line.trim() + "'");
    }
    String[] f = line.substring(close + 1).trim().split("\\s+");
    // f[0] is field 3 (state): utime = field 14 = f[11], stime = field 15 = f[12]
    if (f.length < 13) {
      throw new IllegalArgumentException("a /proc/PID/stat line has at least 15 fields, was '" + line.trim() + "'");
    }
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  /**
   * {read, write} requests of device {@code majMin} (e.g. "7:0") in a cgroup v1
   * {@code blkio.throttle.io_serviced} file ("7:0 Read 120" lines); {0, 0} if the device has none yet.
   */
  static long[] parseIoServiced(String content, String majMin) {
    long[] rw = new long[2];
    for (String line : content.split("\n")) {
      String[] f = line.trim().split("\\s+");
      if (f.length == 3 && f[0].equals(majMin)) {
        if (f[1].equals("Read")) {
          rw[0] = Long.parseLong(f[2]);
        } else if (f[1].equals("Write")) {
          rw[1] = Long.parseLong(f[2]);
        }
      }
    }
    return rw;
  }

  /** The counters of block device {@code name} (e.g. loop3) now. */
  static BlockStat blockStat(String name) throws IOException {
    return parseBlockStat(Files.readString(Path.of("/sys/block", name, "stat"), StandardCharsets.US_ASCII));
  }

  /** CPU time of process {@code pid} so far (user + system, all its threads), in milliseconds. */
  static long cpuMillis(long pid) throws IOException {
    String line = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.UTF_8);
    return parseCpuTicks(line) * 1000 / ClockTicks.PER_SECOND;
  }

  /** USER_HZ, from {@code getconf CLK_TCK} (100 on Linux unless the kernel says otherwise). */
  private static final class ClockTicks {
    static final long PER_SECOND = read();

    private static long read() {
      try {
        Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        if (p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0) {
          long v = Long.parseLong(out);
          if (v > 0) {
            return v;
          }
        }
      } catch (IOException | NumberFormatException e) {
        // fall through to Linux's fixed user-space value
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return 100;
    }
  }
}
