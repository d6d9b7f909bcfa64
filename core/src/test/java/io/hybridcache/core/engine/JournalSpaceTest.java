package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.device.SmallTmpfs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The invalidation journal is memory-mapped, so it must never be sparse: a store onto an unallocated page
 * of a full disk is a SIGBUS, which the JVM raises as an asynchronous {@link InternalError} that can leave
 * a lock held (issue 25 item 0). Every byte is allocated at creation, and a disk that cannot hold the
 * file fails the open cleanly instead.
 */
class JournalSpaceTest {
  @TempDir Path dir;

  @Test
  void theJournalFileIsAllocatedWhole() throws Exception {
    Path file = dir.resolve(InvalidationJournal.FILE);
    try (InvalidationJournal j = InvalidationJournal.create(file, 1, InvalidationJournal.MIN_CAPACITY, false)) {
      long size = Files.size(file);
      long allocated = allocatedBytes(file);
      assertTrue(allocated >= size, "journal of " + size + " bytes has only " + allocated + " allocated");
    }
  }

  @Test
  void aDiskThatCannotHoldTheJournalFailsTheOpenAndKeepsNoSpace() throws Exception {
    try (SmallTmpfs tmpfs = SmallTmpfs.mount("1m")) {
      Path file = tmpfs.root().resolve(InvalidationJournal.FILE); // 2 MiB + 8 KiB at the least capacity
      IOException full = assertThrows(IOException.class,
          () -> InvalidationJournal.create(file, 1, InvalidationJournal.MIN_CAPACITY, false).close());
      assertTrue(String.valueOf(full.getMessage()).contains("No space left on device"), full.toString());
      assertEquals(0, Files.size(file), "the part reserved before the failure is given back");

      CacheConfig config = TestCaches.small(tmpfs.root().resolve("cache"), IndexType.HEAP).build();
      RuntimeException open = assertThrows(RuntimeException.class, () -> Engine.open(config).close());
      assertTrue(String.valueOf(messages(open)).contains("No space left on device"), messages(open));
      // the failed open released the directory: a second one fails the same way, not on the lock
      RuntimeException again = assertThrows(RuntimeException.class, () -> Engine.open(config).close());
      assertTrue(String.valueOf(messages(again)).contains("No space left on device"), messages(again));
    }
  }

  private static String messages(Throwable t) {
    StringBuilder b = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      b.append(c).append(" <- ");
    }
    return b.toString();
  }

  /** Bytes the file system allocated to {@code file} ({@code stat}: blocks times block size). */
  private static long allocatedBytes(Path file) throws IOException, InterruptedException {
    Process p;
    try {
      p = new ProcessBuilder("stat", "-c", "%b %B", file.toString()).redirectErrorStream(true).start();
    } catch (IOException e) {
      Assumptions.abort("no stat command to count allocated blocks: " + e);
      return 0;
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    Assumptions.assumeTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, "stat failed: " + out);
    String[] parts = out.split(" ");
    return Long.parseLong(parts[0]) * Long.parseLong(parts[1]);
  }
}
