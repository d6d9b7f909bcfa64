package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.NoFlagsChurnChild.KEYS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.hybridcache.core.ChildJvms;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user's application as users run it, in child JVMs with no flags at all: churn a data set 1.5x the
 * flash budget with reads between writes until reclaim has run on its summary path and its scan path,
 * kill -9 it, and read every key back in a second plain JVM against the last acknowledged version.
 * Caught: the key hash read direct buffers through {@code sun.nio.ch.DirectBuffer}, an
 * {@code IllegalAccessError} without {@code --add-exports} on reclaim's scan and on warm recovery, so the
 * tier degraded under churn and the cache could not reopen after a crash (issue 24). In CI's JDK 25 run
 * the children inherit {@code --sun-misc-unsafe-memory-access=deny} ({@link ChildJvms}).
 */
@Timeout(600)
class NoFlagsChurnTest {
  @TempDir Path dir;

  @Test
  void aPlainJvmChurnsIsKilledAndReopensWarmWithNoWrongValue() throws Exception {
    long seed = System.nanoTime();
    Path cacheDir = dir.resolve("cache");
    Ledger ledger = new Ledger();

    File churnErr = dir.resolve("churn.err").toFile();
    Process churn = ChildJvms.start(NoFlagsChurnChild.class, "512m", List.of(), churnErr, cacheDir.toString(),
        "churn", Long.toString(seed));
    Thread feed = new Thread(() -> ledger.feed(churn.getInputStream()), "churn-feed");
    feed.start();
    if (!ledger.ready.await(300, TimeUnit.SECONDS) || !ledger.readySeen) {
      churn.toHandle().destroyForcibly();
      fail("the churn did not reach 1.5x the flash budget with reclaim on both paths; last report "
          + ledger.lastReport + "; stderr: " + tail(churnErr));
    }
    Thread.sleep(new Random(seed).nextInt(300)); // the kill lands at a random point of the churn
    assertTrue(churn.isAlive(), "the churn died before the kill: " + tail(churnErr));
    churn.toHandle().destroyForcibly(); // SIGKILL
    assertTrue(churn.waitFor(30, TimeUnit.SECONDS));
    assertEquals(137, churn.exitValue(), "killed by SIGKILL");
    feed.join(30_000);
    assertFalse(feed.isAlive());

    File verifyErr = dir.resolve("verify.err").toFile();
    Process verify = ChildJvms.start(NoFlagsChurnChild.class, "512m", List.of(), verifyErr, cacheDir.toString(),
        "verify");
    Verified after = Verified.read(verify.getInputStream(), ledger);
    assertTrue(verify.waitFor(120, TimeUnit.SECONDS));
    assertEquals(0, verify.exitValue(), "the reopen failed: " + tail(verifyErr));

    String[] m = ledger.lastReport.split(" ");
    long summary = Long.parseLong(m[2]);
    long scan = Long.parseLong(m[3]);
    long churnFaults = Long.parseLong(m[4]);
    boolean churnDegraded = Boolean.parseBoolean(m[5]);
    double served = after.flashEntries == 0 ? 0 : (double) after.hits / after.flashEntries;
    System.out.printf("NoFlagsChurnTest (Java %s, JVM flags of the children %s, seed %d): %,d bytes written for a"
            + " %,d-byte flash budget, %,d puts and %,d removes acknowledged; reclaim passes: %d from the summary,"
            + " %d by scan; writer faults %d (churn) + %d (reopen), degraded %b / %b; after the kill: %,d flash"
            + " entries, %,d served (%.4f), %d wrong%n",
        Runtime.version(), ChildJvms.strictFlagsOfThisJvm(), seed, Long.parseLong(m[1]),
        NoFlagsChurnChild.FLASH_BYTES, ledger.puts, ledger.removes, summary, scan, churnFaults, after.writerFaults,
        churnDegraded, after.degraded, after.flashEntries, after.hits, served, after.wrong.size());
    assertEquals(List.of(), after.wrong.subList(0, Math.min(10, after.wrong.size())), "wrong values after the kill");
    assertEquals(0, churnFaults + after.writerFaults, "writer faults");
    assertFalse(churnDegraded || after.degraded, "the tier degraded");
    assertTrue(summary > 0 && scan > 0, "reclaim ran on both paths: summary " + summary + ", scan " + scan);
    assertTrue(after.flashEntries > KEYS / 4, "the recovered index is warm: " + after.flashEntries + " entries");
    assertTrue(served >= 0.95, "served " + after.hits + " of " + after.flashEntries + " flash entries after the kill");
  }

  private static String tail(File f) throws IOException {
    String s = f.exists() ? Files.readString(f.toPath()) : "(no stderr)";
    return s.substring(Math.max(0, s.length() - 4000));
  }

  /** The churn's acknowledged operations: one writer, so at most one put per key is unacknowledged. */
  private static final class Ledger {
    final long[] acked = new long[KEYS]; // version of the last acknowledged put or remove; 0: none
    final boolean[] removed = new boolean[KEYS];
    final long[] inFlight = new long[KEYS]; // a put issued after acked[k] and never acknowledged; 0: none
    final CountDownLatch ready = new CountDownLatch(1);
    volatile boolean readySeen;
    volatile String lastReport = "(none)";
    long puts;
    long removes;

    void feed(java.io.InputStream in) {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII))) {
        for (String line; (line = r.readLine()) != null; ) {
          String[] f = line.split(" ");
          switch (f[0]) {
            case "I" -> inFlight[Integer.parseInt(f[1])] = Long.parseLong(f[2]);
            case "P", "R" -> {
              int k = Integer.parseInt(f[1]);
              acked[k] = Long.parseLong(f[2]);
              removed[k] = f[0].equals("R");
              inFlight[k] = 0;
              if (removed[k]) {
                removes++;
              } else {
                puts++;
              }
            }
            case "M" -> lastReport = line;
            case "READY" -> {
              readySeen = true;
              ready.countDown();
            }
            default -> throw new IllegalStateException("unreadable line: " + line);
          }
        }
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      } finally {
        ready.countDown();
      }
    }

    /** Null if version {@code v} of {@code k} may be read after the kill, else why not. */
    String check(int k, long v) {
      if (v > 0 && ((v == acked[k] && !removed[k]) || v == inFlight[k])) {
        return null;
      }
      return "key " + k + " read " + (v < 0 ? "a value not written for it" : "version " + v) + "; last acknowledged "
          + (acked[k] == 0 ? "none" : (removed[k] ? "remove " : "put ") + acked[k]) + ", in flight " + inFlight[k];
    }
  }

  /** What the reopening JVM read. */
  private static final class Verified {
    long flashEntries = -1;
    long hits;
    long writerFaults = -1;
    boolean degraded;
    final List<String> wrong = new ArrayList<>();

    static Verified read(java.io.InputStream in, Ledger ledger) throws IOException {
      Verified v = new Verified();
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII))) {
        for (String line; (line = r.readLine()) != null; ) {
          String[] f = line.split(" ");
          switch (f[0]) {
            case "F" -> v.flashEntries = Long.parseLong(f[1]);
            case "G", "X" -> {
              v.hits++;
              String why = ledger.check(Integer.parseInt(f[1]), f[0].equals("X") ? -1 : Long.parseLong(f[2]));
              if (why != null) {
                v.wrong.add(why);
              }
            }
            case "S" -> {
              v.writerFaults = Long.parseLong(f[1]);
              v.degraded = Boolean.parseBoolean(f[2]);
            }
            default -> throw new IllegalStateException("unreadable line: " + line);
          }
        }
      }
      return v;
    }
  }
}
