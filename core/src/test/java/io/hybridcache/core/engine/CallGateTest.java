package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The gate between calls and close, whatever cells the calling threads hash to. */
class CallGateTest {
  private static final long LONG = TimeUnit.SECONDS.toNanos(60);

  /**
   * Forced interleaving: calls on many threads (so on several cells) are inside when close starts; close
   * returns only after the last of them left, and a call after it throws, naming the cache.
   */
  @Test
  @Timeout(60)
  void closeWaitsForEveryCallInFlightOnEveryCellThenRefusesNewOnes() throws Exception {
    CallGate gate = new CallGate("gated", 2);
    int threads = 16;
    CountDownLatch inside = new CountDownLatch(threads);
    CountDownLatch leave = new CountDownLatch(1);
    AtomicInteger order = new AtomicInteger();
    AtomicInteger lastExit = new AtomicInteger();
    List<Thread> callers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread c = new Thread(() -> {
        gate.enter();
        try {
          inside.countDown();
          leave.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } finally {
          lastExit.accumulateAndGet(order.incrementAndGet(), Math::max);
          gate.exit();
        }
      }, "caller-" + t);
      c.start();
      callers.add(c);
    }
    assertTrue(inside.await(30, TimeUnit.SECONDS));
    assertFalse(gate.drained(), "16 calls in flight");
    CompletableFuture<Integer> closedAt = CompletableFuture.supplyAsync(() -> {
      assertTrue(gate.close(System.nanoTime() + LONG));
      return order.incrementAndGet();
    });
    leave.countDown();
    int closed = closedAt.get(30, TimeUnit.SECONDS);
    assertTrue(closed > lastExit.get(), "close returned (" + closed + ") after the last exit (" + lastExit + ")");
    assertTrue(gate.drained() && gate.closed());
    IllegalStateException e = assertThrows(IllegalStateException.class, gate::enter);
    assertTrue(e.getMessage().contains("gated"), e.getMessage());
    assertTrue(gate.drained(), "a refused call leaves no count behind");
    assertFalse(gate.close(System.nanoTime() + LONG), "closed once");
    for (Thread c : callers) {
      c.join();
    }
  }

  @Test
  void closeGivesUpAtItsDeadlineAndTheCallStillLeaves() {
    CallGate gate = new CallGate("stuck", 1);
    gate.enter();
    assertTrue(gate.close(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5)), "returns at the deadline");
    assertFalse(gate.drained());
    gate.exit();
    assertTrue(gate.drained());
    gate.awaitDrained();
  }

  /** Enter and exit balance on every thread, whatever its cell: nothing left over after many calls. */
  @Test
  void countsBalanceAcrossThreads() throws Exception {
    CallGate gate = new CallGate("busy", 4);
    List<CompletableFuture<Void>> runs = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      runs.add(CompletableFuture.runAsync(() -> {
        for (int i = 0; i < 10_000; i++) {
          gate.enter();
          gate.exit();
        }
      }));
    }
    for (CompletableFuture<Void> r : runs) {
      r.get(30, TimeUnit.SECONDS);
    }
    assertTrue(gate.drained());
    assertEquals(true, gate.close(System.nanoTime()));
  }
}
