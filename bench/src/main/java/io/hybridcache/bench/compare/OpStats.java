package io.hybridcache.bench.compare;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import site.ycsb.Status;

/**
 * Latency histograms and outcome counts of the operations of one phase, per operation kind.
 * Thread-safe: HdrHistogram {@link Recorder}s and {@link LongAdder}s take concurrent records;
 * {@link #interval()} (one caller at a time) returns everything since the previous call.
 */
final class OpStats {
  /** The operations {@link TimedDB} times. */
  enum Op { READ, UPDATE, INSERT, DELETE }

  private static final long MAX_NANOS = 60_000_000_000L;
  private final Map<Op, Recorder> recorders = new EnumMap<>(Op.class);
  private final LongAdder found = new LongAdder();
  private final LongAdder missing = new LongAdder();
  private final LongAdder errors = new LongAdder();

  OpStats() {
    for (Op op : Op.values()) {
      recorders.put(op, new Recorder(MAX_NANOS, 3));
    }
  }

  /** Records one call of {@code op} that took {@code nanos} and returned {@code status}. */
  void record(Op op, Status status, long nanos) {
    recorders.get(op).recordValue(Math.min(Math.max(nanos, 1), MAX_NANOS));
    if (op == Op.READ) {
      if (status.isOk()) {
        found.increment();
      } else if (status == Status.NOT_FOUND) {
        missing.increment();
      }
    }
    if (status == Status.ERROR || status == Status.UNEXPECTED_STATE) {
      errors.increment();
    }
  }

  /** What happened since the last call. */
  record Interval(Map<Op, Histogram> latency, long readsFound, long readsMissing, long errors) {
    long operations() {
      return latency.values().stream().mapToLong(Histogram::getTotalCount).sum();
    }

    /** Reads that found their record over all reads; NaN without reads. */
    double hitRatio() {
      long reads = readsFound + readsMissing;
      return reads == 0 ? Double.NaN : (double) readsFound / reads;
    }

    /** The {@code percentile} latency of {@code op} in microseconds; NaN if none ran. */
    double percentileUs(Op op, double percentile) {
      Histogram h = latency.get(op);
      return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1_000.0;
    }
  }

  Interval interval() {
    Map<Op, Histogram> h = new EnumMap<>(Op.class);
    recorders.forEach((op, r) -> h.put(op, r.getIntervalHistogram()));
    return new Interval(h, found.sumThenReset(), missing.sumThenReset(), errors.sumThenReset());
  }
}
