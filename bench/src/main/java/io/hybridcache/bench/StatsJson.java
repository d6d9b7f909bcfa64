package io.hybridcache.bench;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.core.api.CacheStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes and reads {@link CacheStats} as JSON: every record component under its own name, plus the
 * derived ratios (hit_ratio_dram, hit_ratio_flash, device_reads_per_flash_hit,
 * app_write_amplification, dram_bytes_per_flash_entry) computed by the CacheStats methods.
 * Thread-safe: the mapper is configured once and only used afterwards.
 */
public final class StatsJson {
  public static final ObjectMapper MAPPER = new ObjectMapper()
      .enable(SerializationFeature.INDENT_OUTPUT)
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private StatsJson() {}

  /** {@code stats} as a JSON object with the derived ratios added. */
  public static ObjectNode toJson(CacheStats stats) {
    ObjectNode n = MAPPER.valueToTree(stats);
    addDerived(n, stats);
    return n;
  }

  /** Adds the derived ratios of {@code stats} to {@code n} under their JSON key names. */
  public static void addDerived(ObjectNode n, CacheStats stats) {
    n.put("hit_ratio_dram", stats.hitRatioDram());
    n.put("hit_ratio_flash", stats.hitRatioFlash());
    n.put("hit_ratio", stats.hitRatio());
    n.put("device_reads_per_flash_hit", stats.deviceReadsPerFlashHit());
    n.put("pages_per_flash_hit", stats.pagesPerFlashHit());
    // dirty evictions that did not reach flash for want of room: no write buffer or slot in time, a degraded tier, the index
    n.put("evictions_refused", stats.queueRejected() + stats.degradedRejected() + stats.indexFullRejected());
    n.put("app_write_amplification", stats.appWriteAmplification());
    n.put("dram_bytes_per_flash_entry", stats.dramBytesPerFlashEntry());
  }

  /** Writes {@code stats} (with {@code extra} fields merged in, if not null) to {@code file} atomically. */
  public static void write(Path file, CacheStats stats, ObjectNode extra) throws IOException {
    ObjectNode n = toJson(stats);
    if (extra != null) {
      n.setAll(extra);
    }
    Path abs = file.toAbsolutePath();
    if (abs.getParent() != null) {
      Files.createDirectories(abs.getParent());
    }
    Path tmp = abs.resolveSibling(abs.getFileName() + ".tmp");
    MAPPER.writeValue(tmp.toFile(), n);
    Files.move(tmp, abs, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  /** Writes {@code node} to {@code file} (parent directories created); returns the absolute path. */
  public static Path writeFile(Path file, com.fasterxml.jackson.databind.JsonNode node) throws IOException {
    Path abs = file.toAbsolutePath();
    if (abs.getParent() != null) {
      Files.createDirectories(abs.getParent());
    }
    MAPPER.writeValue(abs.toFile(), node);
    return abs;
  }

  /** A cache's last stats and when they were taken: "after_close" or "before_close". */
  public record Closed(CacheStats stats, String snapshot) {}

  /** Something that closes (a cache, or what owns it). */
  @FunctionalInterface
  public interface Closer {
    void close() throws Exception;
  }

  /**
   * Runs {@code close} (which closes {@code cache}) and returns the cache's stats after it, which
   * include the writes the close made, if the closed engine still answers; else those from just before.
   */
  public static Closed close(io.hybridcache.core.api.HybridCache cache, Closer close) throws Exception {
    CacheStats before;
    try {
      before = cache.stats();
    } finally {
      close.close();
    }
    try {
      return new Closed(cache.stats(), "after_close");
    } catch (RuntimeException ignored) {
      return new Closed(before, "before_close"); // a closed cache need not answer
    }
  }

  /** Reads a file written by {@link #write}; the derived and extra fields are ignored. */
  public static CacheStats read(Path file) throws IOException {
    return MAPPER.readValue(file.toFile(), CacheStats.class);
  }
}
