package io.hybridcache.jcache;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/**
 * Runs its tasks one at a time, in submission order, on a shared executor: what keeps an asynchronous
 * listener's events in order without a thread of its own. Thread-safe (guarded by {@code this}).
 */
final class SerialExecutor implements Executor {
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
      task.run();
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
