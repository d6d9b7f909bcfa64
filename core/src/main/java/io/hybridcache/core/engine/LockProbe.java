package io.hybridcache.core.engine;

/**
 * A test seam: called first inside each locked region of {@link HeapIndex}, {@link SegmentWriter} and
 * {@link InvalidationJournal} with the region's name, so a test can throw an {@link Error} there and check
 * that no lock stays held (issue 25: an Error on any path, such as the {@link InternalError} of an unsafe
 * access fault, must never leave a lock held). {@link #NONE} everywhere else.
 *
 * <p>Thread-safe as its implementation is; set before the object is shared.
 */
@FunctionalInterface
interface LockProbe {
  /** Does nothing. */
  LockProbe NONE = region -> { };

  void inside(String region);
}
