package io.hybridcache.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Writes while a table's {@code caching} does not cache rows, with the default {@code start=cold}: the
 * same-run gap (Cassandra skips their invalidation) is closed in every start mode, not only with
 * {@code start=warm}.
 */
class ColdCachingChangesTest {
  private static WarmNode node;

  @BeforeAll
  static void start() throws Exception {
    node = WarmNode.start("embedded-cold-caching", "cold");
  }

  @Test
  void writesWhileATableDoesNotCacheRowsAreNeverServedStaleInTheSameRunWithStartCold() {
    assertFalse(node.rowCache.isStartedWarm());
    assertEquals(0, node.staleAfterACachingToggle("toggled"),
        "partitions served as they were before the writes made while caching was off");
  }
}
