package io.hybridcache.jcache;

import java.util.List;

/**
 * Hibernate's two special second-level-cache regions, known by the end of a cache's name: Hibernate (5.3 to
 * 7) names a region {@code PREFIX.NAME} when {@code hibernate.cache.region_prefix} is set, and
 * {@code hibernate-jcache} falls back to the legacy names (Hibernate's
 * {@code AbstractRegionFactory.LEGACY_*_REGION_UNQUALIFIED_NAMES}) when a cache of that name exists. A name
 * is a region's if it is one of the names or ends with {@code "." + name}. Immutable.
 */
enum HibernateRegion {
  /**
   * When each table was last written; a query result is served only if newer. A lost entry lets a stale
   * query result through: kept on the heap, never evicted, by default.
   */
  UPDATE_TIMESTAMPS("default-update-timestamps-region", "org.hibernate.cache.spi.TimestampsRegion",
      "org.hibernate.cache.spi.UpdateTimestampsCache"),
  /** Cached query results, only as good as the timestamps region: empty at each start by default. */
  QUERY_RESULTS("default-query-results-region", "org.hibernate.cache.spi.QueryResultsRegion",
      "org.hibernate.cache.internal.StandardQueryCache");

  private final List<String> names;

  HibernateRegion(String... names) {
    this.names = List.of(names);
  }

  /** The region {@code cacheName} is, or null for any other cache. */
  static HibernateRegion of(String cacheName) {
    for (HibernateRegion r : values()) {
      for (String n : r.names) {
        if (cacheName.equals(n) || cacheName.endsWith("." + n)) {
          return r;
        }
      }
    }
    return null;
  }
}
