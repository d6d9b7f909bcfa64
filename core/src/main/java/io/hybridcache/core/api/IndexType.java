package io.hybridcache.core.api;

/** Which index implementation maps keys to flash addresses. */
public enum IndexType {
  /** Chronicle Map persisted in the cache directory: warm restart without a scan (the default). */
  CHRONICLE,
  /** Primitive arrays on the heap: fastest, saved to a file on clean close only. */
  HEAP
}
