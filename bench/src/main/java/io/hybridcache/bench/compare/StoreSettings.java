package io.hybridcache.bench.compare;

import io.hybridcache.bench.Sizes;
import java.nio.file.Path;
import java.util.Objects;

/**
 * What every store in a comparison is given: the same DRAM budget, room on disk, and the expected
 * data set. Immutable; the constructor validates and names a bad field.
 *
 * @param directory where a disk-backed store keeps its files (created by the harness, empty)
 * @param dramBytes the DRAM budget: the store's own cache (heap, off-heap, block cache), sized in
 *     bytes of data where the store allows it
 * @param diskBytes room on disk for stores that need a capacity (ours, Ehcache's disk tier)
 * @param expectedEntries records the run will hold (loaded plus inserted), for stores that
 *     preallocate (Chronicle Map) or size an index
 * @param averageValueBytes the average encoded record size, for stores that preallocate
 */
public record StoreSettings(Path directory, long dramBytes, long diskBytes, long expectedEntries,
                            int averageValueBytes) {
  public StoreSettings {
    Objects.requireNonNull(directory, "directory");
    if (dramBytes < 1 << 20) {
      throw new IllegalArgumentException("dramBytes must be at least 1 MiB, was " + dramBytes);
    }
    if (diskBytes < dramBytes) {
      throw new IllegalArgumentException("diskBytes must be at least dramBytes (" + dramBytes + "), was " + diskBytes);
    }
    if (expectedEntries <= 0) {
      throw new IllegalArgumentException("expectedEntries must be > 0, was " + expectedEntries);
    }
    if (averageValueBytes <= 0) {
      throw new IllegalArgumentException("averageValueBytes must be > 0, was " + averageValueBytes);
    }
  }

  @Override
  public String toString() {
    return "DRAM " + Sizes.format(dramBytes) + ", disk " + Sizes.format(diskBytes) + ", "
        + expectedEntries + " entries of ~" + averageValueBytes + " B in " + directory;
  }
}
