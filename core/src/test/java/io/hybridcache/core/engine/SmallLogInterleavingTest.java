package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.SmallTestKeys.key;
import static io.hybridcache.core.engine.SmallTestKeys.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.device.FaultInjectingDevice;
import io.hybridcache.core.device.MemoryDevice;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Forced interleavings of lookups with a flush's I/O (the log's lock is not held across I/O): a lookup
 * neither waits for a parked log write or set rewrite nor sees an older version while they are stopped.
 * With one lock held across I/O, both lookups below wait for the parked writer and the tests time out.
 */
class SmallLogInterleavingTest {
  private static final int PAGE = 4096;
  private static final int VALUE = 100;

  private FaultInjectingDevice device;
  private SmallSets sets;

  /** 4 sets in two slots, a log of 2 pages (threshold 1: every reclaim moves). */
  private SmallLog log() {
    device = new FaultInjectingDevice(new MemoryDevice(3, 2L * PAGE));
    sets = new SmallSets(device, 0, 2, SmallSets.Options.DEFAULT);
    return new SmallLog(device, 2, 1, sets, 1);
  }

  /** The first page write of {@code set} by thread {@code thread} counts down {@code reached} and waits for {@code resume}. */
  private void stopBeforeSetWrite(int set, String thread, CountDownLatch reached, CountDownLatch resume) {
    AtomicBoolean once = new AtomicBoolean();
    sets.probe((point, s) -> {
      if (point == SmallSets.Point.BEFORE_PAGE_WRITE && s == set && Thread.currentThread().getName().equals(thread)
          && once.compareAndSet(false, true)) {
        reached.countDown();
        try {
          resume.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });
  }

  private static CompletableFuture<byte[]> getOnItsOwnThread(SmallLog log, byte[] key) {
    CompletableFuture<byte[]> got = new CompletableFuture<>();
    new Thread(() -> got.complete(log.get(key)), "reader").start();
    return got;
  }

  /**
   * The write of a full buffer is parked: the buffer's objects, a flushed log page and a set are all read
   * meanwhile (from the sealed buffer in DRAM), and the put completes once the write goes through.
   */
  @Test
  @Timeout(60)
  void lookupsDoNotWaitForAParkedLogWrite() throws Exception {
    SmallLog log = log();
    sets.put(key(1_000), value(1_000, 1, VALUE), 1, 0);
    for (int i = 0; i < SmallTestKeys.PER_PAGE_100; i++) { // the buffer full, not yet written
      log.put(key(i), value(i, 1, VALUE), i, 0);
    }
    device.holdWrites();
    CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> log.put(key(500), value(500, 1, VALUE), 500, 0));
    assertTrue(device.awaitHeldWrite(30, TimeUnit.SECONDS), "the flush's write parked");
    assertArrayEquals(value(3, 1, VALUE), getOnItsOwnThread(log, key(3)).get(20, TimeUnit.SECONDS));
    assertArrayEquals(value(1_000, 1, VALUE), getOnItsOwnThread(log, key(1_000)).get(20, TimeUnit.SECONDS));
    device.releaseWrites();
    writer.get(30, TimeUnit.SECONDS);
    assertArrayEquals(value(500, 1, VALUE), log.get(key(500)));
    assertArrayEquals(value(3, 1, VALUE), log.get(key(3)), "now from flash");
  }

  /**
   * A reclaim moves key 1's set (version 1 there, version 2 in the log) and is stopped just before the
   * set's page write: a lookup meanwhile must serve version 2 from the log. Unlinking before the insert
   * would make it miss or serve version 1.
   */
  @Test
  @Timeout(60)
  void aLookupDuringAMoveServesTheLogVersionNotTheSets() throws Exception {
    SmallLog log = log();
    sets.put(key(1), value(1, 1, VALUE), 1, 0);
    log.put(key(1), value(1, 2, VALUE), 2, 0);
    // page 0 (key 1 and 30 more) written, page 1 full in the buffer
    for (int i = 100; i < 100 + 2 * SmallTestKeys.PER_PAGE_100 - 1; i++) {
      log.put(key(i), value(i, 1, VALUE), i, 0);
    }
    int set = sets.setOf(KeyHash.of(key(1)));
    CountDownLatch reached = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    stopBeforeSetWrite(set, "writer", reached, resume);
    CompletableFuture<Void> writer = new CompletableFuture<>();
    new Thread(() -> { // flushes page 1: the ring is full, page 0 is reclaimed and key 1's set moves
      log.put(key(200), value(200, 1, VALUE), 200, 0);
      writer.complete(null);
    }, "writer").start();
    assertTrue(reached.await(30, TimeUnit.SECONDS), "the move stopped before its set write");
    assertArrayEquals(value(1, 2, VALUE), getOnItsOwnThread(log, key(1)).get(20, TimeUnit.SECONDS));
    resume.countDown();
    writer.get(30, TimeUnit.SECONDS);
    assertArrayEquals(value(1, 2, VALUE), log.get(key(1)));
    assertArrayEquals(value(1, 2, VALUE), sets.get(key(1)), "moved");
  }

  /**
   * A remove of key 1 (version 1 in its set, version 2 in the log) is stopped just before its set's page
   * write: a lookup meanwhile must still find version 2 in the log. Unlinking the log's objects before
   * the set's removal serves version 1 here (the stress test found it as stale reads).
   */
  @Test
  @Timeout(60)
  void aLookupDuringARemoveNeverServesTheSetsOlderVersion() throws Exception {
    SmallLog log = log();
    sets.put(key(1), value(1, 1, VALUE), 1, 0);
    log.put(key(1), value(1, 2, VALUE), 2, 0);
    int set = sets.setOf(KeyHash.of(key(1)));
    CountDownLatch reached = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    stopBeforeSetWrite(set, "remover", reached, resume);
    CompletableFuture<Boolean> removed = new CompletableFuture<>();
    new Thread(() -> removed.complete(log.remove(key(1))), "remover").start();
    assertTrue(reached.await(30, TimeUnit.SECONDS), "the remove stopped before its set write");
    assertArrayEquals(value(1, 2, VALUE), getOnItsOwnThread(log, key(1)).get(20, TimeUnit.SECONDS));
    resume.countDown();
    assertTrue(removed.get(30, TimeUnit.SECONDS));
    assertNull(log.get(key(1)));
  }

  /**
   * A background reclaim ({@link SmallLog#reclaimAhead}) is stopped after choosing to readmit key 0 (read
   * while in the log) and before relinking it; meanwhile a put logs a newer version of key 0 without
   * waiting for the reclaim. The readmission must not put the older version in front of the newer one.
   * Without the check of the buffer for a newer version, the lookup at the end returns version 1.
   */
  @Test
  @Timeout(60)
  void aPutDuringABackgroundReclaimIsNotShadowedByAnOlderReadmission() throws Exception {
    CountDownLatch reached = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    SmallLog log = lowLogStoppingAtReadmission(reached, resume);
    // threads of their own: the common pool may have a single thread, which the stopped reclaim would hold
    java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newCachedThreadPool();
    try {
      java.util.concurrent.Future<Boolean> reclaim = threads.submit(log::reclaimAhead);
      assertTrue(reached.await(30, TimeUnit.SECONDS), "the reclaim chose its readmissions");
      java.util.concurrent.Future<Boolean> put = threads.submit(
          () -> log.put(key(0), value(0, 2, VALUE), 1_000_000, 0));
      assertTrue(put.get(20, TimeUnit.SECONDS), "the put did not wait for the background reclaim");
      resume.countDown();
      assertTrue(reclaim.get(30, TimeUnit.SECONDS));
    } finally {
      resume.countDown(); // never leave the reclaim stopped, whatever failed
      threads.shutdown();
    }
    assertArrayEquals(value(0, 2, VALUE), log.get(key(0)), "the newer version, not the readmitted older one");
    assertTrue(log.backgroundReclaims.sum() == 1 && log.inlineReclaims.sum() == 0);
  }

  /**
   * An eviction's offer that finds the buffer's last room reserved by a background reclaim (for its
   * readmissions) waits, and takes the room as soon as the reclaim ends: not at its deadline, and without
   * a flush (there is no flusher here). Forced: the reclaim is stopped while it holds the reservation.
   */
  @Test
  void anOfferBlockedByABackgroundReclaimsReservationGetsTheRoomWhenTheReclaimEnds() throws Exception {
    CountDownLatch reached = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    SmallLog log = lowLogStoppingAtReadmission(reached, resume);
    int n = logged;
    java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newCachedThreadPool();
    try {
      java.util.concurrent.Future<Boolean> reclaim = threads.submit(log::reclaimAhead);
      assertTrue(reached.await(30, TimeUnit.SECONDS), "the reclaim holds its reservation");
      Runnable noFlusher = () -> { };
      int offered = 0;
      while (log.offer(key(n), value(n, 1, VALUE), n + 1, 0, System.nanoTime(), noFlusher)) { // no wait
        n++;
        offered++;
      }
      assertTrue(offered > 0 && offered < SmallLog.OBJECTS_PER_PAGE, offered + " offers took the unreserved room");
      CountDownLatch waiting = new CountDownLatch(1);
      int k = n;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      java.util.concurrent.Future<Boolean> offer = threads.submit(
          () -> log.offer(key(k), value(k, 1, VALUE), k + 1, 0, deadline, waiting::countDown));
      assertTrue(waiting.await(30, TimeUnit.SECONDS), "the offer found no room and asked for a flush");
      resume.countDown();
      assertTrue(reclaim.get(30, TimeUnit.SECONDS));
      assertTrue(offer.get(20, TimeUnit.SECONDS), "the offer took the room the reclaim left");
      assertArrayEquals(value(k, 1, VALUE), log.get(key(k)));
    } finally {
      resume.countDown(); // never leave the reclaim stopped, whatever failed
      threads.shutdownNow();
    }
  }

  /** Keys [0, logged) put by {@link #lowLogStoppingAtReadmission}. */
  private int logged;

  /**
   * A log of 8 pages (threshold 40: no set reaches it) filled down to its last free page, so a background
   * reclaim is wanted, with key 0 read (a readmission candidate); its reclaim counts down {@code reached}
   * once it has chosen its readmissions (holding its reservation) and waits there for {@code resume}.
   */
  private SmallLog lowLogStoppingAtReadmission(CountDownLatch reached, CountDownLatch resume) {
    device = new FaultInjectingDevice(new MemoryDevice(9, 8L * PAGE));
    sets = new SmallSets(device, 0, 1, SmallSets.Options.DEFAULT);
    SmallLog log = new SmallLog(device, 1, 1, sets, 40);
    int n = 0;
    while (!log.low()) {
      log.put(key(n), value(n, 1, VALUE), n + 1, 0);
      n++;
    }
    logged = n;
    assertArrayEquals(value(0, 1, VALUE), log.get(key(0)), "read from the oldest page: a readmission candidate");
    log.probe((point, count) -> {
      if (point == SmallSets.Point.RECLAIM_READMIT && count > 0) {
        reached.countDown();
        try {
          resume.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });
    return log;
  }
}
