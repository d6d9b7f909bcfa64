package io.hybridcache.core.device;

import java.util.concurrent.atomic.LongAdder;

/**
 * The live counters of one {@link Device}. Thread-safe: every counter is a {@link LongAdder}, so
 * recording never blocks and reading is a sum that may miss increments racing with it.
 *
 * <p>What counts: one call to {@link Device#read} is one read however many system calls it takes
 * (the paper's "one seek per hit" is measured with this); one call to {@link Device#write} is one
 * write. Only calls that completed are counted: a read or write that throws is not. {@code discards}
 * counts every completed {@link Device#discard} call; {@code discardsIgnored} the subset the device
 * could not pass down (no punch-hole / trim support), which then were no-ops.
 *
 * <p>Devices record through the {@code record...} methods; callers read with the getters or take a
 * {@link #snapshot()} and subtract two of them.
 */
public final class DeviceCounters {
  private final LongAdder reads = new LongAdder();
  private final LongAdder writes = new LongAdder();
  private final LongAdder bytesRead = new LongAdder();
  private final LongAdder bytesWritten = new LongAdder();
  private final LongAdder discards = new LongAdder();
  private final LongAdder discardsIgnored = new LongAdder();

  public void recordRead(long bytes) {
    reads.increment();
    bytesRead.add(bytes);
  }

  public void recordWrite(long bytes) {
    writes.increment();
    bytesWritten.add(bytes);
  }

  /** Records a completed discard; {@code ignored} when it could not be passed to the device. */
  public void recordDiscard(boolean ignored) {
    discards.increment();
    if (ignored) {
      discardsIgnored.increment();
    }
  }

  public long reads() {
    return reads.sum();
  }

  public long writes() {
    return writes.sum();
  }

  public long bytesRead() {
    return bytesRead.sum();
  }

  public long bytesWritten() {
    return bytesWritten.sum();
  }

  public long discards() {
    return discards.sum();
  }

  public long discardsIgnored() {
    return discardsIgnored.sum();
  }

  /** The current values, as an immutable value. */
  public Snapshot snapshot() {
    return new Snapshot(reads(), writes(), bytesRead(), bytesWritten(), discards(), discardsIgnored());
  }

  @Override
  public String toString() {
    return snapshot().toString();
  }

  /** Counter values at one moment; {@link #minus} gives the activity between two snapshots. */
  public record Snapshot(
      long reads, long writes, long bytesRead, long bytesWritten, long discards, long discardsIgnored) {

    public Snapshot minus(Snapshot earlier) {
      return new Snapshot(reads - earlier.reads, writes - earlier.writes,
          bytesRead - earlier.bytesRead, bytesWritten - earlier.bytesWritten,
          discards - earlier.discards, discardsIgnored - earlier.discardsIgnored);
    }
  }
}
