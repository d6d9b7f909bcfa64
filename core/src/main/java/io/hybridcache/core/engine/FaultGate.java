package io.hybridcache.core.engine;

import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the flash tier is in service, and the fault record behind that answer.
 *
 * <p>Faults cost the least they can (CacheLib navy's "bad region" handling: one region is dropped, the
 * engine keeps serving): a single device error costs its segment (the caller drops it), and only errors
 * that persist take the whole tier out of service: {@link #error} degrades it to DRAM-only once
 * {@code threshold} errors fall within {@code window}. A fault of the writer itself (any Throwable from
 * one of its commands) degrades at once through {@link #fault}, unless it cost only what it touched
 * ({@link #contained}: a reclaim victim). While degraded, lookups miss and
 * writes are dropped (counted); from the retry time on the writer tries again ({@link #reopen}). One
 * warning per episode.
 *
 * <p>Thread-safe: any thread may report; the window is a small ring under this object's monitor
 * (errors are rare), the state is volatile. {@link #lastFault} is the newest cause, for stats and JMX.
 */
final class FaultGate {
  private static final Logger LOG = LoggerFactory.getLogger(FaultGate.class);

  private final String name;
  private final Duration retryInterval;
  private final long windowNanos;
  private final Counters counters;
  private final long[] recent; // ring of the last `threshold` error times (nanoTime); guarded by this
  private int next; // guarded by this
  private int filled; // guarded by this
  private volatile boolean degraded;
  private volatile long retryAtNanos;
  private volatile boolean warned;
  private volatile String lastFault = "";

  FaultGate(String name, Duration retryInterval, int threshold, Duration window, Counters counters) {
    this.name = name;
    this.retryInterval = retryInterval;
    this.windowNanos = window.toNanos();
    this.recent = new long[threshold];
    this.counters = counters;
  }

  boolean degraded() {
    return degraded;
  }

  /** False while degraded and before the retry time. */
  boolean acceptsWrites() {
    return !degraded || retryDue();
  }

  boolean retryDue() {
    return System.nanoTime() - retryAtNanos >= 0;
  }

  /** The newest fault, "when: what (where)", or "" if none was seen since open. */
  String lastFault() {
    return lastFault;
  }

  /**
   * Records a device error at {@code where}; degrades the tier when this is the threshold-th error
   * within the window. Returns true if the tier is (now) degraded.
   */
  boolean error(Throwable cause, String where) {
    counters.ioErrors.increment();
    record(cause, where);
    long now = System.nanoTime();
    boolean persistent;
    synchronized (this) {
      recent[next] = now;
      next = (next + 1) % recent.length;
      filled = Math.min(filled + 1, recent.length);
      persistent = filled == recent.length && now - recent[next % recent.length] <= windowNanos;
    }
    if (persistent) {
      degrade(cause, recent.length + " device errors within " + Duration.ofNanos(windowNanos));
    }
    return degraded;
  }

  /** A fault of the writer itself (any Throwable from one command): degrades at once. */
  void fault(Throwable cause, String where) {
    counters.writerFaults.increment();
    record(cause, where);
    degrade(cause, "a fault on the flash writer");
  }

  /**
   * A fault of the writer that cost only what it touched (a reclaim victim, dropped): counted and named
   * like {@link #fault}, logged, but the tier stays in service.
   */
  void contained(Throwable cause, String where) {
    counters.writerFaults.increment();
    record(cause, where);
    LOG.warn("{}: fault on the flash writer ({}); it costs only {}", name, cause.toString(), where, cause);
  }

  private void record(Throwable cause, String where) {
    lastFault = Instant.now() + ": " + cause + " (" + where + ")";
  }

  private void degrade(Throwable cause, String why) {
    retryAtNanos = System.nanoTime() + retryInterval.toNanos();
    if (!degraded) {
      degraded = true;
      if (!warned) {
        warned = true;
        LOG.warn("{}: flash tier degraded to DRAM-only after {} ({}); retrying every {}", name, why,
            cause.toString(), retryInterval, cause);
      }
    }
  }

  /** The writer is trying again. */
  void reopen(long droppedEntries) {
    synchronized (this) {
      filled = 0; // a new episode starts with a clean window
    }
    degraded = false;
    LOG.info("{}: flash tier back in service ({} entries of lost segments dropped)", name, droppedEntries);
  }

  /** A device write succeeded: the next failure is a new episode and warns again. */
  void succeeded() {
    warned = false;
  }
}
