package io.hybridcache.jcache;

import io.hybridcache.core.api.CacheConfig;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The entries of one cache the engine cannot keep as asked: a key over {@link CacheConfig#MAX_KEY_BYTES} (not
 * stored), an entry over the flash tier's largest entry ({@link CacheConfig#maxFlashEntryBytes()}: kept in DRAM
 * only, so lost at its eviction and at a restart) or over the DRAM budget (kept on flash only, or, over both,
 * not stored at all). Each is counted ({@link Statistics#getOversizedEntries()}), one not stored also as a
 * rejection ({@link Statistics#getRejectedEntries()}; one kept in DRAM only is one when flash refuses it at its
 * eviction, told by the engine); the first per cache is logged at WARN, the others at DEBUG. Thread-safe.
 */
final class Oversized {
  private static final Logger LOG = LoggerFactory.getLogger(Oversized.class);

  private final String cacheName;
  private final Statistics stats;
  private final int maxFlashEntryBytes;
  private final long dramBytes;
  private final AtomicBoolean warned = new AtomicBoolean();

  Oversized(String cacheName, Statistics stats, CacheConfig engine) {
    this.cacheName = cacheName;
    this.stats = stats;
    this.maxFlashEntryBytes = engine.maxFlashEntryBytes();
    this.dramBytes = engine.dramBytes();
  }

  /** Counts and logs a write of a key of {@code keyBytes}, over the engine's limit: not stored. */
  void keyTooLong(int keyBytes) {
    report(true, "an entry of " + keyBytes + " key bytes is not stored: a key is at most " + CacheConfig.MAX_KEY_BYTES
        + " bytes encoded (with the cache's namespace prefix); a read of it is a miss");
  }

  /** Counts and logs an entry of these lengths (engine key, stored value) if a tier cannot hold it. */
  void check(int keyBytes, int valueBytes) {
    long flash = (long) CacheConfig.FLASH_ENTRY_HEADER_BYTES + keyBytes + valueBytes;
    long dram = (long) CacheConfig.DRAM_ENTRY_OVERHEAD_BYTES + keyBytes + valueBytes;
    boolean overFlash = flash > maxFlashEntryBytes;
    boolean overDram = dram > dramBytes;
    if (!overFlash && !overDram) {
      return;
    }
    report(overFlash && overDram, "an entry of " + flash + " bytes is " + (overFlash && overDram
        ? "not stored: it is over both the flash tier's largest entry (" + maxFlashEntryBytes
            + " bytes: write-buffer-bytes) and the DRAM budget (dram-bytes " + SizeRules.format(dramBytes) + ")"
        : overFlash ? "kept in DRAM only (lost at its eviction and at a restart): it is over the flash tier's largest"
            + " entry (" + maxFlashEntryBytes + " bytes: write-buffer-bytes, at most 8,519,616)"
        : "kept on flash only (each read a device read): it is over the DRAM budget (dram-bytes "
            + SizeRules.format(dramBytes) + ")"));
  }

  /** Counts (and, if {@code notStored}, counts as a rejection: {@link Statistics#getRejectedEntries()}) and logs. */
  private void report(boolean notStored, String what) {
    stats.oversized();
    if (notStored) {
      stats.rejected();
    }
    if (warned.compareAndSet(false, true)) {
      LOG.warn("cache {}: {}. Further ones are counted (OversizedEntries of the cache's statistics) and not logged",
          cacheName, what);
    } else {
      LOG.debug("cache {}: {}", cacheName, what);
    }
  }
}
