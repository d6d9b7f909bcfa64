package io.hybridcache.core.metrics;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import java.nio.file.Path;

/** The small cache the metrics tests open (no Micrometer type: the child JVM without it uses it too). */
final class SmallCaches {
  private SmallCaches() {}

  /** Default 64 MiB DRAM budget, 8 MiB of flash in 32 segments of 256 KiB, heap index, JMX off. */
  static CacheConfig.Builder small(Path dir) {
    return CacheConfig.builder(dir).flashBytes(8 * CacheConfig.MIB).segmentBytes(256 * 1024)
        .writeBufferBytes(16 * 1024).indexType(IndexType.HEAP).jmx(false);
  }
}
