package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.LifetimeClass;
import io.hybridcache.core.device.MemoryDevice;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 25 item 0: an Error on any path never leaves a lock held. An {@link InternalError} (what an
 * unsafe access fault raises) is thrown inside each locked region of {@link HeapIndex}, {@link
 * SegmentWriter} and {@link InvalidationJournal} through their {@link LockProbe}; afterwards no lock is
 * held, the structure is intact, and the same call works again.
 */
@Timeout(60)
class LockedRegionErrorTest {
  private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

  @TempDir Path dir;

  /** Throws once inside {@code region}; holds a thread inside {@code holdRegion} until released. */
  private static final class Inject implements LockProbe {
    volatile String region;
    volatile String holdRegion;
    final CountDownLatch held = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public void inside(String r) {
      if (r.equals(holdRegion)) {
        holdRegion = null;
        held.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      if (r.equals(region)) {
        region = null;
        throw new InternalError("injected inside " + r);
      }
    }
  }

  private static void assertInjected(String region, Executable call) {
    InternalError e = assertThrows(InternalError.class, call, region);
    assertEquals("injected inside " + region, e.getMessage());
  }

  // ---------------------------------------------------------------- HeapIndex

  @ParameterizedTest
  @ValueSource(strings = {"put", "compareAndSet", "remove", "forEach", "clear", "saveTo", "reserve",
      "checkInvariants", "slotIndexOf"})
  void anErrorInsideAHeapIndexRegionLeavesNoLockHeld(String region) throws Throwable {
    HeapIndex index = new HeapIndex(1_000, 4);
    for (long h = 1; h <= 100; h++) {
      index.put(h, IndexEntry.pack(SegmentAddress.of(1, h * 16), 100));
    }
    long entry = index.get(7);
    Inject probe = new Inject();
    index.probe(probe);
    probe.region = region;
    Executable call = switch (region) {
      case "put" -> () -> index.put(1_000, entry);
      case "compareAndSet" -> () -> index.replace(7, entry, IndexEntry.withAccessed(entry));
      case "remove" -> () -> index.remove(7);
      case "forEach" -> () -> index.forEach((h, e) -> { });
      case "clear" -> index::clear;
      case "saveTo" -> () -> index.saveTo(dir.resolve("snapshot"));
      case "reserve" -> () -> index.reserve(10_000);
      case "checkInvariants" -> index::checkInvariants;
      case "slotIndexOf" -> () -> index.slotIndexOf(7);
      default -> throw new IllegalArgumentException(region);
    };
    assertInjected(region, call);
    assertTrue(index.locksFree(), "a stripe lock is still held after an Error in " + region);
    index.checkInvariants();
    assertEquals(100, index.size(), "nothing changed");
    assertEquals(entry, index.get(7));
    call.execute(); // and the call works again
    index.checkInvariants();
  }

  /**
   * The read-locked regions of get and size run only when an optimistic read fails: a put is held inside
   * its write lock while get (or size) is forced onto the read lock; then the put goes on and the read
   * throws inside its region.
   */
  @ParameterizedTest
  @ValueSource(strings = {"get", "size"})
  void anErrorInsideAReadLockFallbackLeavesNoLockHeld(String region) throws Exception {
    HeapIndex index = new HeapIndex(1_000, 1); // one stripe: the put and the read meet
    long entry = IndexEntry.pack(SegmentAddress.of(1, 16), 100);
    index.put(7, entry);
    Inject probe = new Inject();
    index.probe(probe);
    probe.holdRegion = "put";
    probe.region = region;
    Thread writer = start(() -> index.put(8, entry));
    assertTrue(probe.held.await(10, TimeUnit.SECONDS), "the put holds the write lock");
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread reader = start(() -> {
      try {
        if (region.equals("get")) {
          index.get(7);
        } else {
          index.size();
        }
      } catch (Throwable t) {
        thrown.set(t);
      }
    });
    awaitParked(reader); // on the read lock, behind the held put
    probe.release.countDown();
    writer.join(TimeUnit.NANOSECONDS.toMillis(WAIT_NANOS));
    reader.join(TimeUnit.NANOSECONDS.toMillis(WAIT_NANOS));
    assertFalse(writer.isAlive() || reader.isAlive());
    assertEquals("injected inside " + region, String.valueOf(thrown.get().getMessage()));
    assertTrue(index.locksFree(), "a stripe lock is still held after an Error in " + region);
    assertEquals(entry, index.get(7));
    assertEquals(2, index.size());
  }

  // ---------------------------------------------------------------- SegmentWriter

  private static final int SEGMENT = 64 * 1024;
  private static final byte[] KEY = "key".getBytes(StandardCharsets.UTF_8);
  private static final byte[] VALUE = new byte[300];

  private final MemoryDevice device = new MemoryDevice(8, SEGMENT);
  private final SegmentTable table = new SegmentTable(8);
  private final AtomicLong seq = new AtomicLong();

  private SegmentWriter writer(LongSupplier sequence) {
    table.rebuildFreeList();
    SegmentWriter w = new SegmentWriter(device, table, new Counters(), null, 16 * 1024, sequence);
    w.slotSource(table::takeFreeSlot);
    return w;
  }

