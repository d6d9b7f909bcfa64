package io.hybridcache.jcache;

import io.hybridcache.core.api.CacheConfig;
import java.util.Map;
import java.util.Properties;

/**
 * The minimums and ranges of a manager's sizes, checked before the engine's own validation so that an
 * error names the property as the file spells it, its bound in the file's units and the value as given:
 * {@code dram-bytes must be at least 1m, was 256k}. The engine's rules, restated: {@code CacheConfig}
 * stays the backstop (its messages get the property names too, {@link #propertyNames}). Stateless.
 */
final class SizeRules {
  /** The engine's minimum segment count of the log part: {@code MIN_SEGMENTS} + its default free reserve (2). */
  static final int MIN_SEGMENTS = CacheConfig.MIN_SEGMENTS + 2;
  static final long MIN_DRAM_BYTES = CacheConfig.MIB;
  static final long MIN_SEGMENT_BYTES = 64 * CacheConfig.KIB;
  static final long MAX_SEGMENT_BYTES = CacheConfig.MAX_SEGMENT_BYTES;
  static final long PAGE = 4 * CacheConfig.KIB;

  /** The engine's field names and the provider's property names. */
  private static final Map<String, String> NAMES = Map.of(
      "dramBytes", ProviderProperties.DRAM_BYTES, "flashBytes", ProviderProperties.FLASH_BYTES,
      "segmentBytes", ProviderProperties.SEGMENT_BYTES, "writeBufferBytes", ProviderProperties.WRITE_BUFFER_BYTES,
      "smallObjectShare", ProviderProperties.SMALL_OBJECT_SHARE,
      "smallObjectMaxBytes", ProviderProperties.SMALL_OBJECT_MAX_BYTES,
      "smallObjectLogShare", ProviderProperties.SMALL_OBJECT_LOG_SHARE, "directIo", ProviderProperties.DIRECT_IO);

  private SizeRules() {}

  static void check(Properties p, long dram, long flash, long segment, long writeBuffer, double smallObjectShare) {
    require(dram >= MIN_DRAM_BYTES, p, ProviderProperties.DRAM_BYTES, dram, "at least " + format(MIN_DRAM_BYTES));
    require(segment % PAGE == 0 && segment >= MIN_SEGMENT_BYTES && segment <= MAX_SEGMENT_BYTES, p,
        ProviderProperties.SEGMENT_BYTES, segment, "a multiple of " + format(PAGE) + " from "
        + format(MIN_SEGMENT_BYTES) + " to " + format(MAX_SEGMENT_BYTES));
    long logBytes = flash - (long) (flash * Math.max(0, Math.min(1, smallObjectShare)));
    require(logBytes / segment >= MIN_SEGMENTS, p, ProviderProperties.FLASH_BYTES, flash, "at least "
        + MIN_SEGMENTS + " segments of segment-bytes (" + MIN_SEGMENTS + " x " + format(segment) + " = "
        + format(MIN_SEGMENTS * segment) + ")" + (smallObjectShare > 0 ? " beside small-object-share "
        + smallObjectShare : ""));
    require(writeBuffer % PAGE == 0 && writeBuffer >= PAGE && writeBuffer <= segment - 2 * PAGE, p,
        ProviderProperties.WRITE_BUFFER_BYTES, writeBuffer, "a multiple of " + format(PAGE) + " from "
        + format(PAGE) + " to segment-bytes - " + format(2 * PAGE) + " (" + format(segment - 2 * PAGE) + ")");
  }

  private static void require(boolean ok, Properties p, String name, long value, String rule) {
    if (!ok) {
      String given = p.getProperty(name);
      throw new IllegalArgumentException(name + " must be " + rule + ", was "
          + (given != null ? given.trim() : format(value) + " (derived)"));
    }
  }

  /** {@code bytes} in the file's units: {@code 1g}, {@code 64m}, {@code 256k}, else bytes. */
  static String format(long bytes) {
    if (bytes != 0 && bytes % CacheConfig.GIB == 0) {
      return bytes / CacheConfig.GIB + "g";
    }
    if (bytes != 0 && bytes % CacheConfig.MIB == 0) {
      return bytes / CacheConfig.MIB + "m";
    }
    if (bytes != 0 && bytes % CacheConfig.KIB == 0) {
      return bytes / CacheConfig.KIB + "k";
    }
    return Long.toString(bytes);
  }

  /** An engine message with its field names replaced by the provider's property names. */
  static String propertyNames(String message) {
    String m = message;
    for (Map.Entry<String, String> e : NAMES.entrySet()) {
      m = m.replaceAll("\\b" + e.getKey() + "\\b", e.getValue());
    }
    return m;
  }
}
