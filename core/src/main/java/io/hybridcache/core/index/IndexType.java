package io.hybridcache.core.index;

/** Which {@link Index} implementation backs the flash tier. */
public enum IndexType {
  /**
   * Chronicle Map persisted in the cache directory. Optional: needs {@code net.openhft:chronicle-map} on
   * the class path and the JVM flags {@link ChronicleSupport#REQUIRED_FLAGS}; opening without either fails
   * with an error naming what is missing.
   */
  CHRONICLE,
  /**
   * The compact index (the default): primitive arrays on the heap, about 12-16 bytes per entry, no JVM
   * flags. Warm after a clean close, and after a process kill through checkpoints and an invalidation
   * journal (see {@link io.hybridcache.core.api.Durability}).
   */
  HEAP
}
