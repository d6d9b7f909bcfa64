package io.hybridcache.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.apache.cassandra.schema.TableId;
import org.junit.jupiter.api.Test;

/** The lazy invalidation records against a list of every record ever made (the reference model). */
class InvalidationRecordsTest {
  private static final TableId T = TableId.fromUUID(new UUID(1, 1));
  private static final TableId OTHER = TableId.fromUUID(new UUID(2, 2));

  private record Ref(long left, long right, long epoch) {}

  @Test
  void rangeAndFloorSemantics() {
    InvalidationRecords r = new InvalidationRecords(1);
    long before = r.now();
    long e = r.invalidateRange(T, -100, 100);
    assertTrue(r.stale(T, before, () -> 0), "older entry inside the range");
    assertFalse(r.stale(T, before, () -> 101), "older entry outside the range");
    assertFalse(r.stale(T, e, () -> 0), "entry read after the record");
    assertFalse(r.stale(OTHER, before, () -> 0), "another table");
    long f = r.invalidateTable(T);
    assertTrue(r.stale(T, f - 1, () -> 5000), "the floor covers every token");
    assertFalse(r.stale(T, f, () -> 0));
    assertEquals(0, r.ranges(), "the floor dropped the range it covers");
    r.invalidateRange(T, 5, 1); // wraps: the whole table
    assertEquals(0, r.ranges());
  }

  @Test
  void recordsStayBoundedAndNeverServeWhatAnyRecordInvalidated() {
    InvalidationRecords r = new InvalidationRecords(1);
    List<Ref> all = new ArrayList<>();
    Random rnd = new Random(7);
    for (int i = 0; i < 2000; i++) {
      long a = rnd.nextLong() >> 8;
      long b = a + (rnd.nextLong() >>> 20);
      long e = r.invalidateRange(T, a, b);
      all.add(new Ref(a, b, e));
      assertTrue(r.ranges() <= InvalidationRecords.MAX_RANGES, r.ranges() + " ranges held");
    }
    assertTrue(r.merges() >= 2000 - InvalidationRecords.MAX_RANGES, "merges counted: " + r.merges());
    for (int i = 0; i < 20000; i++) {
      long token = rnd.nextLong() >> 8;
      long epoch = 1 + rnd.nextInt((int) r.now());
      boolean reference = false;
      for (Ref x : all) {
        reference |= epoch < x.epoch() && x.left() <= token && token <= x.right();
      }
      if (reference) {
        assertTrue(r.stale(T, epoch, () -> token), "entry of epoch " + epoch + " at " + token + " served");
      }
    }
  }
}
