package io.hybridcache.core.engine;

import io.hybridcache.core.api.RemovalCause;
import io.hybridcache.core.api.RemovalListener;
import java.util.concurrent.Executor;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands removals to the configured {@link RemovalListener} on its executor (Caffeine's model: the
 * listener never runs on the thread that caused the removal, which may hold a map-bin lock or be the
 * flash writer).
 *
 * <p>Concurrency: thread-safe; {@link #notify} is called under DRAM-tier locks and on the writer thread,
 * so it only copies and submits. Faults: a listener exception or a rejected submission is logged, never
 * thrown back into the cache. Reclaim: none.
 */
final class Removals {
  private static final Logger LOG = LoggerFactory.getLogger(Removals.class);
  private final String name;
  private final RemovalListener listener;
  private final Executor executor;

  Removals(String name, RemovalListener listener, Executor executor) {
    this.name = name;
    this.listener = listener;
    this.executor = executor;
  }

  /** False when no listener is configured: callers skip the work of finding keys and values. */
  boolean active() {
    return listener != null;
  }

  /** Tells the listener, with copies of {@code key} and {@code value} (which may be null). */
  void notify(byte[] key, byte[] value, RemovalCause cause) {
    notifyUnless(key, value, cause, null);
  }

  /**
   * As {@link #notify}, unless {@code held} (asked on the executor, never on the caller's thread) finds
   * the key still in the cache: flash reclaim drops an entry whose clean copy DRAM still holds, which is
   * told when DRAM evicts it.
   */
  void notifyUnless(byte[] key, byte[] value, RemovalCause cause, Predicate<byte[]> held) {
    if (listener == null) {
      return;
    }
    byte[] k = key.clone();
    byte[] v = value == null ? null : value.clone();
    try {
      executor.execute(() -> {
        if (held == null || !held.test(k)) {
          deliver(k, v, cause);
        }
      });
    } catch (RuntimeException e) { // rejected, or a caller's executor that throws: never the cache's fault
      LOG.warn("{}: removal listener executor refused a {} notification: {}", name, cause, e.toString());
    }
  }

  private void deliver(byte[] key, byte[] value, RemovalCause cause) {
    try {
      listener.onRemoval(key, value, cause);
    } catch (Throwable t) {
      LOG.warn("{}: removal listener threw on a {} notification", name, cause, t);
    }
  }
}
