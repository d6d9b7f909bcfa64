package io.hybridcache.bench.limits;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.api.SmallObjectStats;
import java.nio.file.Path;

/**
 * The tiny-object flash-read test of {@code limits --small-objects} (issue 27: "flash reads of tiny objects
 * at >= 0.95 of fio's 4 KiB random-read IOPS (4 threads)"): its sizing, its cache and the small-object
 * engine's part of the reads. Stateless; the records are values.
 *
 * <p><b>Workload.</b> A cache with the small-object engine on ({@code smallObjectShare}, 0.9 by default),
 * a 1 MiB DRAM tier, direct I/O, every entry small (8-byte keys, {@code valueBytes} values, 100 B by
 * default). {@link Sizing#readKeys} keys are put (the ones read later), then {@link Sizing#fillerKeys}
 * other keys that are never read, {@value #FILLER_PER_LOG} times what the engine's log holds: the log
 * reclaims the read keys' log pages and moves them into their set pages (Kangaroo's KLog to KSet move,
 * SOSP 2021), so the reads that follow are set-page reads, one device read per hit, as in a cache whose
 * tiny objects were written long ago. The read keys take about {@value #READ_FILL} of the set pages'
 * room and the filler about 0.4 more, so RRIP eviction inside the sets stays small (its misses are
 * reported). No reopen. Then {@link CacheProbe#read} at 1
 * and 4 threads, as the 1 KiB test.
 *
 * <p><b>Representative?</b> {@link Split} says it from the engine's own counters over the measured
 * interval: the share of flash hits the small engine served, of those the share its log served (the rest
 * came from set pages) and its device reads per hit. The sizing uses the page format and the log's share
 * of issue 27's engine ({@code src/site/format.md}: a 4 KiB page of a 32-byte header and entries of a
 * varint header (7 B here) + key + value; the log a quarter of the engine's pages); if the engine changes them,
 * the split shows it.
 */
final class SmallObjectReads {
  static final int KEY_BYTES = 8;
  static final int DEFAULT_VALUE_BYTES = 100;
  static final double DEFAULT_SHARE = 0.9;
  /** Largest value: CacheProbe writes the key's index into the first 8 bytes; small enough for the engine. */
  static final int MAX_VALUE_BYTES = 1024;
  /** Share of the set pages' room the read keys take. */
  static final double READ_FILL = 0.35;
  /** Filler keys put after the read keys, in units of the log's room. */
  static final double FILLER_PER_LOG = 1.25;
  private static final int PAGE_BYTES = 4096;
  private static final int PAGE_HEADER_BYTES = 32;
  /** Flags (1 B), a sequence below 2^28 (4 B) and an 8 B key's length (1 B): SmallSetPage's format 2. */
  private static final int ENTRY_HEADER_BYTES_BUT_VALUE_LENGTH = 6;
  private static final int LOG_OBJECTS_PER_PAGE = 32;
  private static final double LOG_SHARE = 0.25;

  private SmallObjectReads() {}

  /** Keys of the test: {@code readKeys} read, {@code fillerKeys} put after them and never read. */
  record Sizing(long flashBytes, double share, int valueBytes, long readKeys, long fillerKeys) {}

  /** The keys of a cache of {@code flashBytes} with {@code share} of it for the small engine. */
  static Sizing size(long flashBytes, double share, int valueBytes) {
    long pages = (long) (flashBytes * share) / PAGE_BYTES;
    int valueLengthBytes = valueBytes < 128 ? 1 : 2; // a varint
    long perPage = (PAGE_BYTES - PAGE_HEADER_BYTES)
        / (ENTRY_HEADER_BYTES_BUT_VALUE_LENGTH + valueLengthBytes + KEY_BYTES + valueBytes);
    long logPages = Math.round(pages * LOG_SHARE);
    long setRoom = (pages - logPages) * perPage;
    long logRoom = logPages * Math.min(perPage, LOG_OBJECTS_PER_PAGE);
    return new Sizing(flashBytes, share, valueBytes, (long) (setRoom * READ_FILL),
        (long) (logRoom * FILLER_PER_LOG));
  }

  /** The test's cache; the segment size follows the log engine's budget (build() fails fast if too small). */
  static CacheConfig config(Path dir, Sizing s, IndexType index) {
    return CacheConfig.builder(dir)
        .name("limits-small")
        .dramBytes(CacheConfig.MIB)
        .flashBytes(s.flashBytes())
        .smallObjectShare(s.share())
        .directIo(true)
        .indexType(index)
        .jmx(false)
        .build();
  }

  /**
   * The small engine's part of the flash hits between two snapshots: {@code hits} of {@code flashHits}, of
   * them {@code logHits} from its log (the rest from set pages), and the set-page and log-page reads of
   * its lookups.
   */
  record Split(long flashHits, long hits, long logHits, long setPageReads, long logPageReads) {
    static Split between(CacheStats before, CacheStats after) {
      SmallObjectStats b = before.smallObjects();
      SmallObjectStats a = after.smallObjects();
      return new Split(after.flashHits() - before.flashHits(), a.hits() - b.hits(), a.logHits() - b.logHits(),
          a.pageReads() - b.pageReads(), a.logPageReads() - b.logPageReads());
    }

    /** Share of the flash hits the small engine served. */
    double smallHitShare() {
      return flashHits == 0 ? Double.NaN : (double) hits / flashHits;
    }

    /** Share of the small engine's hits served from set pages. */
    double setHitShare() {
      return hits == 0 ? Double.NaN : (double) (hits - logHits) / hits;
    }

    /** Share of the small engine's hits served from its log (flash pages or its write buffer). */
    double logHitShare() {
      return hits == 0 ? Double.NaN : (double) logHits / hits;
    }

    /** Device reads of its lookups (set and log pages) per hit it served. */
    double deviceReadsPerHit() {
      return hits == 0 ? Double.NaN : (double) (setPageReads + logPageReads) / hits;
    }
  }

  /**
   * Writes one read result of the test: the 1 KiB test's keys with {@code _tiny_<threads>} at the end, and
   * the engine's split as {@code tiny_..._<threads>} ("small" in this command's JSON already names the
   * insert test with {@code --value-size} values).
   */
  static void putJson(ObjectNode out, String threads, CacheProbe.ReadResult r) {
    LimitsCommand.putRead(out, "tiny_" + threads, r);
    if (r == null) {
      return;
    }
    out.remove("pages_per_flash_hit_tiny_" + threads); // the log engine's pages per read: none here
    Split s = r.small();
    String t = "_" + threads;
    out.put("tiny_small_engine_hit_share" + t, s.smallHitShare());
    out.put("tiny_set_hit_share" + t, s.setHitShare());
    out.put("tiny_log_hit_share" + t, s.logHitShare());
    out.put("tiny_small_engine_device_reads_per_hit" + t, s.deviceReadsPerHit());
    out.put("tiny_set_page_reads" + t, s.setPageReads());
    out.put("tiny_log_page_reads" + t, s.logPageReads());
  }

  /** Writes the test's set-up ({@code tiny_...}). */
  static void putSizing(ObjectNode out, Sizing s) {
    out.put("tiny_flash_bytes", s.flashBytes());
    out.put("tiny_small_object_share", s.share());
    out.put("tiny_value_bytes", s.valueBytes());
    out.put("tiny_key_bytes", KEY_BYTES);
    out.put("tiny_read_keys", s.readKeys());
    out.put("tiny_filler_keys", s.fillerKeys());
  }
}
