package io.hybridcache.bench.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The warm-up stop rule: a plateau over several windows, a full flash tier whose hit ratio stopped
 * rising, or the safety time cap.
 */
class WarmupRuleTest {
  @Test
  void stopsWhenTheRatioRoseLessThanOnePointOverThePlateauWindows() {
    WarmupRule r = new WarmupRule(0.01, 3, 6000);
    assertNull(r.afterWindow(0.40, 60, null), "one window shows no gain yet");
    assertNull(r.afterWindow(0.60, 120, null));
    assertNull(r.afterWindow(0.75, 180, null));
    assertNull(r.afterWindow(0.81, 240, null));
    assertNull(r.afterWindow(0.815, 300, null), "+6.5 points over the last 3 windows");
    assertNull(r.afterWindow(0.817, 360, null), "+1.7 points over the last 3 windows");
    assertEquals(WarmupRule.Stop.PLATEAU, r.afterWindow(0.818, 420, null), "+0.8 point over the last 3 windows");
    assertEquals(List.of(0.40, 0.60, 0.75, 0.81, 0.815, 0.817, 0.818), r.ratios());
    assertEquals(0.818, r.lastRatio());
    assertEquals(0.001, r.lastGain(), 1e-9);
  }

  @Test
  void oneFlatWindowDoesNotEndAWarmupThatIsStillRising() {
    // the second run: +1.5% per window, with one noisy window that gained nothing
    WarmupRule r = new WarmupRule(0.01, 3, 6000);
    assertNull(r.afterWindow(0.70, 60, null));
    assertNull(r.afterWindow(0.715, 120, null));
    assertNull(r.afterWindow(0.715, 180, null), "a flat window alone is not a plateau");
    assertNull(r.afterWindow(0.745, 240, null));
    assertNull(r.afterWindow(0.760, 300, null));
  }

  @Test
  void aSingleWindowPlateauIsTheOldRule() {
    WarmupRule r = new WarmupRule(0.01, 1, 600);
    assertNull(r.afterWindow(0.70, 60, null));
    assertEquals(WarmupRule.Stop.PLATEAU, r.afterWindow(0.69, 120, null), "a falling ratio is a plateau too");
    WarmupRule exact = new WarmupRule(0.01, 1, 600);
    assertNull(exact.afterWindow(0.5, 60, null));
    assertNull(exact.afterWindow(0.5 + 0.0101, 120, null), "just over one point goes on");
  }

  @Test
  void aFullFlashTierEndsTheWarmupOnceTheRatioStopsRising() {
    WarmupRule r = new WarmupRule(0.01, 3, 6000);
    assertNull(r.afterWindow(0.50, 60, false));
    assertNull(r.afterWindow(0.70, 120, true), "full, but still rising by 20 points");
    assertEquals(WarmupRule.Stop.FLASH_FULL, r.afterWindow(0.705, 180, true), "full and +0.5 point");
  }

  @Test
  void aFlashTierNotYetFullOrUnknownNeedsTheWholePlateau() {
    for (Boolean full : new Boolean[] {false, null}) {
      WarmupRule r = new WarmupRule(0.01, 3, 6000);
      assertNull(r.afterWindow(0.50, 60, full));
      assertNull(r.afterWindow(0.70, 120, full));
      assertNull(r.afterWindow(0.705, 180, full), "flash full = " + full + ": no plateau over 3 windows yet");
    }
  }

  @Test
  void stopsAtTheTimeLimitWhileStillRising() {
    WarmupRule r = new WarmupRule(0.01, 3, 150);
    assertNull(r.afterWindow(0.2, 60, null));
    assertNull(r.afterWindow(0.4, 120, false));
    assertEquals(WarmupRule.Stop.MAX_TIME, r.afterWindow(0.6, 180, false));
    assertEquals(WarmupRule.Stop.MAX_TIME, new WarmupRule(0.01, 3, 30).afterWindow(0.1, 60, true),
        "a first window past the limit ends it");
  }

  @Test
  void aPlateauReachedAtTheTimeLimitIsReportedAsAPlateau() {
    WarmupRule r = new WarmupRule(0.01, 1, 100);
    assertNull(r.afterWindow(0.8, 60, null));
    assertEquals(WarmupRule.Stop.PLATEAU, r.afterWindow(0.8, 120, null));
  }

  @Test
  void windowRatioCountsOnlyTheWindow() {
    assertEquals(0.75, WarmupRule.windowRatio(new long[] {100, 1000}, new long[] {850, 2000}));
    assertEquals(0.0, WarmupRule.windowRatio(new long[] {5, 10}, new long[] {5, 10}), "no requests");
    WarmupRule r = new WarmupRule(0.01, 2, 60);
    assertEquals(Double.NaN, r.lastRatio());
    r.afterWindow(0.3, 10, null);
    assertEquals(Double.NaN, r.lastGain(), "one window has no gain");
  }

  @Test
  void badSettingsAreRefusedNamingTheValue() {
    assertTrue(assertThrows(IllegalArgumentException.class, () -> new WarmupRule(-0.1, 3, 60)).getMessage()
        .contains("-0.1"));
    assertThrows(IllegalArgumentException.class, () -> new WarmupRule(1.0, 3, 60));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> new WarmupRule(0.01, 0, 60)).getMessage()
        .contains("plateauWindows"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> new WarmupRule(0.01, 3, 0)).getMessage()
        .contains("maxSeconds"));
  }
}
