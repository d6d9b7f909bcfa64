package io.hybridcache.bench.compare;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.Sizes;
import io.hybridcache.core.api.CacheConfig;

/**
 * A store's room in its memory cgroup beside the heap and the DRAM budget, and where the figure came from:
 * <ul>
 *   <li><b>calibrated</b> (the default): what a calibration child of the store measured ({@link NativeBaseline}:
 *       native memory beside heap and budget, plus the code pages mapped into it) plus {@link #MARGIN};
 *   <li><b>override</b>: {@code --native-allowance SIZE}, the same for every store, no calibration;
 *   <li><b>flat</b>: {@link #FLAT_DEFAULT} when a calibration failed or read implausibly, with the warning that
 *       says why, so that no store is starved by a bad measurement;
 *   <li><b>none</b>: no memory cgroup ({@code --memory-limit off}).
 * </ul>
 * Immutable.
 *
 * @param bytes the allowance; -1 for none
 * @param measuredNativeBytes the calibration's native memory beside heap and budget; -1 if not measured
 * @param measuredMappedBytes the calibration's mapped page cache (code); -1 if not measured
 * @param source "calibrated", "override", "flat: why" or "none"
 * @param warning why a calibration was not used, or null
 */
record NativeAllowance(long bytes, long measuredNativeBytes, long measuredMappedBytes, String source, String warning) {
  /** The allowance before calibration, sized for JVM native memory (~90 MiB) and a store's own file pages; the fallback. */
  static final long FLAT_DEFAULT = 192 * CacheConfig.MIB;
  /**
   * Added to what the calibration measured: room for what grows after it (JIT-compiled code of a long run,
   * allocator fragmentation, a store's off-heap structures that grow with its entries, dirty pages in flight)
   * and, for a store that reads through the page cache, its only data cache beyond the budget.
   */
  static final long MARGIN = 32 * CacheConfig.MIB;
  /** Less native memory than this beside the heap is not a JVM's (metaspace, code cache and G1's tables alone pass it): misread. */
  static final long MIN_PLAUSIBLE_NATIVE = 16 * CacheConfig.MIB;
  /** A calibration child's cgroup room beside heap and budget, in flat allowances: room to measure a need above the flat one. */
  static final int CALIBRATION_ROOM_FLATS = 2;

  static final String CALIBRATED = "calibrated";
  static final String OVERRIDE = "override";
  static final String NONE = "none";

  /** The allowance for a calibration's {@code b}, or {@link #fallback} to {@code flat} when it reads implausibly. */
  static NativeAllowance calibrated(NativeBaseline b, long flat) {
    long nat = b.nativeBytes();
    if (b.mappedFileBytes() < 0 || nat < MIN_PLAUSIBLE_NATIVE) {
      return fallback(flat, String.format("the calibration measured %s of native memory (%s anonymous + kernel less the %s heap"
              + " and %s of the budget's direct buffers) and %s mapped, under the plausible %s: misread", Sizes.format(nat),
          Sizes.format(b.nonFileBytes()), Sizes.format(b.heapCommittedBytes()), Sizes.format(b.budgetDirectBytes()),
          Sizes.format(b.mappedFileBytes()), Sizes.format(MIN_PLAUSIBLE_NATIVE)));
    }
    long bytes = CompareCommand.roundUpMiB(nat + b.mappedFileBytes() + MARGIN);
    long room = calibrationRoom(flat);
    if (bytes > room) {
      return fallback(flat, String.format("the calibration measured %s native + %s mapped, with the %s margin over its cgroup's"
              + " room of %s beside heap and budget: it may have been squeezed", Sizes.format(nat),
          Sizes.format(b.mappedFileBytes()), Sizes.format(MARGIN), Sizes.format(room)));
    }
    return new NativeAllowance(bytes, nat, b.mappedFileBytes(), CALIBRATED, null);
  }

  /**
   * The most data a store reading through the page cache can keep in DRAM under a calibrated allowance: its
   * budget and the margin (the rest of its allowance is the native memory and code it was measured to use).
   */
  static long cacheableBytes(long budget) {
    return budget + MARGIN;
  }

  /** The room beside heap and budget a calibration child of a run whose flat allowance is {@code flat} gets. */
  static long calibrationRoom(long flat) {
    return CALIBRATION_ROOM_FLATS * flat;
  }

  /** {@code --native-allowance bytes}: every store alike, no calibration. */
  static NativeAllowance override(long bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("--native-allowance must be > 0, was " + bytes);
    }
    return new NativeAllowance(bytes, -1, -1, OVERRIDE, null);
  }

  /** The flat allowance because {@code why}; the warning says so. */
  static NativeAllowance fallback(long flat, String why) {
    return new NativeAllowance(flat, -1, -1, "flat: " + why, "the calibration was not used, the flat " + Sizes.format(flat)
        + " allowance applies: " + why);
  }

  /** No memory cgroup. */
  static NativeAllowance none() {
    return new NativeAllowance(-1, -1, -1, NONE, null);
  }

  boolean isCalibrated() {
    return source.equals(CALIBRATED);
  }

  /** The cgroup limit for a child of {@code heapBytes} with {@code budgetBytes}; -1 for none. */
  long limitBytes(long heapBytes, long budgetBytes) {
    return bytes < 0 ? -1 : heapBytes + budgetBytes + bytes;
  }

  /** Adds this allowance's fields to a result record. */
  void putInto(ObjectNode n) {
    n.put("allowance_bytes", bytes);
    n.put("measured_native_bytes", measuredNativeBytes);
    n.put("measured_mapped_file_bytes", measuredMappedBytes);
    n.put("allowance_source", source);
  }

  @Override
  public String toString() {
    return bytes < 0 ? "no allowance (no memory cgroup)" : Sizes.format(bytes) + " (" + (measuredNativeBytes < 0 ? source
        : "calibrated: " + Sizes.format(measuredNativeBytes) + " native + " + Sizes.format(measuredMappedBytes)
            + " mapped code + " + Sizes.format(MARGIN) + " margin") + ")";
  }
}
