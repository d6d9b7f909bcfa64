package io.hybridcache.bench.cassandra;

import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Undo steps of a set-up, run last-in first-out, each once: by the code that made them when a stage
 * ends ({@link #unwindTo}), or all at once by a JVM shutdown hook on Ctrl-C ({@link #runAll}) —
 * stop the node before unmounting its disk, unmount before detaching the loop device. A step that
 * fails is logged and the next one still runs. Thread-safe: the main thread and the shutdown hook
 * may race; a step runs under the lock, so the second caller waits and finds it done.
 */
final class Cleanup {
  /** One undo action. */
  @FunctionalInterface
  interface Action {
    void run() throws Exception;
  }

  private record Step(String what, Action action) {}

  private final Deque<Step> steps = new ArrayDeque<>(); // guarded by this
  private final PrintStream log;

  Cleanup(PrintStream log) {
    this.log = log;
  }

  /** Adds a step, to run before every step added earlier. */
  synchronized void add(String what, Action action) {
    steps.push(new Step(what, action));
  }

  /** How many steps are pending: pass it to {@link #unwindTo} to undo only what comes after. */
  synchronized int mark() {
    return steps.size();
  }

  /** Runs the steps added since {@code mark}, newest first. */
  synchronized void unwindTo(int mark) {
    while (steps.size() > mark) {
      Step s = steps.pop();
      try {
        s.action().run();
      } catch (Exception e) {
        log.println("cassandra: WARNING: clean-up step '" + s.what() + "' failed: " + e);
      }
    }
  }

  /** Runs every pending step, newest first. */
  void runAll() {
    unwindTo(0);
  }
}
