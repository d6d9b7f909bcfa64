package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.api.RemovalCause;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DRAM tier's own deadlines ({@link DramExpiry}) in place of Caffeine's timer wheel: an entry with a TTL
 * leaves DRAM once it has passed and is told {@code EXPIRED}; entries without one cost no deadline; a key's
 * deadline follows its newest version and leaves with it, whichever way it leaves DRAM.
 */
class DramExpiryTest {
  @TempDir Path dir;

  private final List<RemovalListenerTest.Event> events = Collections.synchronizedList(new ArrayList<>());

  private Engine open() {
    return TestCaches.open(TestCaches.small(dir, IndexType.HEAP)
        .removalExecutor(Runnable::run)
        .removalListener((k, v, cause) -> events.add(new RemovalListenerTest.Event(k, v, cause))).build());
  }

  private List<RemovalListenerTest.Event> told(RemovalCause cause) {
    synchronized (events) {
      return events.stream().filter(e -> e.cause() == cause).toList();
    }
  }

  /** Waits until the wall clock has passed {@code millis} after now (the TTL's own time, not a handshake). */
  private static void passMillis(long millis) {
    long until = System.currentTimeMillis() + millis + 1;
    while (System.currentTimeMillis() <= until) {
      LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
    }
  }

  @Test
  void anExpiredEntryLeavesDramAtTheNextWriteAndIsToldExpired() {
    try (Engine c = open()) {
      c.put(key(1), value(1, 1, 100), Duration.ofMillis(20));
      assertEquals(1, c.dramTier().deadlinesTracked());
      passMillis(20);
      assertTrue(c.dramTier().map().containsKey(new ByteKey(key(1))), "nothing swept it yet");
      c.put(key(2), value(2, 1, 100)); // any write sweeps what has passed
      assertFalse(c.dramTier().map().containsKey(new ByteKey(key(1))), "swept by the write");
      assertEquals(0, c.dramTier().deadlinesTracked());
      List<RemovalListenerTest.Event> expired = told(RemovalCause.EXPIRED);
      assertEquals(1, expired.size());
      assertArrayEquals(key(1), expired.get(0).key());
      assertArrayEquals(value(2, 1, 100), c.get(key(2)), "the writer's own entry is there");
    }
  }

  @Test
  void aReadThatFindsAnEntryExpiredSweepsIt() {
    try (Engine c = open()) {
      c.put(key(1), value(1, 1, 100), Duration.ofMillis(20));
      c.put(key(2), value(2, 1, 100));
      passMillis(20);
      assertArrayEquals(value(2, 1, 100), c.get(key(2)), "a hit of another key");
      assertTrue(c.dramTier().map().containsKey(new ByteKey(key(1))), "a DRAM hit does not sweep");
      assertNull(c.get(key(1)), "an expired entry is a miss");
      assertFalse(c.dramTier().map().containsKey(new ByteKey(key(1))), "swept by the read that found it expired");
      assertEquals(1, told(RemovalCause.EXPIRED).size());
    }
  }

  @Test
  void entriesWithoutATtlCostNoDeadline() {
    try (Engine c = open()) {
      for (int i = 0; i < 1000; i++) {
        c.put(key(i), value(i, 1, 100));
      }
      assertEquals(0, c.dramTier().deadlinesTracked());
    }
  }

  @Test
  void aKeysDeadlineFollowsItsNewestVersionAndLeavesWithIt() {
    try (Engine c = open()) {
      for (int v = 1; v <= 1000; v++) {
        c.put(key(1), value(1, v, 100), Duration.ofHours(1));
      }
      assertEquals(1, c.dramTier().deadlinesTracked(), "one deadline for the key, not one per put");
      c.put(key(1), value(1, 1001, 100)); // a put without a TTL replaces the version and its deadline
      assertEquals(0, c.dramTier().deadlinesTracked());
      c.put(key(1), value(1, 1002, 100), Duration.ofHours(1));
      c.remove(key(1));
      assertEquals(0, c.dramTier().deadlinesTracked(), "a remove takes the deadline");
      for (int i = 0; i < 100; i++) {
        c.put(key(i), value(i, 1, 100), Duration.ofHours(1));
      }
      c.clear();
      assertEquals(0, c.dramTier().deadlinesTracked(), "a clear takes every deadline");
    }
  }