  private long append(SegmentWriter w) {
    return w.append(LifetimeClass.FRESH, 7, KEY, VALUE, 0, seq.incrementAndGet());
  }

  @ParameterizedTest
  @ValueSource(strings = {"append", "flushAll", "flushAllToWholePages", "hasUnflushed", "appendPositions",
      "locked", "resume", "abandonAll", "abandon"})
  void anErrorInsideASegmentWriterRegionLeavesNoLockHeld(String region) throws Exception {
    SegmentWriter w = writer(seq::get);
    try {
      assertNotEquals(IndexEntry.NONE, append(w));
      Inject probe = new Inject();
      w.probe(probe);
      probe.region = region;
      Segment other = new Segment(99, 7, LifetimeClass.FRESH, Segment.State.ACTIVE);
      Executable call = switch (region) {
        case "append" -> () -> append(w);
        case "flushAll" -> w::flushAll;
        case "flushAllToWholePages" -> w::flushAllToWholePages;
        case "hasUnflushed" -> w::hasUnflushed;
        case "appendPositions" -> w::appendPositions;
        case "locked" -> () -> w.locked(() -> { });
        case "resume" -> () -> w.resume(other);
        case "abandonAll" -> w::abandonAll;
        case "abandon" -> () -> w.abandon(other);
        default -> throw new IllegalArgumentException(region);
      };
      assertInjected(region, call);
      assertFalse(w.lockHeld(), "the writer's lock is still held after an Error in " + region);
      assertTrue(otherThreadCan(w::hasUnflushed), "another thread takes the lock");
      assertNotEquals(IndexEntry.NONE, append(w), "appends go on");
      w.flushAll();
      assertEquals(7, table.freeSlots(), "one slot in use, none leaked");
    } finally {
      w.close();
    }
  }

  /**
   * An Error while a new segment opens (here from the sequence counter; in the issue from the device's
   * write-life hint) must give its slot back and leave no half-opened segment: the next append opens a
   * segment of its own.
   */
  @Test
  void anErrorWhileASegmentOpensGivesItsSlotBack() throws Exception {
    AtomicBoolean fail = new AtomicBoolean(true);
    SegmentWriter w = writer(() -> {
      if (fail.getAndSet(false)) {
        throw new InternalError("injected inside openLocked");
      }
      return seq.get();
    });
    try {
      InternalError e = assertThrows(InternalError.class, () -> append(w));
      assertEquals("injected inside openLocked", e.getMessage());
      assertFalse(w.lockHeld());
      assertEquals(8, table.freeSlots(), "the slot taken for the segment is free again");
      assertEquals(0, table.segments().size(), "no half-opened segment");
      long packed = append(w);
      assertNotEquals(IndexEntry.NONE, packed);
      w.flushAll();
      assertEquals(7, table.freeSlots());
      assertEquals(1, table.segments().size());
    } finally {
      w.close();
    }
  }

  // ---------------------------------------------------------------- InvalidationJournal

  @ParameterizedTest
  @ValueSource(strings = {"append", "switchTo", "clearOther"})
  void anErrorInsideAJournalRegionLeavesItsMonitorFree(String region) throws Throwable {
    Path file = dir.resolve(InvalidationJournal.FILE);
    try (InvalidationJournal j = InvalidationJournal.create(file, 1, InvalidationJournal.MIN_CAPACITY, false)) {
      j.invalidated(11, 5);
      Inject probe = new Inject();
      j.probe(probe);
      probe.region = region;
      Executable call = switch (region) {
        case "append" -> () -> j.invalidated(12, 6);
        case "switchTo" -> () -> j.switchTo(2);
        case "clearOther" -> j::clearOther;
        default -> throw new IllegalArgumentException(region);
      };
      assertInjected(region, call);
      assertTrue(otherThreadCan(j::fill), "another thread takes the journal's monitor");
      call.execute();
      j.invalidated(13, 7);
      InvalidationJournal.Records r = InvalidationJournal.read(file, 1);
      assertFalse(r.untrusted);
      assertTrue(r.kills(13, 6), "records still land");
    }
  }

  // ---------------------------------------------------------------- helpers

  /** True if {@code call} returns on another thread within the wait (a lock left held would block it). */
  private static boolean otherThreadCan(java.util.concurrent.Callable<?> call) throws Exception {
    FutureTask<?> task = new FutureTask<>(call);
    Thread t = new Thread(task, "other");
    t.setDaemon(true);
    t.start();
    try {
      task.get(WAIT_NANOS, TimeUnit.NANOSECONDS);
      return true;
    } catch (java.util.concurrent.TimeoutException e) {
      return false;
    }
  }

  private static Thread start(Runnable r) {
    Thread t = new Thread(r);
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** Waits until {@code t} is parked (blocked on a lock), at most the wait. */
  private static void awaitParked(Thread t) {
    long deadline = System.nanoTime() + WAIT_NANOS;
    while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) {
      assertTrue(System.nanoTime() - deadline < 0, "the reader never blocked: " + t.getState());
      LockSupport.parkNanos(100_000);
    }
  }
}
