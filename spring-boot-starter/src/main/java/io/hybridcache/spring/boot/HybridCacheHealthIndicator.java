package io.hybridcache.spring.boot;

import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import javax.cache.CacheManager;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * The health of a hybridcache JCache manager's engine (actuator's {@code hybridcache} indicator):
 *
 * <ul>
 *   <li>{@link Status#UP}: the flash tier is in service;
 *   <li>{@link Status#OUT_OF_SERVICE}: the flash tier is <b>degraded</b> ({@link CacheStats#degraded()}: after
 *       persistent device errors, a fault of its writer or a full disk it serves nothing and takes nothing, and
 *       retries on its own). The application still works, from DRAM only: every lookup of what only flash held
 *       misses and goes to the data's source, so expect the load the flash tier took off it. Spring Boot answers
 *       OUT_OF_SERVICE with HTTP 503 by default ({@code management.endpoint.health.status.http-mapping.out-of-service=200}
 *       changes that); Kubernetes' liveness and readiness groups do not include this indicator unless added;
 *   <li>{@link Status#DOWN}: the manager is closed.
 * </ul>
 *
 * Details (from one {@link HybridCache#stats()} snapshot): {@code degraded}, {@code lastFault} (the newest
 * fault, "time: cause (where)", or "" if none since open), {@code ioErrors}, {@code writerFaults},
 * {@code degradedRejected} (DRAM evictions dropped because flash was out of service), {@code segmentsDropped},
 * {@code entriesDropped}, {@code dramEntries}, {@code dramBytes}, {@code flashEntries}, {@code flashBytes},
 * {@code freeSegments}, and the manager's {@code uri}. Reading it opens the manager's engine if no cache of it
 * has yet. Thread-safe (reads a snapshot).
 */
public class HybridCacheHealthIndicator extends AbstractHealthIndicator {
  private final CacheManager manager;

  public HybridCacheHealthIndicator(CacheManager manager) {
    super("hybridcache health check failed");
    this.manager = manager;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    builder.withDetail("uri", String.valueOf(manager.getURI()));
    if (manager.isClosed()) {
      builder.down().withDetail("closed", true);
      return;
    }
    CacheStats s = manager.unwrap(HybridCache.class).stats();
    (s.degraded() ? builder.outOfService() : builder.up())
        .withDetail("degraded", s.degraded())
        .withDetail("lastFault", s.lastFault())
        .withDetail("ioErrors", s.ioErrors())
        .withDetail("writerFaults", s.writerFaults())
        .withDetail("degradedRejected", s.degradedRejected())
        .withDetail("segmentsDropped", s.segmentsDropped())
        .withDetail("entriesDropped", s.entriesDropped())
        .withDetail("dramEntries", s.dramEntries())
        .withDetail("dramBytes", s.dramWeightedBytes())
        .withDetail("flashEntries", s.flashEntries())
        .withDetail("flashBytes", s.flashLiveBytes())
        .withDetail("freeSegments", s.freeSegments());
  }
}
