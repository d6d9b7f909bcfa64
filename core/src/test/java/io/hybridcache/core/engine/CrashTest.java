package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.hybridcache.core.ChildJvms;
import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kill -9 never brings back an old version. A child JVM ({@link CrashChild}) opens the cache, reads every
 * key back, then puts, overwrites, removes and reads a small key space from two threads (1000 keys of
 * 0.2-3 KB values over the minimum 1 MiB DRAM tier, so evictions and reclaim keep many keys on flash, and
 * occasional {@link Engine#writeBack()}) until it is killed with SIGKILL. {@value #ROUNDS} rounds run on
 * one directory, each child recovering from the previous kill, with no clean close in between. After a
 * first round that fills the cache, the kills come in random order: two at a random point of the open
 * (0 to the last measured open time after {@code main} started: the kill lands in JVM start, index
 * recovery or segment recovery), two 0-100 ms after the open (read-back or first writes), two
 * 300-2000 ms after it (writing, with flushes and reclaim), one during close.
 *
 * <p>The child reports on stdout, one line per event: {@code I k v} before it issues put {@code v} of key
 * {@code k}, {@code P k v} after that put returned, {@code R k v} after a remove returned, {@code G k v}
 * after a read of version {@code v} (values name key and version and carry a pattern derived from both,
 * {@link TestCaches#value}). An acknowledgement the parent saw is one the caller had. The parent keeps,
 * per key, the last acknowledged put or remove and the puts issued after it and never acknowledged (in
 * flight when a kill came: at most one per kill, as each key is written by one thread only).
 *
 * <p>Asserted for every read (by the child right after each reopen and while it writes, and by the
 * parent after the last kill and again after a clean close): the value was written for that key, and it
 * is the last acknowledged put's version or a version issued after the last acknowledgement and still
 * in flight at a kill; or a miss (a crash may lose anything). After an acknowledged remove, only a miss
 * or such an in-flight put may be read. So a read of anything older than the last acknowledged operation
 * (a resurrected version) fails the test, listing key, versions, round and phase. With either index
 * (Chronicle's map file; the compact index's checkpoint, invalidation journal and replay) some reads
 * after a reopen must hit: a restart after kill -9 is warm. One round closes the cache 300-1000 ms after
 * the open while its writers run and is killed 0-60 ms into the close.
 */
class CrashTest {
  private static final int ROUNDS = 8;
  private static final int KEYS = CrashChild.KEYS;
  /** C1 only: a child lives seconds, and Chronicle's open then takes about half as long on two cores. */
  private static final List<String> CHILD_JVM_FLAGS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");
  @TempDir Path dir;

  /** A child's JVM flags: {@link #CHILD_JVM_FLAGS}, and Chronicle's flags only for its index, as users run. */
  static List<String> childFlags(IndexType index) {
    List<String> flags = new ArrayList<>(CHILD_JVM_FLAGS);
    if (index == IndexType.CHRONICLE) {
      flags.addAll(IndexType.CHRONICLE_JVM_FLAGS);
      flags.add("-Dchronicle.analytics.disable=true");
    }
    return flags;
  }

  /** When a round's kill comes. */
  private enum Kill { DURING_OPEN, SHORT, LONG, DURING_CLOSE }

  @Test
  void killDashNineNeverServesAVersionOlderThanTheLastAcknowledged() throws Exception {
    killDashNineNeverServesAVersionOlderThanTheLastAcknowledged(IndexType.HEAP);
  }

  @Test
  @NeedsChronicle
  void killDashNineNeverServesAVersionOlderThanTheLastAcknowledgedOnChronicle() throws Exception {
    killDashNineNeverServesAVersionOlderThanTheLastAcknowledged(IndexType.CHRONICLE);
  }

  /**
   * The same with the small-object engine on (issue 27): values of 200..3000 bytes move between the log
   * engine and the cold small engine; after each kill no version older than the last acknowledged put or
   * remove comes back (the small engine's are gone, the log engine's were invalidated by the journal).
   */
  @Test
  void killDashNineWithTheSmallObjectEngineOnNeverServesAnOlderVersion() throws Exception {
    smallObjects = true;
    killDashNineNeverServesAVersionOlderThanTheLastAcknowledged(IndexType.HEAP);
  }

  private boolean smallObjects;

  private void killDashNineNeverServesAVersionOlderThanTheLastAcknowledged(IndexType index) throws Exception {
    long seed = System.nanoTime();
    Random rnd = new Random(seed);
    Path cacheDir = dir.resolve("cache");
    Ledger ledger = new Ledger();
    List<Kill> plan = new ArrayList<>(List.of(Kill.DURING_OPEN, Kill.DURING_OPEN, Kill.SHORT, Kill.SHORT,
        Kill.LONG, Kill.LONG, Kill.DURING_CLOSE));
    Collections.shuffle(plan, rnd);
    plan.add(0, Kill.LONG); // the first round fills the cache
    long openMillis = 50; // how long the last measured open took
    List<String> kills = new ArrayList<>();
    for (int round = 1; round <= ROUNDS; round++) {
      Kill kill = plan.get(round - 1);
      long delay = switch (kill) {
        case DURING_OPEN -> rnd.nextLong(openMillis + 1); // from the start of main
        case SHORT -> rnd.nextLong(100); // from the open: during read-back or the first writes
        case LONG -> 300 + rnd.nextLong(1700); // from the open
        case DURING_CLOSE -> rnd.nextLong(60); // from the start of close (which comes 300-1000 ms after the open)
      };
      long closeAfter = kill == Kill.DURING_CLOSE ? 300 + rnd.nextLong(700) : -1;
      Feed feed = runAndKill(index, cacheDir, round, seed + round, kill, delay, closeAfter, ledger);
      String when = "r" + round + " " + delay + switch (kill) {
        case DURING_OPEN -> " ms into main";
        case DURING_CLOSE -> " ms into close" + (feed.closed ? " (closed)" : "");
        default -> " ms after the open";
      };
      if (feed.openedNanos == 0) {
        kills.add(when + " (opening)");
      } else {
        openMillis = Math.max(1, (feed.openedNanos - feed.startedNanos) / 1_000_000);
        kills.add(when + (feed.readBack ? "" : " (reading back)") + " [open " + openMillis + " ms]");
      }
    }
    CacheConfig config = TestCaches.small(cacheDir, index, smallObjects).build();
    try (Engine cache = TestCaches.open(config)) {
      ledger.checkAll(cache, "parent, recovered after the last kill");
    }
    try (Engine cache = TestCaches.open(config)) {
      ledger.checkAll(cache, "parent, warm open after a clean close");
    }
    System.out.printf("CrashTest %s%s (seed %d): kills %s; %d puts and %d removes acknowledged, %d of %d keys"
            + " with 5+ acknowledged versions, %d reads checked, %d hits after a reopen (%d of an in-flight put)%n",
        index, smallObjects ? " + small objects" : "", seed, kills, ledger.puts, ledger.removes,
        ledger.keysWithVersions(5), KEYS, ledger.reads, ledger.recoveredHits, ledger.inFlightHits);
    int violations = ledger.afterReopen.size() + ledger.whileWriting.size();
    assertEquals(0, violations, index + " (seed " + seed + "): " + violations + " reads older than the last"
        + " acknowledged operation or wrong; after a reopen (" + ledger.afterReopen.size() + "):\n  "
        + String.join("\n  ", first(10, ledger.afterReopen)) + "\nwhile the child wrote ("
        + ledger.whileWriting.size() + "):\n  " + String.join("\n  ", first(10, ledger.whileWriting)) + "\n");
    assertTrue(ledger.puts > 1000, "the child must have written (" + ledger.puts + " puts acknowledged)");
    assertTrue(ledger.recoveredHits > 0, "a recovered index must serve what reached flash");
  }

  /**
   * Starts a child on {@code cacheDir}, kills it {@code delayMillis} after its start ({@code fromStart})
   * or its open, and returns its output, fed whole into {@code ledger}.
   */
  private Feed runAndKill(IndexType index, Path cacheDir, int round, long seed, Kill kill,
      long delayMillis, long closeAfterMillis, Ledger ledger) throws Exception {
    boolean fromStart = kill == Kill.DURING_OPEN;
    File err = dir.resolve("child-" + round + ".err").toFile();
    Process child = ChildJvms.start(CrashChild.class, "512m", childFlags(index), err, cacheDir.toString(),
        index.name(), Integer.toString(round), Long.toString(seed), Long.toString(closeAfterMillis),
        smallObjects ? "small" : "log");
    Feed feed = new Feed(child.getInputStream(), ledger, round);
    Thread reader = new Thread(feed, "crash-feed-" + round);
    reader.start();
    CountDownLatch from = fromStart ? feed.started : kill == Kill.DURING_CLOSE ? feed.closing : feed.opened;
    if (!from.await(60, TimeUnit.SECONDS) || (fromStart ? feed.startedNanos : feed.openedNanos) == 0
        || kill == Kill.DURING_CLOSE && !feed.closingSeen) {
      child.toHandle().destroyForcibly();
      fail("round " + round + ": the child did not " + (fromStart ? "start" : "open") + ": " + tail(err));
    }
    Thread.sleep(delayMillis);
    assertTrue(child.isAlive(), "round " + round + ": the child died before the kill: " + tail(err));
    child.toHandle().destroyForcibly(); // SIGKILL on Linux; unlike Process.destroyForcibly, keeps stdout
    assertTrue(child.waitFor(30, TimeUnit.SECONDS));
    assertEquals(137, child.exitValue(), "killed by SIGKILL");
    reader.join(30_000);
    assertTrue(!reader.isAlive() && feed.error == null,
        "round " + round + ": reading the child's output: " + feed.error);
    return feed;
  }

  private static List<String> first(int n, List<String> l) {
    return l.subList(0, Math.min(n, l.size()));
  }

  private static String tail(File f) throws IOException {
    if (!f.exists()) {
      return "(no stderr)";
    }
    String s = Files.readString(f.toPath());
    return s.substring(Math.max(0, s.length() - 4000));
  }

  private static String version(long v) {
    return "r" + v / CrashChild.ROUND_VERSIONS + "#" + v % CrashChild.ROUND_VERSIONS;
  }

  /**
   * Per key, the last acknowledged put or remove and the puts issued after it and never acknowledged;
   * checks reads against them. Used by one thread at a time (a round's feed, then the test thread after
   * joining it).
   */
  private static final class Ledger {
    private final long[] acked = new long[KEYS]; // version of the last acknowledged put or remove, 0: none
    private final boolean[] removed = new boolean[KEYS]; // that operation was a remove
    private final int[] putsPerKey = new int[KEYS];
    private final List<TreeSet<Long>> inFlight = new ArrayList<>(); // issued after acked[k], unacknowledged
    final List<String> afterReopen = new ArrayList<>(); // violations read right after a reopen
    final List<String> whileWriting = new ArrayList<>(); // violations read while the child wrote
    long puts;
    long removes;
    long reads;
    long recoveredHits;
    long inFlightHits;

    Ledger() {
      for (int k = 0; k < KEYS; k++) {
        inFlight.add(new TreeSet<>());
      }
    }

    void issued(int k, long v) {
      inFlight.get(k).add(v);
    }

    void acknowledged(int k, long v, boolean remove) {
      acked[k] = v;
      removed[k] = remove;
      inFlight.get(k).clear(); // one thread writes k: everything issued before is settled now
      if (remove) {
        removes++;
      } else {
        puts++;
        putsPerKey[k]++;
      }
    }

    /** A read of {@code k} returned version {@code v} (-1: a value not written for {@code k}). */
    void read(int k, long v, boolean afterReopen, String where) {
      reads++;
      if (afterReopen) {
        recoveredHits++;
      }
      if (v > 0 && v == acked[k] && !removed[k]) {
        return;
      }
      if (v > 0 && inFlight.get(k).contains(v)) {
        inFlightHits++;
        return;
      }
      String last = acked[k] == 0 ? "none" : (removed[k] ? "remove " : "put ") + version(acked[k]);
      String what = v <= 0 ? "a value not written for it"
          : v < acked[k] ? "version " + version(v) + ", OLDER than the last acknowledged operation"
          : "version " + version(v) + ", never issued for it";
      String violation = where + ": key " + k + " read " + what + " (last acknowledged: " + last
          + "; in flight: " + inFlight.get(k).stream().map(CrashTest::version).toList() + ")";
      (afterReopen ? this.afterReopen : whileWriting).add(violation);
    }

    void checkAll(Engine cache, String where) {
      for (int k = 0; k < KEYS; k++) {
        byte[] v = cache.get(TestCaches.key(k));
        if (v != null) {
          read(k, TestCaches.versionOf(k, v), true, where);
        }
      }
    }

    int keysWithVersions(int n) {
      int c = 0;
      for (int p : putsPerKey) {
        c += p >= n ? 1 : 0;
      }
      return c;
    }
  }

  /**
   * Reads one child's stdout to its end (after the kill: the pipe still holds what the child wrote) and
   * feeds the ledger whole lines only.
   */
  private static final class Feed implements Runnable {
    private final InputStream in;
    private final Ledger ledger;
    private final int round;
    final CountDownLatch started = new CountDownLatch(1);
    final CountDownLatch opened = new CountDownLatch(1);
    final CountDownLatch closing = new CountDownLatch(1);
    volatile boolean closingSeen;
    volatile boolean closed;
    volatile long startedNanos;
    volatile long openedNanos;
    volatile boolean readBack;
    volatile IOException error;

    Feed(InputStream in, Ledger ledger, int round) {
      this.in = in;
      this.ledger = ledger;
      this.round = round;
    }

    @Override
    public void run() {
      StringBuilder line = new StringBuilder();
      byte[] buf = new byte[64 * 1024];
      try (in) {
        for (int n; (n = in.read(buf)) > 0; ) {
          for (int i = 0; i < n; i++) {
            if (buf[i] == '\n') {
              handle(line.toString());
              line.setLength(0);
            } else {
              line.append((char) buf[i]);
            }
          }
        }
      } catch (IOException e) {
        error = e;
      } finally {
        started.countDown();
        opened.countDown();
        closing.countDown();
      }
    }

    private void handle(String line) {
      try {
        dispatch(line.split(" "));
      } catch (RuntimeException e) {
        ledger.whileWriting.add("round " + round + ": unreadable child output: " + line);
      }
    }

    private void dispatch(String[] f) {
      switch (f[0]) {
        case "S" -> {
          startedNanos = System.nanoTime();
          started.countDown();
        }
        case "O" -> {
          openedNanos = System.nanoTime();
          opened.countDown();
        }
        case "C" -> readBack = true;
        case "Z" -> {
          closingSeen = true;
          closing.countDown();
        }
        case "E" -> closed = true;
        case "I" -> ledger.issued(Integer.parseInt(f[1]), Long.parseLong(f[2]));
        case "P" -> ledger.acknowledged(Integer.parseInt(f[1]), Long.parseLong(f[2]), false);
        case "R" -> ledger.acknowledged(Integer.parseInt(f[1]), Long.parseLong(f[2]), true);
        case "G" -> ledger.read(Integer.parseInt(f[1]), Long.parseLong(f[2]), !readBack, where());
        case "X" -> ledger.read(Integer.parseInt(f[1]), -1, !readBack, where());
        default -> throw new IllegalArgumentException(f[0]);
      }
    }

    private String where() {
      return "round " + round + (readBack ? ", child writing" : ", child reading back after the reopen");
    }
  }
}
