package io.hybridcache.bench.compare;

import java.io.IOException;
import java.util.EnumMap;
import java.util.Map;

/**
 * Which allowance each store's runs get ({@link NativeAllowance}): none without a memory cgroup, the
 * override for every store when one is given, else each store's own calibration, run once (before the
 * store's first run) and kept for its later runs and sections. Not thread-safe; one comparison at a time.
 */
final class Allowances {
  /** Runs a store's calibration; a calibration that cannot be used returns a {@link NativeAllowance#fallback}. */
  @FunctionalInterface
  interface Calibration {
    NativeAllowance run() throws IOException, InterruptedException;
  }

  private final boolean bounded;
  private final Long override;
  private final long flat;
  private final Map<StoreType, NativeAllowance> known = new EnumMap<>(StoreType.class);

  /**
   * @param bounded whether stores run in a memory cgroup
   * @param override {@code --native-allowance} in bytes, or null to calibrate each store
   */
  Allowances(boolean bounded, Long override) {
    this.bounded = bounded;
    this.override = override;
    this.flat = override != null ? override : NativeAllowance.FLAT_DEFAULT;
    if (override != null) {
      NativeAllowance.override(override); // validates
    }
  }

  /** True if stores are calibrated (a cgroup and no override). */
  boolean calibrating() {
    return bounded && override == null;
  }

  /** The flat allowance: the override, else the fallback of a calibration that cannot be used. */
  long flat() {
    return flat;
  }

  /** The allowance of {@code store}'s runs: its calibration ({@code calibrate}, run on the first call) if calibrating. */
  NativeAllowance of(StoreType store, Calibration calibrate) throws IOException, InterruptedException {
    if (!bounded) {
      return NativeAllowance.none();
    }
    if (override != null) {
      return NativeAllowance.override(override);
    }
    NativeAllowance a = known.get(store);
    if (a == null) {
      a = calibrate.run();
      known.put(store, a);
    }
    return a;
  }

  /** Replaces {@code store}'s allowance for its later runs (a calibrated one its run could not live with). */
  void replace(StoreType store, NativeAllowance a) {
    known.put(store, a);
  }
}
