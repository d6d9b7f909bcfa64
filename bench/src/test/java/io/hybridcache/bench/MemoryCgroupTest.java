package io.hybridcache.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process in a memory cgroup cannot keep more page cache than the limit: the reason the
 * comparison runs every store in one. Runs where the cgroup tree is writable (root); skipped
 * elsewhere, saying why.
 */
class MemoryCgroupTest {
  private static final long LIMIT = 32L << 20;

  @TempDir
  Path dir;

  @Test
  void pageCacheOfAChildStaysUnderTheLimit() throws Exception {
    MemoryCgroup.Attempt a = MemoryCgroup.create("hybridcache-test-" + ProcessHandle.current().pid(), LIMIT);
    assumeTrue(a.group() != null, () -> "no memory cgroup here: " + a.whyNot());
    Path file = dir.resolve("data.bin");
    byte[] chunk = new byte[1 << 20];
    try (OutputStream out = Files.newOutputStream(file)) {
      for (int i = 0; i < 128; i++) {
        chunk[0] = (byte) i;
        out.write(chunk);
      }
    }
    try (MemoryCgroup g = a.group()) {
      // the child reads all 128 MiB through the page cache, then reports what it counted
      Process p = new ProcessBuilder(g.wrap(List.of("sh", "-c", "cat '" + file + "' | wc -c"))).start();
      String counted = new String(p.getInputStream().readAllBytes()).trim();
      assertEquals(0, p.waitFor());
      assertEquals(Long.toString(128L << 20), counted);
      long peak = g.peakBytes();
      assumeTrue(peak >= 0, "the kernel reports no peak usage");
      assertTrue(peak <= LIMIT, "peak " + peak + " over the limit " + LIMIT);
      assertTrue(peak > 0, "the child's page cache was not charged to the group");
    }
  }
}
