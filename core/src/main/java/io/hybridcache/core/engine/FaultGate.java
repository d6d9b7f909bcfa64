package io.hybridcache.core.engine;

import io.hybridcache.core.stats.Counters;
import java.io.IOException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the flash tier is in service: a device error takes it out (DRAM-only) until the retry time,
 * then the writer tries again. One warning per episode.
 *
 * <p>Thread-safe: volatile state; {@link #fail} may race with itself, which at worst logs twice.
 */
final class FaultGate {
  private static final Logger LOG = LoggerFactory.getLogger(FaultGate.class);

  private final String name;
  private final Duration retryInterval;
  private final Counters counters;
  private volatile boolean degraded;
  private volatile long retryAtNanos;
  private volatile boolean warned;

  FaultGate(String name, Duration retryInterval, Counters counters) {
    this.name = name;
    this.retryInterval = retryInterval;
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

  /** Records a device error and takes the tier out of service until the retry time. */
  void fail(IOException e) {
    counters.ioErrors.increment();
    retryAtNanos = System.nanoTime() + retryInterval.toNanos();
    if (!degraded) {
      degraded = true;
      if (!warned) {
        warned = true;
        LOG.warn("{}: flash tier degraded to DRAM-only after a device error ({}); retrying every {}", name,
            e.toString(), retryInterval);
      }
    }
  }

  /** The writer is trying again. */
  void reopen(long droppedEntries) {
    degraded = false;
    LOG.info("{}: flash tier back in service ({} entries of lost segments dropped)", name, droppedEntries);
  }

  /** A device write succeeded: the next failure is a new episode and warns again. */
  void succeeded() {
    warned = false;
  }
}
