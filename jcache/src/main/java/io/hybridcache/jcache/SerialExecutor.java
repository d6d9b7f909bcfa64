package io.hybridcache.jcache;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs its tasks one at a time, in submission order, on a shared executor: what keeps an asynchronous
 * listener's events in order without a thread of its own. Thread-safe (guarded by {@code this}).
 */
final class SerialExecutor implements Executor {
  private static final Logger LOG = LoggerFactory.getLogger(SerialExecutor.class);
  private final Executor pool;
  private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
  private boolean running;

  SerialExecutor(Executor pool) {
    this.pool = pool;
  }

  @Override
  public void execute(Runnable task) {
    synchronized (this) {
      queue.add(task);
      if (running) {
        return;
      }
      running = true;
    }
    pool.execute(this::drain);
  }

  private void drain() {
    while (true) {
      Runnable task;
      synchronized (this) {
        task = queue.poll();
        if (task == null) {
          running = false;
          notifyAll();
          return;
        }
      }
      try {
        task.run();
      } catch (Throwable e) { // never leave running set with no drainer: later tasks would wait for ever
        LOG.warn("a task of an ordered asynchronous queue failed", e);
      }
    }
  }

  /** Waits until every task submitted so far has run (for close), at most {@code millis}. */
  synchronized void awaitIdle(long millis) throws InterruptedException {
    long end = System.currentTimeMillis() + millis;
    while (running) {
      long left = end - System.currentTimeMillis();
      if (left <= 0) {
        return;
      }
      wait(left);
    }
  }
}
