package io.hybridcache.bench.limits;

import com.fasterxml.jackson.databind.JsonNode;
import io.hybridcache.bench.ChildJvm;
import io.hybridcache.bench.StatsJson;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs fio jobs and reads their {@code --output-format=json} report (one group, {@code
 * --group_reporting}). Finds or installs fio. Thread-safe: stateless apart from the executable name.
 */
public final class Fio {
  private final String executable;

  public Fio(String executable) {
    this.executable = executable;
  }

  /**
   * One fio job group's figures; latency is completion latency (clat). {@code cpuUsPerIo}: fio's user + system
   * CPU over all its jobs per I/O (NaN where the report lacks it), to set beside the cache's CPU per read.
   */
  public record Result(double iops, double mibPerSec, double p50Us, double p99Us, double runtimeSec,
                       long ioBytes, double cpuUsPerIo) {}

  /** Options of 4 KiB random reads at queue depth 1 by {@code jobs} jobs, direct I/O, time-based. */
  public static Map<String, String> randRead(Path file, long size, int jobs, int secs, String ioengine) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("name", "randread" + jobs);
    o.put("filename", file.toString());
    o.put("size", Long.toString(size));
    o.put("rw", "randread");
    o.put("bs", "4k");
    o.put("direct", "1");
    o.put("ioengine", ioengine);
    o.put("iodepth", "1");
    o.put("numjobs", Integer.toString(jobs));
    o.put("time_based", null);
    o.put("runtime", Integer.toString(secs));
    o.put("norandommap", null);
    o.put("randrepeat", "0");
    return o;
  }

  /** Options of 1 MiB sequential writes by one job to a new file, direct I/O, fsync at the end. */
  public static Map<String, String> seqWrite(Path file, long size, int secs, String ioengine) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("name", "seqwrite");
    o.put("filename", file.toString());
    o.put("size", Long.toString(size));
    o.put("rw", "write");
    o.put("bs", "1M");
    o.put("direct", "1");
    o.put("ioengine", ioengine);
    o.put("iodepth", "1");
    o.put("numjobs", "1");
    o.put("runtime", Integer.toString(secs));
    o.put("end_fsync", "1");
    return o;
  }

  /** fio's version line, or null if it cannot be run. */
  public String version() {
    try {
      Process p = new ProcessBuilder(executable, "--version").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes()).trim();
      return p.waitFor() == 0 ? out : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /**
   * Makes sure fio runs: if it does not and {@code install} is set and we are root on a system with
   * apt-get, runs {@code apt-get install -y fio} (after {@code apt-get update} if the first try
   * fails). Returns the version, or null with the reason printed to {@code err}.
   */
  public String ensure(boolean install, PrintStream err) throws IOException, InterruptedException {
    String v = version();
    if (v != null) {
      return v;
    }
    String how = "install it with `sudo apt-get install -y fio` (Debian/Ubuntu), `sudo dnf install fio` "
        + "(Fedora/RHEL) or `brew install fio` (macOS), or pass --fio PATH";
    boolean plainName = !executable.contains("/");
    if (!install || !plainName || !isRoot() || !onPath("apt-get")) {
      err.println("limits: fio is not available (" + executable + "): " + how);
      return null;
    }
    err.println("limits: fio not found; installing it with apt-get (we are root)");
    if (apt(err, "install", "-y", "fio") != 0) {
      apt(err, "update");
      apt(err, "install", "-y", "fio");
    }
    v = version();
    if (v == null) {
      err.println("limits: installing fio failed: " + how);
    }
    return v;
  }

  private static int apt(PrintStream err, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add("apt-get");
    cmd.add("-q");
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("DEBIAN_FRONTEND", "noninteractive");
    Process p = pb.start();
    p.getOutputStream().close();
    try (var r = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream()))) {
      String line;
      while ((line = r.readLine()) != null) {
        err.println("[apt-get] " + line);
      }
    }
    return p.waitFor();
  }

  static boolean isRoot() {
    try {
      Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
      return uid instanceof Integer i && i == 0;
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return "root".equals(System.getProperty("user.name"));
    }
  }

  private static boolean onPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String d : path.split(java.io.File.pathSeparator)) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, name))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Runs fio with {@code options} (name=value, without the leading "--"), adding
   * {@code --group_reporting --output-format=json}, and returns the figures of direction
   * {@code rw} ("read" or "write").
   */
  public Result run(Map<String, String> options, String rw, PrintStream err) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(executable);
    options.forEach((k, v) -> cmd.add(v == null ? "--" + k : "--" + k + "=" + v));
    cmd.add("--group_reporting");
    cmd.add("--output-format=json");
    err.println("limits: " + ChildJvm.quote(cmd));
    ChildJvm.Result r = ChildJvm.run(cmd, "[fio] ", err, null, null);
    String out = String.join("\n", r.stdout());
    if (r.exitCode() != 0) {
      throw new IOException("fio exited with " + r.exitCode() + ": " + String.join(" | ", r.stderrTail())
          + (out.isBlank() ? "" : " | " + out.substring(0, Math.min(500, out.length()))));
    }
    return parse(out, rw);
  }

  /** The figures of direction {@code rw} in fio's JSON report {@code json} (text before the first '{' is skipped). */
  public static Result parse(String json, String rw) throws IOException {
    int start = json.indexOf('{');
    if (start < 0) {
      throw new IOException("fio printed no JSON report: " + json.substring(0, Math.min(300, json.length())));
    }
    JsonNode root = StatsJson.MAPPER.readTree(json.substring(start));
    JsonNode jobs = root.path("jobs");
    if (!jobs.isArray() || jobs.isEmpty()) {
      throw new IOException("fio JSON report has no jobs");
    }
    JsonNode job = jobs.get(0);
    if (job.path("error").asInt(0) != 0) {
      throw new IOException("fio job " + job.path("jobname").asText() + " failed with error " + job.path("error").asInt());
    }
    JsonNode d = job.path(rw);
    if (d.isMissingNode()) {
      throw new IOException("fio JSON report has no '" + rw + "' section");
    }
    JsonNode pct = d.path("clat_ns").path("percentile");
    return new Result(
        d.path("iops").asDouble(),
        d.path("bw_bytes").asDouble() / (1024.0 * 1024.0),
        pct.path("50.000000").asDouble(Double.NaN) / 1000.0,
        pct.path("99.000000").asDouble(Double.NaN) / 1000.0,
        d.path("runtime").asDouble() / 1000.0,
        d.path("io_bytes").asLong(),
        cpuUsPerIo(job, d));
  }

  /**
   * fio's usr_cpu and sys_cpu are percentages of the group's summed job runtime (ms); their CPU time over its
   * I/Os, in microseconds.
   */
  private static double cpuUsPerIo(JsonNode job, JsonNode d) {
    double runtimeMs = job.path("job_runtime").asDouble(Double.NaN);
    long ios = d.path("total_ios").asLong(0);
    if (!job.has("usr_cpu") || !job.has("sys_cpu") || !(runtimeMs > 0) || ios <= 0) {
      return Double.NaN;
    }
    double cpuMs = (job.path("usr_cpu").asDouble() + job.path("sys_cpu").asDouble()) / 100 * runtimeMs;
    return cpuMs * 1000 / ios;
  }
}
