package io.hybridcache.cassandra;

/**
 * The row cache provider's own figures on JMX, as
 * {@code io.hybridcache:type=CassandraRowCache,name="NAME"} (NAME is the {@code name} setting); the
 * tiers' figures are on {@code io.hybridcache:type=HybridCache,name="NAME"}.
 */
public interface HybridRowCacheMXBean {
  /**
   * Partitions not kept because their serialized size is above what a tier can hold: above the flash
   * tier's largest entry ({@code write_buffer_size}) when DRAM evicts them, or above both that and
   * the DRAM tier when Cassandra caches them (then they are not cached at all).
   */
  long getTooLargeRejected();

  /** Values found but not servable (another messaging version, a dropped table): misses. */
  long getUndecodable();

  /**
   * Invalidations (a write's remove, clear, a TRUNCATE or DROP key scan, capacity 0) that arrived
   * after the row cache began to close at the end of Cassandra's drain; each one makes the next start
   * cold.
   */
  long getRefusedInvalidations();

  /** Stream, TRUNCATE and DROP invalidations applied as records, without reading flash. */
  long getLazyInvalidations();

  /** Invalidations that walked every key of both tiers (cleanup, a full key save, an unrecognised caller). */
  long getScanInvalidations();

  /** Entries found older than an invalidation record covering them, dropped as misses. */
  long getStaleMisses();

  /** Whether this run kept the flash tier of the previous one ({@code start=warm} after a clean drain). */
  boolean isStartedWarm();

  /** Whether the row cache has closed (at the end of Cassandra's drain). */
  boolean isClosed();
}
