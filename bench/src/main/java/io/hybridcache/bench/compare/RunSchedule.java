package io.hybridcache.bench.compare;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Which stores run again for the spread, and in which order. The leaders of a section are fixed once,
 * from its first runs: ours and, per workload, the best disk-backed peer; they keep the order they
 * first ran in, reversed on every second repetition (A B, then B A, then A B), so drift on a shared
 * machine falls on each alike. Immutable.
 */
final class RunSchedule {
  private final List<StoreType> leaders;

  private RunSchedule(List<StoreType> leaders) {
    this.leaders = List.copyOf(leaders);
  }

  /** The schedule of the section whose first runs {@code firstRuns} reports. */
  static RunSchedule after(CompareReport firstRuns) {
    List<String> chosen = new ArrayList<>();
    String ours = firstRuns.ourStore();
    if (ours != null) {
      chosen.add(ours);
    }
    for (String w : firstRuns.workloads()) {
      String best = firstRuns.bestPeer(w);
      if (best != null && !chosen.contains(best)) {
        chosen.add(best);
      }
    }
    List<StoreType> inRunOrder = new ArrayList<>();
    for (CompareCommand.StoreRun r : firstRuns.runs()) {
      if (chosen.contains(r.store().cliName()) && !inRunOrder.contains(r.store())) {
        inRunOrder.add(r.store());
      }
    }
    return new RunSchedule(inRunOrder);
  }

  /** The leaders, in the order they first ran. */
  List<StoreType> leaders() {
    return leaders;
  }

  /** The order of repetition {@code repetition} (1 = the first runs' order). */
  List<StoreType> order(int repetition) {
    List<StoreType> o = new ArrayList<>(leaders);
    if (repetition % 2 == 0) {
      Collections.reverse(o);
    }
    return o;
  }
}
