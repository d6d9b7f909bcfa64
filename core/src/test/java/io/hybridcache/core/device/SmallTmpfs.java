package io.hybridcache.core.device;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A small tmpfs mounted for a test: a real full disk. Needs Linux and root (CAP_SYS_ADMIN); where
 * mounting is not permitted {@link #mount} skips the test through an assumption that says why.
 * {@link #close} always unmounts (lazily if a file is still open) and removes the mount point.
 */
public final class SmallTmpfs implements AutoCloseable {
  private final Path mountPoint;

  private SmallTmpfs(Path mountPoint) {
    this.mountPoint = mountPoint;
  }

  /** Mounts a tmpfs of {@code size} (mount's syntax: "2m", "40m") on a new temporary directory. */
  public static SmallTmpfs mount(String size) throws IOException, InterruptedException {
    Assumptions.assumeTrue(System.getProperty("os.name", "").toLowerCase().contains("linux"),
        "a small tmpfs needs Linux; this is " + System.getProperty("os.name"));
    Path dir = Files.createTempDirectory("hybridcache-diskfull");
    List<String> mount = List.of("mount", "-t", "tmpfs", "-o", "size=" + size + ",mode=0700", "tmpfs",
        dir.toString());
    String[] output = {""};
    int exit = run(mount, output);
    if (exit != 0) {
      Files.deleteIfExists(dir);
    }
    Assumptions.assumeTrue(exit == 0, "cannot mount a small tmpfs here (needs root): " + output[0]);
    return new SmallTmpfs(dir);
  }

  public Path root() {
    return mountPoint;
  }

  /** Deletes everything under the mount point (not the mount point itself). */
  public void empty() throws IOException {
    try (Stream<Path> files = Files.walk(mountPoint)) {
      for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
        if (!path.equals(mountPoint)) {
          Files.delete(path);
        }
      }
    }
  }

  @Override
  public void close() throws IOException, InterruptedException {
    String[] output = {""};
    if (run(List.of("umount", mountPoint.toString()), output) != 0
        && run(List.of("umount", "-l", mountPoint.toString()), output) != 0) { // a file still open: detach
      throw new IOException("cannot unmount " + mountPoint + ": " + output[0]);
    }
    Files.deleteIfExists(mountPoint);
  }

  private static int run(List<String> command, String[] output) throws InterruptedException {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      output[0] = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      return p.waitFor(60, TimeUnit.SECONDS) ? p.exitValue() : -1;
    } catch (IOException e) {
      output[0] = e.toString();
      return -1;
    }
  }
}
