package io.hybridcache.bench.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Where a benchmark ran: CPU, cores, memory, kernel, JVM; and the source commit. Stateless. */
final class Machine {
  private Machine() {}

  /** e.g. "2 cores (Intel Xeon ...), 23.4 GiB RAM, Linux 6.1.0, OpenJDK 17.0.15". */
  static String describe() {
    String cpu = "?";
    long memKb = 0;
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          cpu = line.substring(line.indexOf(':') + 1).trim();
          break;
        }
      }
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (line.startsWith("MemTotal:")) {
          memKb = Long.parseLong(line.replaceAll("\\D", ""));
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: leave the unknowns
    }
    return String.format("%d cores (%s), %.1f GiB RAM, %s %s, %s %s", Runtime.getRuntime().availableProcessors(), cpu,
        memKb / 1024.0 / 1024.0, System.getProperty("os.name"), System.getProperty("os.version"),
        System.getProperty("java.vm.name"), System.getProperty("java.version"));
  }

  /** The checked-out commit (with "-dirty" for local changes), or "unknown" outside a git work tree. */
  static String gitCommit() {
    String head = git("rev-parse", "--short=12", "HEAD");
    if (head == null) {
      return "unknown";
    }
    String status = git("status", "--porcelain", "--untracked-files=no");
    return status == null || status.isBlank() ? head : head + "-dirty";
  }

  private static String git(String... args) {
    try {
      Process p = new ProcessBuilder(concat(args)).redirectErrorStream(true).start();
      String outText = new String(p.getInputStream().readAllBytes()).trim();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 ? outText : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  private static List<String> concat(String... args) {
    String[] all = new String[args.length + 1];
    all[0] = "git";
    System.arraycopy(args, 0, all, 1, args.length);
    return List.of(all);
  }
}
