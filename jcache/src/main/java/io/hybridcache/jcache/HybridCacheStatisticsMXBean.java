package io.hybridcache.jcache;

import javax.cache.management.CacheStatisticsMXBean;

/**
 * A cache's JCache statistics ({@code javax.cache:type=CacheStatistics,...}, registered while statistics are
 * enabled) and what only this provider counts. Also {@code cache.unwrap(HybridCacheStatisticsMXBean.class)}.
 */
public interface HybridCacheStatisticsMXBean extends CacheStatisticsMXBean {
  /**
   * Stored values that did not decode (their class changed incompatibly or is gone after a deploy, the
   * {@code serial-filter} now refuses them, another codec wrote them): each was read as a miss and removed.
   * Counted whether statistics are enabled or not; {@link #clear()} resets it with the other counts.
   */
  long getUndecodableValues();

  /**
   * Writes of entries the engine cannot keep as asked: a key over 65,535 bytes encoded (not stored; a read of it
   * is a miss), an entry over the flash tier's largest entry ({@code write-buffer-bytes}: kept in DRAM only, lost
   * at its eviction and at a restart) or over the DRAM budget ({@code dram-bytes}: kept on flash only; over
   * both, not stored). The first per cache is logged at WARN. Counted whether statistics are enabled or not;
   * {@link #clear()} resets it.
   */
  long getOversizedEntries();
}
