package io.hybridcache.bench.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Empties the page cache before each store runs (sync, then {@code /proc/sys/vm/drop_caches = 3}),
 * so no store starts with another's files or its own load in DRAM. Needs root; without it, nothing.
 */
final class DropCaches {
  private DropCaches() {}

  /** True if the caches were dropped. */
  static boolean tryDrop() {
    try {
      new ProcessBuilder("sync").inheritIO().start().waitFor();
      Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3");
      return true;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
