package io.hybridcache.core.api;

/**
 * What opening a cache directory does when it was made with another layout: another
 * {@code segmentBytes}, segment count ({@code flashBytes / segmentBytes}), {@code indexType} or on-flash
 * format version, or when its layout record is missing or unreadable. Set with
 * {@link CacheConfig.Builder#onLayoutChange}.
 *
 * <p>Either way the cache never deletes a file it did not make: a directory holding anything else is
 * refused whatever this says.
 */
public enum LayoutChange {
  /**
   * The default: log the old and the new layout at WARN, delete the cache's own files (segment files,
   * index, segment table, layout record; never {@code catalog/}) and start cold.
   */
  REPLACE,
  /** Refuse to open: the error names the directory and the old and new layout; nothing is deleted. */
  FAIL
}
