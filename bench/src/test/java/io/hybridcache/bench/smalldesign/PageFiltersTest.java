package io.hybridcache.bench.smalldesign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The filters' measured false-positive rates against their formulas, and no false negatives. */
class PageFiltersTest {
  private static final int PAGES = 2000;
  private static final int PER_PAGE = 31;
  private static final Keys KEYS = new Keys(PAGES * PER_PAGE + 400_000);

  /** Pages 0..PAGES-1 hold keys [p * 31, p * 31 + n); keys from PAGES * 31 up are absent. */
  private static double measuredFalsePositiveRate(PageFilters f, int n) {
    long[] h = new long[n];
    for (int p = 0; p < PAGES; p++) {
      for (int i = 0; i < n; i++) {
        h[i] = KEYS.hash(p * PER_PAGE + i);
      }
      f.build(p, h, 0, n);
      for (int i = 0; i < n; i++) {
        assertTrue(f.mayContain(p, h[i]), "no false negative: page " + p + " key " + i);
      }
    }
    long positives = 0;
    long probes = 0;
    for (int k = PAGES * PER_PAGE; k < KEYS.size(); k++) {
      positives += f.mayContain(k % PAGES, KEYS.hash(k)) ? 1 : 0;
      probes++;
    }
    return (double) positives / probes;
  }

  @Test
  void aBloomFiltersFalsePositiveRateIsTheFormulasWithinSamplingError() {
    for (double b : new double[] {6, 10}) {
      for (int n : new int[] {20, 31}) {
        BloomPageFilters f = new BloomPageFilters(PAGES, PER_PAGE, b);
        double expected = BloomPageFilters.expectedFalsePositiveRate(f.bitsPerPage(), f.hashes(), n);
        double measured = measuredFalsePositiveRate(f, n);
        double sd = Math.sqrt(expected * (1 - expected) / 400_000);
        // (1 - e^{-kn/m})^k is a lower bound that small filters exceed by a few percent (Bose et al. 2008)
        assertTrue(measured > expected - 4 * sd && measured < 1.12 * expected + 4 * sd,
            "b=" + b + " n=" + n + ": measured " + measured + ", formula " + expected);
      }
    }
  }

  @Test
  void aRiceCodedSetHasAFalsePositiveRateOfAboutTwoToTheMinusRAtAboutRPlusTwoBitsAKey() {
    RicePageFilters f = new RicePageFilters(PAGES, PER_PAGE, 10);
    int r = f.riceBits();
    double expected = 1 - Math.pow(1 - 1.0 / ((long) PER_PAGE << r), PER_PAGE);
    double measured = measuredFalsePositiveRate(f, PER_PAGE);
    assertEquals(expected, measured, 4 * Math.sqrt(expected / 400_000) + 0.03 * expected);
    double bitsPerKey = (double) f.bits(7) / PER_PAGE;
    assertTrue(bitsPerKey > r + 1 && bitsPerKey < r + 2.6, "bits per key " + bitsPerKey + " for r=" + r);
  }

  @Test
  void keyHashesAreDeterministicAndSpread() {
    assertEquals(Keys.xxHash64(Keys.keyBytes(5)), KEYS.hash(5));
    long ones = 0;
    for (int k = 0; k < 10_000; k++) {
      ones += Long.bitCount(KEYS.hash(k));
    }
    assertEquals(32.0, ones / 10_000.0, 0.2, "about half the bits set");
  }
}
