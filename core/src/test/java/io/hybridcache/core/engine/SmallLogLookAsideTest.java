package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.SmallTestKeys.key;
import static io.hybridcache.core.engine.SmallTestKeys.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.hybridcache.core.device.MemoryDevice;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The log in front of the sets under a look-aside workload (issue 36's design study, src/site/small-design.md:
 * its simulator favours a high move threshold where overwrites are rare; this runs the engine's own log and sets
 * on it). The same region as {@link SmallLogSteadyStateTest} (4,096 pages, capacity C = 31 objects a page, 100 B
 * values); keys drawn from 2 C: a get, and a put of the key if it missed (versions never change, so no overwrite
 * of a resident key). {@code uniform}: every key alike; {@code hotspot}: 80% of requests to a fifth of the keys,
 * the hot fifth moving to the next fifth every 2 C requests (popularity that changes); {@code mix}: uniform keys,
 * half the requests a put of a new version of the key (overwrites), half a get as above; every hit must be its
 * key's newest version. 60 C requests of warm-up,
 * then 10 C measured: hit ratio (of the gets), app WA (page bytes written per byte admitted), DRAM per object on flash, device
 * reads per lookup of an absent key. Prints one row a point, asserts only that every hit is its key's value; run
 * on demand ({@code -Dhybridcache.test.jvm.extra=-Dsmall.lookaside=true}, and
 * {@code -Dsmall.lookaside.workload=mix} for one workload's rows): about a minute a row.
 */
class SmallLogLookAsideTest {
  private static final int PAGE = 4096;
  private static final int PAGES = 4096;
  private static final int PAGES_PER_SLOT = 32;
  private static final int VALUE = 100;

  @ParameterizedTest(name = "log {0}% threshold {1} bloom {2}/{3} {4}")
  @CsvSource({
      "10, 2, 160, 4, uniform", "10, 10, 160, 4, uniform", "10, 10, 256, 6, uniform",
      "10, 2, 160, 4, hotspot", "10, 10, 160, 4, hotspot", "10, 10, 256, 6, hotspot",
      "25, 2, 160, 4, uniform", "25, 2, 160, 4, hotspot",
      "10, 2, 160, 4, mix", "10, 10, 256, 6, mix", "25, 2, 160, 4, mix"})
  @EnabledIfSystemProperty(named = "small.lookaside", matches = "true")
  void lookAside(double logPercent, int threshold, int bloomBits, int hashes, String workload) {
    String only = System.getProperty("small.lookaside.workload"); // one workload's rows, e.g. mix
    Assumptions.assumeTrue(only == null || only.equals(workload), "rows of " + only + " only");
    int logSlots = (int) Math.round(PAGES * logPercent / 100 / PAGES_PER_SLOT);
    int setSlots = PAGES / PAGES_PER_SLOT - logSlots;
    MemoryDevice device = new MemoryDevice(setSlots + logSlots, (long) PAGES_PER_SLOT * PAGE);
    SmallSets sets = new SmallSets(device, 0, setSlots,
        new SmallSets.Options(bloomBits, hashes, 1024, 16, System::currentTimeMillis));
    SmallLog log = new SmallLog(device, setSlots, logSlots, sets, threshold, true, SmallLog.TAG_BITS);
    int capacity = PAGES * SmallTestKeys.PER_PAGE_100;
    int universe = 2 * capacity;
    SplittableRandom r = new SplittableRandom(36);
    long sequence = 0;
    long warmup = 60L * capacity;
    long measured = 10L * capacity;
    long hits = 0;
    long gets = 0;
    int[] versions = new int[universe]; // the newest version put of each key (0: never put)
    long admitted0 = 0;
    long written0 = 0;
    for (long n = 0; n < warmup + measured; n++) {
      if (n == warmup) {
        admitted0 = log.bytesAdmitted.sum();
        written0 = written(log, sets);
      }
      int k = next(r, workload, universe, n, capacity);
      if (workload.equals("mix") && r.nextBoolean()) { // a put: a new version of the key
        log.put(key(k), value(k, ++versions[k], VALUE), ++sequence, 0);
        continue;
      }
      byte[] v = log.get(key(k));
      if (v != null) {
        assertArrayEquals(value(k, versions[k], VALUE), v, "key " + k + ": not its newest version");
        if (n >= warmup) {
          hits++;
        }
      } else {
        log.put(key(k), value(k, ++versions[k], VALUE), ++sequence, 0);
      }
      if (n >= warmup) {
        gets++;
      }
    }
    double wa = (double) (written(log, sets) - written0) / (log.bytesAdmitted.sum() - admitted0);
    double objects = sets.stats().entries() + log.liveObjects();
    double dram = (sets.dramBytes() + log.dramBytes()) / objects;
    long reads0 = device.counters().reads();
    for (int i = 0; i < 20_000; i++) {
      log.get(key("absent", i));
    }
    double absentReads = (device.counters().reads() - reads0) / 20_000.0;
    System.out.printf("small look-aside: %-7s log %4.1f%% threshold %2d bloom %3d/%d (%.2f bits a slot) | hit ratio"
            + " %.3f | WA %.2f | on flash %.0f (%.2f of C; log %d) | DRAM %.3f B/object | reads per absent key %.3f%n",
        workload, logPercent, threshold, bloomBits, hashes, (double) bloomBits / SmallTestKeys.PER_PAGE_100,
        (double) hits / gets, wa, objects, objects / capacity, log.liveObjects(), dram, absentReads);
  }

  /** Page bytes written so far, log and sets. */
  private static long written(SmallLog log, SmallSets sets) {
    return log.logPagesWritten.sum() * PAGE + sets.stats().pageBytesWritten();
  }

  /** The n-th request's key. */
  private static int next(SplittableRandom r, String workload, int universe, long n, int capacity) {
    if (!workload.equals("hotspot")) {
      return r.nextInt(universe);
    }
    int fifth = universe / 5;
    int hot = (int) ((n / (2L * capacity)) % 5); // the hot fifth moves every 2 C requests
    int k = r.nextInt(fifth);
    return r.nextInt(10) < 8 ? hot * fifth + k : r.nextInt(universe);
  }
}
