package io.hybridcache.bench.cassandra;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Progress lines of a long run: the phase, the time since the start and an estimate of the time
 * left. The estimate is {@code runs left x the mean length of the runs done}, or, before the first
 * run is done, {@code runs left x the expected length of one run}. Not thread-safe: the run's thread.
 */
final class Progress {
  private final PrintStream out;
  private final long startNanos;
  private final int runs;
  private final double expectedRunSeconds;
  private int done;
  private double doneSeconds;
  private long runStart;

  Progress(PrintStream out, int runs, double expectedRunSeconds) {
    if (runs < 1 || !(expectedRunSeconds > 0)) {
      throw new IllegalArgumentException("runs >= 1 and expectedRunSeconds > 0, were " + runs + ", "
          + expectedRunSeconds);
    }
    this.out = out;
    this.runs = runs;
    this.expectedRunSeconds = expectedRunSeconds;
    this.startNanos = System.nanoTime();
    this.runStart = startNanos;
  }

  /** Marks the start of the next run (after the set-up the estimate does not cover). */
  void runStarts() {
    runStart = System.nanoTime();
  }

  /** Marks the end of a run. */
  void runDone() {
    done++;
    doneSeconds += (System.nanoTime() - runStart) / 1e9;
  }

  /** Seconds left by the estimate, counting the current run's elapsed time as spent. */
  double secondsLeft() {
    double perRun = done == 0 ? expectedRunSeconds : doneSeconds / done;
    double inRun = (System.nanoTime() - runStart) / 1e9;
    return Math.max(0, (runs - done) * perRun - (done < runs ? Math.min(inRun, perRun) : 0));
  }

  /** Prints "[elapsed mm:ss, ETA mm:ss, run i/n] phase". */
  void phase(String what) {
    double elapsed = (System.nanoTime() - startNanos) / 1e9;
    out.printf(Locale.ROOT, "cassandra: [elapsed %s, about %s left, run %d/%d] %s%n", clock(elapsed),
        clock(secondsLeft()), Math.min(done + 1, runs), runs, what);
  }

  static String clock(double seconds) {
    long s = Math.round(seconds);
    return String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
  }
}
