package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.SmallTestKeys.key;
import static io.hybridcache.core.engine.SmallTestKeys.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.device.Device;
import io.hybridcache.core.device.FaultInjectingDevice;
import io.hybridcache.core.device.MemoryDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A reclaim's set moves run on the tier's I/O threads beside the reclaim's own ({@link SmallLog#moveSets}),
 * each reading the log pages its set's objects are on (those a prefetch left out): no two reads ever fill
 * one buffer at once, and a prefetch read that fails costs only its own page. Forced: the device below holds
 * every log read until a second one is in flight (or a short bound passes), so concurrent moves overlap
 * their reads whenever they can, not by luck; with one shared read buffer two of them fill it at once.
 */
class SmallLogParallelMovesTest {
  private static final int PAGE = 4096;
  private static final int VALUE = 100;
  private static final int KEYS = 300;
  private static final int ROUNDS = 3;
  private static final int LOG_PAGES = 8;
  private static final int SET_SLOTS = 8; // 64 sets
  private static final int THRESHOLD = 4; // a move gathers objects from several log pages
  /** How long a log read waits for a second one to be in flight: the bound of the forced overlap. */
  private static final long PAIR_WAIT_MILLIS = 100;

  /** The index of the prefetch read the current thread runs (set by {@link MarkingPool}), or null. */
  private static final ThreadLocal<Integer> PREFETCH_TASK = new ThreadLocal<>();

  /** What a prefetch read does before it reads: nothing, or throw (task = its index in the prefetch). */
  @FunctionalInterface
  private interface PrefetchFault {
    void at(int task) throws IOException;
  }

  /** Every prefetch read fails, as a device read error: the moves read every page themselves. */
  @Test
  @Timeout(120)
  void setMovesBesideTheReclaimNeverFillOneReadBufferAtOnce() throws Exception {
    OneReadPerBuffer device = new OneReadPerBuffer(PAIR_WAIT_MILLIS, task -> {
      throw new IOException("test: a prefetch read fails");
    });
    try (Filled run = new Filled(device)) {
      SmallLog log = run.parallel;
      device.stopPairing();
      assertEquals(List.of(), device.violations, "reads that filled a buffer another read was filling");
      assertTrue(device.overlaps.get() > 0, "the device held two log reads in flight at once");
      assertTrue(log.movesAside.sum() > 0, log.movesAside.sum() + " moves beside the reclaim's thread");
      assertTrue(device.prefetchReads.get() > 0, "the reclaims prefetched");
      assertEquals(0, log.prefetchedPages.sum(), "every prefetch read failed: the moves read their pages");
      assertEquals(0, log.ioErrors.sum(), "no read of a move failed (a failed prefetch is read again, not counted)");
      assertSameAsSequential(run.plain, log);
    }
  }

  /**
   * The first read of every prefetch throws (an Error, as a fault of a mapped read raises): it is counted
   * and read again by the move, and every other page of that prefetch is kept.
   */
  @Test
  @Timeout(120)
  void aFailedPrefetchReadCostsOnlyItsOwnPage() throws Exception {
    AtomicInteger failed = new AtomicInteger();
    OneReadPerBuffer device = new OneReadPerBuffer(0, task -> {
      if (task == 0) {
        failed.incrementAndGet();
        throw new InternalError("test: a fault of a prefetch read");
      }
    });
    try (Filled run = new Filled(device)) {
      SmallLog log = run.parallel;
      assertTrue(failed.get() > 0, "prefetches whose first read failed");
      assertEquals(device.prefetchReads.get() - failed.get(), log.prefetchedPages.sum(),
          "every prefetch read that succeeded is kept (" + failed.get() + " of " + device.prefetchReads.get()
          + " failed)");
      assertEquals(failed.get(), log.ioErrors.sum(), "each failed prefetch read counted once");
      assertEquals(List.of(), device.violations);
      assertSameAsSequential(run.plain, log);
    }
  }

  /**
   * The same puts ({@link #fill}) into a log on {@code probe}'s device with I/O threads ({@link MarkingPool})
   * and into one without them, on a device of its own; closing stops the threads.
   */
  private static final class Filled implements AutoCloseable {
    final MarkingPool pool = new MarkingPool();
    final SmallLog parallel;
    final SmallLog plain;

    Filled(OneReadPerBuffer probe) {
      parallel = log(probe.device());
      parallel.ioThreads(pool);
      plain = log(new OneReadPerBuffer(0, task -> { }).device());
      fill(parallel);
      fill(plain);
    }

    @Override
    public void close() {
      pool.shutdownNow();
    }
  }

  /** 64 sets in 8 slots of 8 pages, then a log of 8 pages in the last slot. */
  private static SmallLog log(Device device) {
    SmallSets sets = new SmallSets(device, 0, SET_SLOTS, SmallSets.Options.DEFAULT);
    return new SmallLog(device, SET_SLOTS, 1, sets, THRESHOLD);
  }

