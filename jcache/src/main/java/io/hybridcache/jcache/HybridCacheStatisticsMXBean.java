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
}
