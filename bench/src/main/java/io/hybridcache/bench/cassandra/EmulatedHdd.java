package io.hybridcache.bench.cassandra;

import io.hybridcache.bench.MemoryCgroup;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A slow data disk for a Cassandra node on a machine that has only fast ones (FACTS.md, "Emulating
 * an HDD for SSTables"): a loop device over an image file with loop direct I/O on (otherwise the
 * image's own page cache, outside any memory cgroup, would answer the reads), ext4 on it, mounted as
 * the node's storage directory, read-ahead 128 KiB, and two cgroup v1 groups the node starts in — a
 * blkio group whose {@code blkio.throttle.*_device} limits on the loop device's MAJ:MIN give the
 * IOPS and bandwidth of a 7,200 rpm disk, and a memory group that bounds the node's heap, off-heap
 * memory and the page cache of its SSTables together, so the data set cannot sit in RAM.
 *
 * <p>The throttle bounds request rate and bandwidth, not each seek: it releases requests in bursts
 * (fio: 200 IOPS set, mean 4.9 ms, p50 258 µs, p99 94 ms). Under cgroup v1 buffered writeback is
 * issued by kernel threads outside the group, so memtable flushes are not throttled; reads, and
 * writes the node's own threads submit (fsync), are.
 *
 * <p>Needs root. {@link #missing} says what is absent before anything is touched. {@link #close}
 * undoes everything this object set up (unmount, detach the loop device, remove the cgroups) and
 * may be called again or from a shutdown hook; the node must have exited first. Thread-safe: every
 * method is synchronized.
 */
final class EmulatedHdd implements AutoCloseable {
  static final Path BLKIO = Path.of("/sys/fs/cgroup/blkio");
  static final Path MEMORY = Path.of("/sys/fs/cgroup/memory");
  static final int READ_AHEAD_KB = 128;

  /** Limits of the blkio throttle; 0 = none. */
  record Throttle(long readIops, long writeIops, long readBps, long writeBps) {
    static final Throttle NONE = new Throttle(0, 0, 0, 0);
  }

  private final Path image;
  private final Path mountPoint;
  private final String loop; // e.g. loop3
  private final String majMin; // e.g. 7:3
  private final PrintStream log;
  private boolean mounted;
  private boolean attached;
  private Path blkioGroup;
  private MemoryCgroup memoryGroup;

  private EmulatedHdd(Path image, Path mountPoint, String loop, String majMin, PrintStream log) {
    this.image = image;
    this.mountPoint = mountPoint;
    this.loop = loop;
    this.majMin = majMin;
    this.log = log;
  }

  /**
   * What this machine lacks for the emulated disk (empty if nothing): root, the cgroup v1 blkio and
   * memory controllers, loop devices, losetup / mkfs.ext4 / mount / umount.
   */
  static List<String> missing() {
    List<String> m = new ArrayList<>();
    long uid = effectiveUid();
    if (uid != 0) {
      m.add("root (running as uid " + (uid < 0 ? "unknown" : uid) + "): loop devices, mount and cgroups need it");
    }
    if (!Files.isRegularFile(BLKIO.resolve("blkio.throttle.read_iops_device"))) {
      m.add("the cgroup v1 blkio controller with throttling (" + BLKIO.resolve("blkio.throttle.read_iops_device")
          + " not found; cgroup v2-only machines are not supported)");
    }
    if (!Files.isRegularFile(MEMORY.resolve("memory.limit_in_bytes"))) {
      m.add("the cgroup v1 memory controller (" + MEMORY.resolve("memory.limit_in_bytes") + " not found)");
    }
    if (!Files.exists(Path.of("/dev/loop-control"))) {
      m.add("loop devices (/dev/loop-control not found: modprobe loop)");
    }
    for (String tool : List.of("losetup", "mkfs.ext4", "mount", "umount")) {
      if (which(tool) == null) {
        m.add(tool + " (util-linux / e2fsprogs) on the PATH or in /sbin, /usr/sbin");
      }
    }
    return m;
  }

  private static long effectiveUid() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Uid:")) {
          return Long.parseLong(line.substring(4).trim().split("\\s+")[1]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  private static Path which(String tool) {
    List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
    dirs.addAll(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
    for (String d : dirs) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, tool))) {
        return Path.of(d, tool);
      }
    }
    return null;
  }

  /** Creates {@code image} as a sparse file of {@code bytes}; refuses to overwrite an existing file. */
  static void createImage(Path image, long bytes) throws IOException {
    Files.createDirectories(image.toAbsolutePath().getParent());
    Files.createFile(image); // fails if it exists: never overwrite a file this run did not make
    try (RandomAccessFile f = new RandomAccessFile(image.toFile(), "rw")) {
      f.setLength((bytes + (1 << 20) - 1) & -(1L << 20)); // whole MiBs: a loop device takes whole sectors
    }
  }

  /**
   * Attaches {@code image} to a free loop device with direct I/O, makes ext4 on it if
   * {@code format}, mounts it on {@code mountPoint} (created if missing) and sets its read-ahead.
   * On failure undoes what it did and throws.
   */
  static EmulatedHdd attach(Path image, Path mountPoint, boolean format, PrintStream log) throws IOException {
    String dev = attachLoop(image);
    String name = dev.substring(dev.lastIndexOf('/') + 1);
    EmulatedHdd d = null;
    try {
      if (!"1".equals(sys(name, "loop/dio"))) {
        // direct I/O needs the loop's logical block size to match the backing file system's
        run(List.of(tool("losetup"), "-d", dev));
        dev = attachLoop(image, "--sector-size", "4096");
        name = dev.substring(dev.lastIndexOf('/') + 1);
        if (!"1".equals(sys(name, "loop/dio"))) {
          run(List.of(tool("losetup"), "-d", dev));
          throw new IOException("loop direct I/O cannot be turned on for " + image + " (does its file system allow"
              + " O_DIRECT?): without it reads would come from the image's page cache, outside the memory cgroup");
        }
      }
      d = new EmulatedHdd(image, mountPoint.toAbsolutePath(), name, sys(name, "dev"), log);
      d.attached = true;
      if (format) {
        run(List.of(tool("mkfs.ext4"), "-q", "-F", dev));
      }
      Files.createDirectories(d.mountPoint);
      run(List.of(tool("mount"), dev, d.mountPoint.toString()));
      d.mounted = true;
      Files.writeString(Path.of("/sys/block", name, "queue", "read_ahead_kb"), Integer.toString(READ_AHEAD_KB));
      log.printf("cassandra: emulated HDD: %s (%s, direct I/O) over %s mounted on %s, read-ahead %d KiB%n",
          dev, d.majMin, image, d.mountPoint, READ_AHEAD_KB);
      return d;
    } catch (IOException | RuntimeException e) {
      if (d != null) {
        d.close();
      } else {
        runQuietly(List.of(tool("losetup"), "-d", dev));
      }
      throw e;
    }
  }

  private static String attachLoop(Path image, String... extra) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(tool("losetup"), "--find", "--show", "--direct-io=on"));
    cmd.addAll(List.of(extra));
    cmd.add(image.toAbsolutePath().toString());
    String out = run(cmd).trim();
    String dev = out.lines().map(String::trim).filter(l -> l.matches("/dev/loop\\d+")).reduce((a, b) -> b)
        .orElseThrow(() -> new IOException("losetup printed '" + out + "', not a loop device"));
    return dev; // the last line: losetup may print warnings before it
  }

  private static String sys(String loopName, String file) throws IOException {
    return Files.readString(Path.of("/sys/block", loopName, file), StandardCharsets.US_ASCII).trim();
  }

  /**
   * Makes this disk's cgroups, {@code name} below this process's own blkio and memory groups: the
   * memory group limited to {@code memoryLimit} bytes, the blkio group unthrottled until
   * {@link #throttle}. Returns their directories, for the node to join before it starts.
   */
  synchronized List<Path> createCgroups(String name, long memoryLimit) throws IOException {
    String self = Files.readString(Path.of("/proc/self/cgroup"));
    blkioGroup = BLKIO.resolve(relative(ownCgroup(self, "blkio"))).resolve(name);
    Files.createDirectory(blkioGroup);
    MemoryCgroup.Attempt a = MemoryCgroup.create(relative(ownCgroup(self, "memory") + "/" + name), memoryLimit);
    if (a.group() == null) {
      throw new IOException(a.whyNot());
    }
    memoryGroup = a.group();
    log.printf("cassandra: cgroups %s (blkio) and %s (memory, limit %d MiB)%n", blkioGroup, memoryGroup.dir(),
        memoryLimit >> 20);
    return List.of(blkioGroup, memoryGroup.dir());
  }

  private static String relative(String cgroupPath) {
    return cgroupPath.replaceFirst("^/+", "");
  }

  /**
   * This process's cgroup path for v1 {@code controller} from the text of {@code /proc/self/cgroup}
   * ("4:memory:/a/b" lines; a line may name several controllers, "2:cpu,cpuacct:/"); "/" if absent.
   */
  static String ownCgroup(String procSelfCgroup, String controller) {
    for (String line : procSelfCgroup.split("\n")) {
      String[] f = line.split(":", 3);
      if (f.length == 3 && List.of(f[1].split(",")).contains(controller)) {
        return f[2].trim().isEmpty() ? "/" : f[2].trim();
      }
    }
    return "/";
  }

  /** Sets (or, with {@link Throttle#NONE}, lifts) the blkio limits on this disk for the node's group. */
  synchronized void throttle(Throttle t) throws IOException {
    if (blkioGroup == null) {
      throw new IllegalStateException("createCgroups first");
    }
    write("blkio.throttle.read_iops_device", t.readIops());
    write("blkio.throttle.write_iops_device", t.writeIops());
    write("blkio.throttle.read_bps_device", t.readBps());
    write("blkio.throttle.write_bps_device", t.writeBps());
  }

  private void write(String file, long limit) throws IOException {
    // "MAJ:MIN 0" removes a rule; writing 0 where there is none is accepted too
    Files.writeString(blkioGroup.resolve(file), majMin + " " + limit);
  }

  /**
   * Writes dirty pages back and drops the clean page cache of the whole machine (root), so the next
   * run starts with none of the data set in memory. Global: other work on the machine loses its cache
   * too, which is why the experiment wants the machine to itself.
   */
  static void dropPageCache() throws IOException {
    run(List.of("sync"), 600);
    Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3");
  }

  /** The loop device's counters now (all I/O on this disk, by any process). */
  synchronized KernelCounters.BlockStat stat() throws IOException {
    return KernelCounters.blockStat(loop);
  }

  /** {read, write} requests the node's blkio group has had serviced on this disk so far. */
  synchronized long[] ioServiced() throws IOException {
    return KernelCounters.parseIoServiced(Files.readString(blkioGroup.resolve("blkio.throttle.io_serviced")), majMin);
  }

  /** The node's memory group (peak, anonymous memory, page cache, OOM kills); null before {@link #createCgroups}. */
  synchronized MemoryCgroup memoryGroup() {
    return memoryGroup;
  }

  String majMin() {
    return majMin;
  }

  String loopName() {
    return loop;
  }

  Path mountPoint() {
    return mountPoint;
  }

  /**
   * Unmounts (retrying while the file system is still busy), detaches the loop device and removes
   * the cgroups; logs what it could not undo and goes on. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (mounted) {
      boolean done = false;
      for (int i = 0; i < 20 && !done; i++) {
        done = runQuietly(List.of(tool("umount"), mountPoint.toString())) == null;
        if (!done) {
          sleep(500);
        }
      }
      if (!done) {
        log.println("cassandra: WARNING: " + mountPoint + " still busy after 10 s: lazy unmount (umount -l)");
        runQuietly(List.of(tool("umount"), "-l", mountPoint.toString()));
      } else {
        try {
          Files.deleteIfExists(mountPoint); // the empty mount point; left if anything is in it
        } catch (IOException e) {
          log.println("cassandra: mount point " + mountPoint + " left in place: " + e);
        }
      }
      mounted = false;
    }
    if (attached) {
      String e = runQuietly(List.of(tool("losetup"), "-d", "/dev/" + loop));
      if (e != null) {
        log.println("cassandra: WARNING: losetup -d /dev/" + loop + ": " + e);
      }
      attached = false;
    }
    removeGroup(blkioGroup);
    blkioGroup = null;
    removeGroup(memoryGroup == null ? null : memoryGroup.dir());
    memoryGroup = null;
    log.printf("cassandra: emulated HDD over %s taken down%n", image);
  }

  private void removeGroup(Path group) {
    if (group == null) {
      return;
    }
    for (int i = 0; i < 20; i++) {
      try {
        Files.deleteIfExists(group); // rmdir: fails while a process is still inside
        return;
      } catch (IOException e) {
        sleep(500);
      }
    }
    log.println("cassandra: WARNING: cannot remove cgroup " + group + " (a process still in it?)");
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static String tool(String name) {
    Path p = which(name);
    return p == null ? name : p.toString();
  }

  /** Runs {@code cmd}; returns its stdout; throws with its output if it fails or runs over 120 s. */
  static String run(List<String> cmd) throws IOException {
    return run(cmd, 120);
  }

  /** Runs {@code cmd}; returns its stdout; throws with its output if it fails or runs over {@code seconds}. */
  static String run(List<String> cmd, long seconds) throws IOException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", cmd) + " did not finish in " + seconds + " s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      throw new IOException(String.join(" ", cmd) + ": interrupted", e);
    }
    if (p.exitValue() != 0) {
      throw new IOException(String.join(" ", cmd) + " failed (exit " + p.exitValue() + "): " + out.trim());
    }
    return out;
  }

  /** Runs {@code cmd}; null on success, else what went wrong. */
  private static String runQuietly(List<String> cmd) {
    try {
      run(cmd);
      return null;
    } catch (IOException e) {
      return e.getMessage();
    }
  }
}
