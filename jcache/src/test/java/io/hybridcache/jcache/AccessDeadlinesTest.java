package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The DRAM access deadlines at their bound ({@link AccessDeadlines#MAX_MARKS}): what a hit costs when full. */
class AccessDeadlinesTest {
  private static final long NOW = 1_000_000_000L;

  /** Fills {@code d} with unexpired marks: each extends its stored version from NOW + 1 s to NOW + 2 s. */
  private static void fill(AccessDeadlines d) {
    Stored<String> s = Stored.of("v", NOW + 1_000);
    for (int i = 0; i < AccessDeadlines.MAX_MARKS; i++) {
      assertTrue(d.record("marked" + i, s, NOW + 2_000, NOW));
    }
  }

  /**
   * Full of unexpired marks, 1,000 hits of keys without a mark: each is written into its entry (the documented
   * bound), and the marks are scanned for expired ones a bounded number of times, not once per hit (100,000
   * steps each).
   */
  @Test
  void hitsOfUnmarkedKeysWhenFullDoNotEachScanEveryMark() {
    AccessDeadlines d = new AccessDeadlines();
    fill(d);
    Stored<String> s = Stored.of("v", NOW + 1_000);
    for (int i = 0; i < 1_000; i++) {
      assertFalse(d.record("unmarked" + i, s, NOW + 2_000, NOW + i), "no room: written into the entry");
    }
    assertTrue(d.purges() <= 1, "full scans of the marks for 1,000 hits: " + d.purges());
    assertEquals(AccessDeadlines.MAX_MARKS, d.size());
  }

  /** Once the marks have expired, a hit of an unmarked key gets a mark again (the purge still runs, per interval). */
  @Test
  void expiredMarksMakeRoomAgain() {
    AccessDeadlines d = new AccessDeadlines();
    fill(d);
    Stored<String> s = Stored.of("v", NOW + 1_000);
    assertFalse(d.record("early", s, NOW + 2_000, NOW + 1_500), "full, none expired");
    long later = NOW + 2_000 + AccessDeadlines.PURGE_INTERVAL_MILLIS;
    Stored<String> fresh = Stored.of("v", later + 1_000);
    assertTrue(d.record("late", fresh, later + 2_000, later), "the expired marks were purged");
    assertEquals(1, d.size());
  }
}