  @Test
  void aSizeEvictionTakesTheDeadlineAndAPromotionBringsItBack() {
    try (Engine c = open()) {
      c.put(key(1), value(1, 1, 100), Duration.ofHours(1));
      c.writeBackAndDropDram(); // to flash, with its expiry; DRAM empty
      assertEquals(0, c.dramTier().deadlinesTracked(), "the entry left DRAM, so did its deadline");
      assertArrayEquals(value(1, 1, 100), c.get(key(1)), "a flash hit, promoted");
      assertTrue(c.dramTier().map().containsKey(new ByteKey(key(1))));
      assertEquals(1, c.dramTier().deadlinesTracked(), "the promoted copy keeps the entry's TTL in DRAM");
      c.dramTier().setMaximumBytes(0); // every entry evicted for size
      c.dramTier().cleanUp();
      assertEquals(0, c.dramTier().deadlinesTracked());
    }
  }

  @Test
  void anExpiredEntryEvictedForSizeIsToldExpiredAndNeverWrittenToFlash() {
    try (Engine c = open()) {
      c.put(key(1), value(1, 1, 100), Duration.ofMillis(20));
      passMillis(20);
      c.dramTier().setMaximumBytes(0); // evicted for size before any write swept it
      c.dramTier().cleanUp();
      assertEquals(1, told(RemovalCause.EXPIRED).size(), "told as expired");
      assertTrue(told(RemovalCause.EVICTED_FROM_DRAM).isEmpty(), "not handed to flash");
      assertNull(c.get(key(1)));
    }
  }

  // a review's cases: Caffeine's compute saw an expired entry as absent and told it EXPIRED; the tier's does too

  @Test
  void aRemoveOfAnExpiredEntryTellsItExpiredNotExplicitAndSaysNothingWasHeld() {
    try (Engine c = open()) {
      c.put(key(1), value(1, 1, 100), Duration.ofMillis(20));
      passMillis(20);
      assertNull(c.get(key(2)), "an unrelated miss: nothing swept key 1");
      assertFalse(c.remove(key(1)), "no tier held a live version");
      assertTrue(told(RemovalCause.EXPLICIT).isEmpty(), "an expired entry told EXPLICIT");
      assertEquals(1, told(RemovalCause.EXPIRED).size());
    }
  }

  @Test
  void aPutOverAnExpiredEntryTellsItExpired() {
    try (Engine c = open()) {
      c.put(key(1), value(1, 1, 100), Duration.ofMillis(20));
      passMillis(20);
      c.put(key(1), value(1, 2, 100)); // the next write, of that very key, finds it passed
      assertEquals(1, told(RemovalCause.EXPIRED).size());
      assertArrayEquals(value(1, 2, 100), c.get(key(1)));
    }
  }

  @Test
  void aFlushNeitherWritesAnExpiredEntryToFlashNorListsItsKey() {
    try (Engine c = open()) {
      c.put(key(1), value(1, 1, 100), Duration.ofMillis(20));
      c.put(key(2), value(2, 1, 100), Duration.ofMillis(20));
      passMillis(20);
      java.util.Iterator<byte[]> keys = c.keys();
      assertFalse(keys.hasNext(), "keys() lists an expired entry");
      assertTrue(c.hottestKeys(10).isEmpty(), "hottestKeys lists an expired entry");
      c.flush();
      assertEquals(0, c.stats().flashEntries(), "the write-back wrote an expired entry to flash");
      assertEquals(2, told(RemovalCause.EXPIRED).size());
    }
  }

  @Test
  void aReadThatFindsItsKeyExpiredTellsThatKeyWhateverElseIsDue() {
    try (Engine c = open()) {
      for (int i = 0; i < 2 * DramTier.SWEEP_BATCH; i++) {
        c.put(key(i), value(i, 1, 100), Duration.ofMillis(20));
      }
      c.put(key(1000), value(1000, 1, 100), Duration.ofMillis(20)); // the latest deadline of all
      passMillis(40);
      assertNull(c.get(key(1000)));
      assertTrue(told(RemovalCause.EXPIRED).stream().anyMatch(e -> TestCaches.keyIndex(e.key()) == 1000),
          "the read's own key told");
    }
  }

  @Test
  void aTtlAtTheEndOfTimeCostsNoDeadline() {
    try (Engine c = open()) {
      c.put(key(1), value(1, 1, 100), java.time.temporal.ChronoUnit.FOREVER.getDuration());
      assertEquals(0, c.dramTier().deadlinesTracked());
      assertArrayEquals(value(1, 1, 100), c.get(key(1)));
    }
  }

