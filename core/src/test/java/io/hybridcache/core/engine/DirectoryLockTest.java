package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.ChildJvms;
import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One cache per directory at a time: a second open, in this JVM or another, fails at once naming the
 * directory and the holder's pid; the lock goes with close, with a failed open and with a killed
 * process. Child JVMs run {@link LockChild}; the test waits on their output, never on time.
 */
@Timeout(120)
class DirectoryLockTest {
  private static final String OUR_PID = Long.toString(ProcessHandle.current().pid());
  @TempDir Path tmp; // holds the cache directory and the children's stderr files beside it

  private Path dir() {
    return tmp.resolve("cache");
  }

  private CacheConfig config() {
    return TestCaches.small(dir(), IndexType.HEAP).build();
  }

  private static String openFailure(CacheConfig c) {
    return assertThrows(UncheckedIOException.class, () -> TestCaches.open(c).close()).getMessage();
  }

  private Process child(String mode, String name) throws Exception {
    return ChildJvms.start(LockChild.class, "256m", new File(tmp.toFile(), name + ".err"), mode, dir().toString());
  }

  private static String line(BufferedReader out, Process p, String what) throws IOException {
    String l = out.readLine();
    assertNotNull(l, "child " + p.pid() + " ended without printing " + what);
    return l;
  }

  @Test
  void aSecondOpenInThisProcessFailsAtOnceNamingTheDirectoryAndPid() {
    try (Engine first = TestCaches.open(config())) {
      long start = System.nanoTime();
      String m = openFailure(config());
      assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10), "fails at once, does not wait");
      assertTrue(m.contains(dir().toString()) && m.contains(OUR_PID), m);
      first.put(key(1), value(1, 1, 100));
      assertArrayEquals(value(1, 1, 100), first.get(key(1)), "the first cache is unharmed");
    }
    try (Engine again = TestCaches.open(config())) {
      assertArrayEquals(value(1, 1, 100), again.get(key(1)), "reopened after close");
    }
  }

  @Test
  void aRefusedSecondOpenInThisProcessStillExcludesOtherProcesses() throws Exception {
    // On Linux, closing any descriptor of a file drops the process's fcntl locks on it: the refused
    // open must not have opened (and closed) the LOCK file.
    try (Engine first = TestCaches.open(config())) {
      openFailure(config());
      Process p = child("try", "try");
      try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        String l = line(out, p, "its result");
        assertTrue(l.startsWith("REFUSED") && l.contains(dir().toString()) && l.contains("process " + OUR_PID), l);
      }
      assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    }
  }

  @Test
  void anotherProcessHoldingTheDirectoryIsNamedByPidAndReleasesItAtClose() throws Exception {
    Process p = child("hold", "hold");
    try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      assertEquals("OPEN " + p.pid(), line(out, p, "OPEN"));
      String m = openFailure(config());
      assertTrue(m.contains(dir().toString()) && m.contains("process " + p.pid()), m);
      p.getOutputStream().write('\n');
      p.getOutputStream().flush();
      assertEquals("CLOSED", line(out, p, "CLOSED"));
    }
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue());
    try (Engine e = TestCaches.open(config())) {
      e.put(key(1), value(1, 1, 100));
    }
    assertTrue(Files.readString(dir().resolve("LOCK")).contains(OUR_PID), "LOCK is kept, with the last pid");
  }

  @Test
  void aKilledHolderLeavesNoStaleLock() throws Exception {
    Process p = child("hold", "killed");
    try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      assertEquals("OPEN " + p.pid(), line(out, p, "OPEN"));
      p.destroyForcibly();
      assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    }
    assertTrue(Files.readString(dir().resolve("LOCK")).contains(Long.toString(p.pid())));
    try (Engine e = TestCaches.open(config())) {
      e.put(key(1), value(1, 1, 100));
    }
  }

  @Test
  void anOpenThatFailsPartWayReleasesTheLock() {
    UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> Engine.open(config(),
        (d, n, b, direct) -> {
          throw new IOException("no device today");
        }).close());
    assertTrue(e.getMessage().contains("no device today"), e.getMessage());
    try (Engine first = TestCaches.open(config())) {
      String m = openFailure(config());
      assertTrue(m.contains(OUR_PID), "and the lock works again: " + m);
    }
  }
}
