package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.SmallTestKeys.key;
import static io.hybridcache.core.engine.SmallTestKeys.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.device.MemoryDevice;
import java.util.SplittableRandom;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Steady-state figures of the log in front of the sets (issue 27's targets: app write amplification <= 3
 * and <= 1.0 B of DRAM per small flash object, 100 B values with 24 B keys, 90% full). 4,096 pages of
 * 4 KiB split between sets and log; capacity C = 31 objects a page ({@link SmallTestKeys#PER_PAGE_100}). Filled with 0.9 C new keys, then C
 * more new keys, each put followed by a read of a key drawn uniformly from the newest 0.9 C (the data set
 * that would fit): the steady phase's counts are the figures; DRAM per object on flash (sets' filters, hit
 * bits and counts plus the log index, over objects in sets plus live log objects) is sampled 32 times
 * over the phase, as the log's live share swings with its lap. Then 20,000 lookups of absent keys count
 * the Bloom filters' false-positive reads and the log page reads that false tag matches cost. Prints one
 * row a point; asserts the bounds so a regression fails.
 */
class SmallLogSteadyStateTest {
  private static final int PAGE = 4096;
  private static final int PAGES = 4096;
  private static final int PAGES_PER_SLOT = 32;
  private static final int VALUE = 100;

  @ParameterizedTest(name = "log {0}% threshold {1} readmit {2}")
  @CsvSource({
      // log %, threshold, readmit, WA at most, DRAM B/object at most (peak over the phase): ~3-8% above measured
      // (the points config.md's table quotes are in quotedRows, asserted both ways)
      "5, 1, true, 14.8, 1.09",
      "5, 2, false, 12.0, 1.2",
      "12.5, 2, true, 7.4, 1.18",
      "25, 4, true, 4.0, 1.35",
      "33, 2, true, 3.4, 1.57",
      "37.5, 2, true, 2.5, 1.62",
      "37.5, 12, true, 2.5, 1.6",
      "50, 8, true, 2.25, 1.92",
  })
  void steadyState(double logPercent, int threshold, boolean readmit, double waBound, double dramBound) {
    Figures f = measure(logPercent, threshold, readmit, SmallLog.TAG_BITS, SmallSets.Options.DEFAULT);
    assertTrue(f.wa <= waBound, "WA " + f.wa + " above " + waBound);
    assertTrue(f.dramPeak <= dramBound, "DRAM B/object " + f.dramPeak + " above " + dramBound);
    assertBloomAndTags(f);
  }

  /**
   * The rows of config.md's {@code smallObjectLogShare} table (the shares the setting can take, at the
   * product's threshold), asserted both ways so a regression and a stale figure both fail: write
   * amplification and DRAM per object (mean and peak) within {@value #TOLERANCE} of the quoted figure,
   * the hit ratio within {@value #HIT_TOLERANCE}. One thread, fixed keys, a memory device: the figures are
   * the same at every run, so the tolerance only covers the table's rounding.
   */
  @ParameterizedTest(name = "config.md row: log {0}%")
  @CsvSource({
      // log %, app WA, DRAM B/object mean, peak, hit ratio: as config.md quotes them
      "5, 11.6, 0.97, 1.13, 0.85",
      "10, 8.2, 1.01, 1.11, 0.88",
      "25, 3.8, 1.18, 1.31, 0.84",
      "40, 2.4, 1.34, 1.60, 0.78",
      "50, 2.1, 1.48, 1.83, 0.74",
  })
  void quotedRows(double logPercent, double wa, double dramMean, double dramPeak, double hitRatio) {
    Figures f = measure(logPercent, SmallLog.RECOMMENDED_THRESHOLD, true, SmallLog.TAG_BITS,
        SmallSets.Options.DEFAULT);
    assertNear("app write amplification", wa, f.wa);
    assertNear("DRAM B/object, mean", dramMean, f.dramMean);
    assertNear("DRAM B/object, peak", dramPeak, f.dramPeak);
    assertTrue(Math.abs(f.hitRatio - hitRatio) <= HIT_TOLERANCE,
        "hit ratio " + f.hitRatio + ", config.md says " + hitRatio);
    assertTrue(Math.abs(f.bloomFp - QUOTED_BLOOM_FP) <= 0.01,
        "Bloom false-positive rate " + f.bloomFp + ", config.md says about " + QUOTED_BLOOM_FP);
    assertBloomAndTags(f);
  }

  private static final double TOLERANCE = 0.03;
  /** config.md's "about 8.7% of absent keys" (160 bits, 4 hashes, 31 objects a set). */
  private static final double QUOTED_BLOOM_FP = 0.087;
  private static final double HIT_TOLERANCE = 0.015;

  private static void assertNear(String what, double quoted, double measured) {
    assertTrue(Math.abs(measured - quoted) <= TOLERANCE * quoted,
        what + " " + measured + ", config.md says " + quoted + " (a regression or a stale figure)");
  }

  private static void assertBloomAndTags(Figures f) {
    assertTrue(f.bloomFp < 0.10, "Bloom false-positive rate " + f.bloomFp); // theory: 8.5% at 31 a set
    // 0.089 at a log share of 0.5 (8-bit tags; 31 objects a log page, 27 with the format-1 page)
    assertTrue(f.extraLogReads < 0.095, "log page reads per absent lookup " + f.extraLogReads);
  }

  /**
   * The trade-off table of the DRAM levers (tag bits, Bloom bits per set) at the recommended log share
   * and threshold: printed, not asserted; run on demand
   * ({@code -Dhybridcache.test.jvm.extra=-Dsmall.variants=true}).
   */
  @ParameterizedTest(name = "tag bits {0} bloom {1}/{2}")
  @CsvSource({"10, 160, 4", "9, 160, 4", "8, 160, 4", "6, 160, 4", "10, 128, 3", "8, 128, 3", "8, 96, 3", "8, 64, 2"})
  @EnabledIfSystemProperty(named = "small.variants", matches = "true")
  void variants(int tagBits, int bloomBits, int hashes) {
    measure(100 * SmallLog.RECOMMENDED_LOG_SHARE, SmallLog.RECOMMENDED_THRESHOLD, true, tagBits,
        new SmallSets.Options(bloomBits, hashes, 1024, 16, System::currentTimeMillis));
  }

  /** What one point measured (the steady phase's counts; DRAM in B per object on flash). */
  record Figures(double wa, double dramEnd, double dramMean, double dramPeak, double bloomFp, double extraLogReads,
      double hitRatio, double indexBitsPerLiveObject) {}

  /**
   * Runs one point and prints its row. {@code extraLogReads}: log page reads per lookup of an absent key
   * (every one a false tag match; a present key's lookup pays about the same for the other keys of its set).
   */
  static Figures measure(double logPercent, int threshold, boolean readmit, int tagBits, SmallSets.Options options) {
    int logSlots = (int) Math.round(PAGES * logPercent / 100 / PAGES_PER_SLOT);
    int setSlots = PAGES / PAGES_PER_SLOT - logSlots;
    MemoryDevice device = new MemoryDevice(setSlots + logSlots, (long) PAGES_PER_SLOT * PAGE);
    SmallSets sets = new SmallSets(device, 0, setSlots, options);
    SmallLog log = new SmallLog(device, setSlots, logSlots, sets, threshold, readmit, tagBits);
    int capacity = PAGES * SmallTestKeys.PER_PAGE_100;
    int fill = capacity * 9 / 10;
    for (int i = 0; i < fill; i++) {
      log.put(key(i), value(i, 1, VALUE), i, 0);
    }
    long admitted0 = log.bytesAdmitted.sum();
    long logPages0 = log.logPagesWritten.sum();
    SmallSetCounters.Snapshot s0 = sets.stats();
    long dropped0 = log.objectsDropped.sum();
    long readmitted0 = log.objectsReadmitted.sum();
    SplittableRandom r = new SplittableRandom(42);
    int hits = 0;
    double dramSum = 0;
    double dramMax = 0;
    int samples = 0;
    for (int i = fill; i < fill + capacity; i++) {
      if ((i - fill) % (capacity / 32) == 0) { // live log objects swing with the lap: sample them
        double d = (double) (sets.dramBytes() + log.dramBytes()) / (sets.stats().entries() + log.liveObjects());
        dramSum += d;
        dramMax = Math.max(dramMax, d);
        samples++;
      }
      log.put(key(i), value(i, 1, VALUE), i, 0);
      int k = i - r.nextInt(fill);
      byte[] v = log.get(key(k));
      if (v != null) {
        assertArrayEquals(value(k, 1, VALUE), v, "key " + k);
        hits++;
      }
    }
    SmallSetCounters.Snapshot s1 = sets.stats();
    double admitted = log.bytesAdmitted.sum() - admitted0;
    double logWa = (log.logPagesWritten.sum() - logPages0) * PAGE / admitted;
    double setWa = (s1.pageBytesWritten() - s0.pageBytesWritten()) / admitted;
    long rewrites = s1.setRewrites() - s0.setRewrites();
    double perRewrite = (double) (s1.objectsInserted() - s0.objectsInserted()) / rewrites;
    // Bloom false positives: absent keys through the log (a tag match reads a log page, then the set)
    SmallSetCounters.Snapshot b0 = sets.stats();
    long reads0 = device.counters().reads();
    for (int i = 0; i < 20_000; i++) {
      log.get(key("absent", i));
    }
    SmallSetCounters.Snapshot b1 = sets.stats();
    double extraLogReads = (double) (device.counters().reads() - reads0 - (b1.pageReads() - b0.pageReads())) / 20_000;
    double fp = (double) (b1.bloomFalsePositiveReads() - b0.bloomFalsePositiveReads())
        / (b1.lookups() - b0.lookups());
    long inSets = s1.entries();
    long inLog = log.liveObjects();
    double objects = inSets + inLog;
    double dram = (sets.dramBytes() + log.dramBytes()) / objects;
    double indexBits = inLog == 0 ? 0 : 8.0 * log.dramBytes() / inLog;
    System.out.printf("small steady: log %5.1f%% (%4d pages) threshold %2d readmit %-5s tag bits %2d bloom %3d/%d"
            + " | WA %5.2f (log %.2f + sets %5.2f)"
            + " | %5.2f objects/rewrite | dropped %6d (%4.1f%%) readmitted %5d | on flash %6.0f (%.2f of C; log %d)"
            + " | DRAM %.3f B/object (sets %.3f + log index %.3f; over the phase mean %.3f, max %.3f)"
            + " | index %.1f bits/live log object | bloom FP %.2f%% | extra log reads/lookup %.4f | hit ratio %.3f%n",
        logPercent, logSlots * PAGES_PER_SLOT, threshold, readmit, tagBits, options.bloomBitsPerSet(),
        options.bloomHashes(), logWa + setWa, logWa, setWa, perRewrite,
        log.objectsDropped.sum() - dropped0, 100.0 * (log.objectsDropped.sum() - dropped0) / capacity,
        log.objectsReadmitted.sum() - readmitted0, objects, objects / capacity, inLog, dram,
        sets.dramBytes() / objects, log.dramBytes() / objects, dramSum / samples, dramMax, indexBits, 100 * fp,
        extraLogReads, (double) hits / capacity);
    return new Figures(logWa + setWa, dram, dramSum / samples, dramMax, fp, extraLogReads, (double) hits / capacity,
        indexBits);
  }
}