  // a second review's cases

  @Test
  void aRemoveOfAnExpiredEntryWithAFlashCopyIsToldOnceAndSaysNothingWasHeld() {
    try (Engine c = open()) {
      c.put(key(1), value(1, 1, 100), Duration.ofMillis(30));
      c.writeBackAndDropDram(); // the version on flash too
      assertArrayEquals(value(1, 1, 100), c.get(key(1)), "promoted back: DRAM and flash hold the version");
      passMillis(30);
      assertFalse(c.remove(key(1)), "no tier held a live version");
      assertEquals(1, told(RemovalCause.EXPIRED).size());
      assertTrue(told(RemovalCause.EXPLICIT).isEmpty(), "told twice: EXPIRED, then EXPLICIT");
    }
  }

  @Test
  void keysLeaveOutAnExpiredEntryOnFlash() {
    try (Engine c = open()) {
      c.put(key(1), value(1, 1, 100), Duration.ofMillis(20));
      c.put(key(2), value(2, 1, 100));
      c.writeBackAndDropDram();
      passMillis(20);
      List<String> keys = new ArrayList<>();
      c.keys().forEachRemaining(k -> keys.add(new String(k, java.nio.charset.StandardCharsets.UTF_8)));
      assertEquals(List.of(new String(key(2), java.nio.charset.StandardCharsets.UTF_8)), keys);
    }
  }

  @Test
  void aWriteBackSkipsAGroupWithNoFlashRoom() {
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP)
        .keyGroups(KeyGroupsTest.caps(g -> Long.MAX_VALUE, g -> g == 1 ? 0 : Long.MAX_VALUE)).build())) {
      byte[] dead = "A-dead".getBytes(java.nio.charset.StandardCharsets.UTF_8); // group 1: flash cap 0
      byte[] live = "B-live".getBytes(java.nio.charset.StandardCharsets.UTF_8);
      c.put(dead, value(1, 1, 100));
      c.put(live, value(2, 1, 100));
      c.flush();
      assertEquals(1, c.stats().flashEntries(), "only the entry whose group may hold flash was written back");
    }
  }

  /**
   * A change that throws an Error after finding its key's DRAM entry expired (a fault inside the change, forced
   * here by the change itself) leaves that entry told at most once: the next change of the key tells it, once.
   */
  @Test
  void aChangeThatThrowsAfterFindingItsEntryExpiredTellsItOnce() {
    List<ByteKey> expired = Collections.synchronizedList(new ArrayList<>());
    DramTier tier = new DramTier(io.hybridcache.core.api.CacheConfig.MIB, (k, e, isExpired) -> {
      if (isExpired) {
        expired.add(k);
      }
    });
    ByteKey k = new ByteKey(key(1));
    long deadline = System.currentTimeMillis() + 20;
    tier.compute(k, (kk, old) -> new DramEntry(value(1, 1, 100), true, 1, deadline));
    passMillis(20);
    AssertionError fault = new AssertionError("test: a fault inside the change");
    assertEquals(fault, org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class,
        () -> tier.compute(k, (kk, old) -> {
          throw fault;
        })));
    tier.compute(k, (kk, old) -> {
      assertNull(old, "the expired entry is not handed to the change");
      return new DramEntry(value(1, 2, 100), true, 2, 0);
    });
    tier.cleanUp();
    assertEquals(List.of(k), expired, "the expired entry told once");
  }

  /** containsKey and readHead that find a key's DRAM entry expired tell it EXPIRED, as a get does. */
  @Test
  void containsKeyAndReadHeadTellAnExpiredEntry() {
    try (Engine c = open()) {
      c.put(key(1), value(1, 1, 100), Duration.ofMillis(20));
      passMillis(20);
      assertFalse(c.containsKey(key(1)));
      assertEquals(1, told(RemovalCause.EXPIRED).size(), "told by containsKey");
      assertArrayEquals(key(1), told(RemovalCause.EXPIRED).get(0).key());
      c.put(key(2), value(2, 1, 100), Duration.ofMillis(20));
      passMillis(20);
      assertNull(c.readHead(key(2), 8));
      assertEquals(2, told(RemovalCause.EXPIRED).size(), "told by readHead");
      assertArrayEquals(key(2), told(RemovalCause.EXPIRED).get(1).key());
    }
  }
}
