package io.hybridcache.bench.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The warm-up stop rule: a window's hit ratio gaining less than the minimum, or the time limit. */
class WarmupRuleTest {
  @Test
  void stopsWhenTheGainFallsBelowOnePoint() {
    WarmupRule r = new WarmupRule(0.01, 600);
    assertNull(r.afterWindow(0.40, 60), "one window shows no gain yet");
    assertNull(r.afterWindow(0.60, 120));
    assertNull(r.afterWindow(0.75, 180));
    assertNull(r.afterWindow(0.81, 240));
    assertEquals(WarmupRule.Stop.PLATEAU, r.afterWindow(0.815, 300), "+0.5 point");
    assertEquals(List.of(0.40, 0.60, 0.75, 0.81, 0.815), r.ratios());
    assertEquals(0.815, r.lastRatio());
  }

  @Test
  void aFallingRatioIsAPlateauToo() {
    WarmupRule r = new WarmupRule(0.01, 600);
    assertNull(r.afterWindow(0.70, 60));
    assertEquals(WarmupRule.Stop.PLATEAU, r.afterWindow(0.69, 120));
  }

  @Test
  void exactlyOnePointGoesOn() {
    WarmupRule r = new WarmupRule(0.01, 600);
    assertNull(r.afterWindow(0.5, 60));
    assertNull(r.afterWindow(0.5 + 0.0101, 120));
  }

  @Test
  void stopsAtTheTimeLimitWhileStillRising() {
    WarmupRule r = new WarmupRule(0.01, 150);
    assertNull(r.afterWindow(0.2, 60));
    assertNull(r.afterWindow(0.4, 120));
    assertEquals(WarmupRule.Stop.MAX_TIME, r.afterWindow(0.6, 180));
    assertEquals(WarmupRule.Stop.MAX_TIME, new WarmupRule(0.01, 30).afterWindow(0.1, 60),
        "a first window past the limit ends it");
  }

  @Test
  void windowRatioCountsOnlyTheWindow() {
    assertEquals(0.75, WarmupRule.windowRatio(new long[] {100, 1000}, new long[] {850, 2000}));
    assertEquals(0.0, WarmupRule.windowRatio(new long[] {5, 10}, new long[] {5, 10}), "no requests");
    assertEquals(Double.NaN, new WarmupRule(0.01, 60).lastRatio());
  }

  @Test
  void badSettingsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new WarmupRule(-0.1, 60));
    assertThrows(IllegalArgumentException.class, () -> new WarmupRule(1.0, 60));
    assertThrows(IllegalArgumentException.class, () -> new WarmupRule(0.01, 0));
  }
}
