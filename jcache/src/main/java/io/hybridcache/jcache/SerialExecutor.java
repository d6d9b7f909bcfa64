package io.hybridcache.jcache;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs its tasks one at a time, in submission order, on a shared executor: what keeps an asynchronous
 * listener's events in order without a thread of its own. Thread-safe (guarded by {@code this}).
 *
 * <p>Faults: a task that throws (an Error too) is logged and counted ({@code failed}: the cache's
 * {@link HybridCacheStatisticsMXBean#getBackgroundFailures()}), and the next task runs. A pool that refuses the
 * drainer (shut down by a closing manager) leaves the queue idle, not stuck: the tasks queued then are dropped, each
 * logged and counted, nothing is thrown to the caller (a writer whose change is stored), and a later task is
 * handed to the pool again.
 */
final class SerialExecutor implements Executor {
  private static final Logger LOG = LoggerFactory.getLogger(SerialExecutor.class);
  private final Executor pool;
  private final Runnable failed;
  private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
  private boolean running;

  /** Tasks run on {@code pool}; {@code failed} is called once per task that threw or that the pool refused. */
  SerialExecutor(Executor pool, Runnable failed) {
    this.pool = pool;
    this.failed = failed;
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
    try {
      pool.execute(this::drain);
    } catch (RuntimeException e) { // RejectedExecutionException: the manager's pool is shut down
      refused(e);
    }
  }

  /** The pool refused the drainer: the tasks queued (none runs) are dropped and counted; the queue is idle. */
  private void refused(RuntimeException e) {
    int dropped;
    synchronized (this) {
      dropped = queue.size();
      queue.clear();
      running = false;
      notifyAll();
    }
    LOG.warn("{} asynchronous listener task(s) dropped: the pool refused them (its CacheManager closing?)", dropped, e);
    for (int i = 0; i < dropped; i++) {
      failed.run();
    }
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
      } catch (Throwable e) { // an Error too: never leave running set with no drainer, later tasks would wait for ever
        LOG.warn("an asynchronous cache entry listener failed", e);
        failed.run();
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