  /** {@value #ROUNDS} versions of {@value #KEYS} keys: about 30 log pages, so about 22 reclaims. */
  private static void fill(SmallLog log) {
    for (int round = 1; round <= ROUNDS; round++) {
      for (int i = 0; i < KEYS; i++) {
        log.put(key(i), value(i, round, VALUE), round * 10_000L + i, 0);
      }
    }
  }

  /**
   * The log with I/O threads did what one without them did (the same moves, drops and readmissions: no set
   * dropped for a torn read) and serves the same value for every key, the newest or none.
   */
  private static void assertSameAsSequential(SmallLog plain, SmallLog parallel) {
    assertTrue(parallel.setMoves.sum() > 20, parallel.setMoves.sum() + " set moves");
    assertEquals(plain.setMoves.sum(), parallel.setMoves.sum(), "set moves");
    assertEquals(plain.objectsMoved.sum(), parallel.objectsMoved.sum(), "objects moved");
    assertEquals(plain.objectsDropped.sum(), parallel.objectsDropped.sum(), "objects dropped");
    assertEquals(plain.objectsReadmitted.sum(), parallel.objectsReadmitted.sum(), "objects readmitted");
    int served = 0;
    for (int i = 0; i < KEYS; i++) {
      byte[] v = parallel.get(key(i));
      assertArrayEquals(plain.get(key(i)), v, "key " + i);
      if (v != null) {
        assertArrayEquals(value(i, ROUNDS, VALUE), v, "key " + i + ": the newest version");
        served++;
      }
    }
    assertTrue(served > KEYS / 2, served + " keys served");
  }

  /**
   * Runs tasks on 4 threads; the tasks of an {@code invokeAll} (the log's prefetch) run with {@link
   * #PREFETCH_TASK} set to their index.
   */
  private static final class MarkingPool extends ThreadPoolExecutor {
    MarkingPool() {
      super(4, 4, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>());
    }

    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks) throws InterruptedException {
      List<Callable<T>> marked = new ArrayList<>();
      for (Callable<T> task : tasks) {
        int index = marked.size();
        marked.add(() -> {
          PREFETCH_TASK.set(index);
          try {
            return task.call();
          } finally {
            PREFETCH_TASK.remove();
          }
        });
      }
      return super.invokeAll(marked);
    }
  }

  /**
   * A probe around every read of the device under the log above: records a violation when a read starts
   * into a buffer another read is still filling, and (with a pair wait) holds each log read until a second
   * log read is in flight or the wait's bound passes, so reads that can overlap do. Prefetch reads meet
   * {@code prefetchFault} first.
   */
  private static final class OneReadPerBuffer implements FaultInjectingDevice.ReadAround {
    private final PrefetchFault prefetchFault;
    private volatile long pairWaitNanos;
    /** Buffers being filled (by identity), and log reads in flight: guarded by this. */
    private final Set<ByteBuffer> filling = Collections.newSetFromMap(new IdentityHashMap<>());
    private int logReads;
    final List<String> violations = new CopyOnWriteArrayList<>();
    /** Log reads that saw a second one in flight. */
    final AtomicInteger overlaps = new AtomicInteger();
    final AtomicInteger prefetchReads = new AtomicInteger();

    OneReadPerBuffer(long pairWaitMillis, PrefetchFault prefetchFault) {
      this.pairWaitNanos = TimeUnit.MILLISECONDS.toNanos(pairWaitMillis);
      this.prefetchFault = prefetchFault;
    }

    /** A memory device for {@link #log} whose reads run through this probe. */
    Device device() {
      return new FaultInjectingDevice(new MemoryDevice(SET_SLOTS + 1, (long) LOG_PAGES * PAGE)).aroundReads(this);
    }

    /** Reads from now on go through at once. */
    void stopPairing() {
      pairWaitNanos = 0;
    }

    @Override
    public void read(int slot, ByteBuffer dst, FaultInjectingDevice.ReadCall read) throws IOException {
      Integer task = PREFETCH_TASK.get();
      if (task != null) {
        prefetchReads.incrementAndGet();
        prefetchFault.at(task);
      }
      boolean log = slot == SET_SLOTS;
      started(dst, log);
      try {
        if (log) {
          awaitSecondRead();
        }
        read.run();
      } finally {
        ended(dst, log);
      }
    }

    private synchronized void started(ByteBuffer dst, boolean log) {
      if (!filling.add(dst)) {
        violations.add(Thread.currentThread().getName() + " read into a buffer another read is filling");
      }
      if (log) {
        logReads++;
        notifyAll();
      }
    }

    /** Waits (bounded) until another log read is in flight beside this one. */
    private synchronized void awaitSecondRead() {
      long deadline = System.nanoTime() + pairWaitNanos;
      try {
        for (long left = pairWaitNanos; logReads < 2 && left > 0; left = deadline - System.nanoTime()) {
          TimeUnit.NANOSECONDS.timedWait(this, left);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (logReads >= 2) {
        overlaps.incrementAndGet();
      }
    }

    private synchronized void ended(ByteBuffer dst, boolean log) {
      filling.remove(dst);
      if (log) {
        logReads--;
      }
    }
  }
}
