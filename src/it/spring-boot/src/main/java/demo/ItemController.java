package demo;

import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import java.util.LinkedHashMap;
import java.util.Map;
import jakarta.persistence.EntityManagerFactory;
import javax.cache.CacheManager;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.expiry.EternalExpiryPolicy;
import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * GET /items/{id}: the item (one line); GET /labels/{id}/{lang}: a label (one line); GET /stats: the loads, Hibernate's counters, the update-timestamps
 * region's configuration and the cache engine's counters.
 */
@RestController
public class ItemController {
  static final String TIMESTAMPS = "default-update-timestamps-region";

  private final ItemService items;
  private final CacheManager jcache;
  private final Statistics hibernate;
  private final String timestampsRegion;
  /** Whether Hibernate was handed Spring's JCache manager (the starter's customizer), not one it opened itself. */
  private final boolean hibernateOnSpringsManager;

  public ItemController(ItemService items, CacheManager jcache, EntityManagerFactory jpa,
      @Value("${spring.jpa.properties.hibernate.cache.region_prefix:}") String regionPrefix) {
    this.items = items;
    this.jcache = jcache;
    this.hibernate = jpa.unwrap(SessionFactory.class).getStatistics();
    this.hibernateOnSpringsManager = jpa.getProperties().get("hibernate.javax.cache.cache_manager") == jcache;
    this.timestampsRegion = regionPrefix.isEmpty() ? TIMESTAMPS : regionPrefix + "." + TIMESTAMPS; // Hibernate's naming
  }

  @GetMapping("/items/{id}")
  public String item(@PathVariable("id") long id) {
    return items.item(id) + "\n";
  }

  @GetMapping("/labels/{id}/{lang}")
  public String label(@PathVariable("id") long id, @PathVariable("lang") String lang) {
    return items.label(id, lang).text() + "\n";
  }

  @GetMapping("/stats")
  public Map<String, Object> stats() {
    HybridCache engine = jcache.unwrap(HybridCache.class);
    CacheStats s = engine.stats();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("loads", items.loads());
    m.put("labelLoads", items.labelLoads());
    m.put("gets", s.gets());
    m.put("dramHits", s.dramHits());
    m.put("flashHits", s.flashHits());
    m.put("misses", s.misses());
    m.put("flashEntries", s.flashEntries());
    m.put("dramBytes", engine.config().dramBytes());
    m.put("l2Hits", hibernate.getSecondLevelCacheHitCount());
    m.put("l2Misses", hibernate.getSecondLevelCacheMissCount());
    m.put("l2Puts", hibernate.getSecondLevelCachePutCount());
    m.put("queryCacheHits", hibernate.getQueryCacheHitCount());
    m.put("queryCacheMisses", hibernate.getQueryCacheMissCount());
    m.put("sqlStatements", hibernate.getPrepareStatementCount());
    // Hibernate's update-timestamps region must never expire or evict: store-by-reference (the provider finds it
    // by the end of its name, region_prefix or not; application.properties does not declare it) and eternal
    javax.cache.Cache<Object, Object> timestamps = jcache.getCache(timestampsRegion);
    m.put("timestampsRegion", timestampsRegion);
    m.put("hibernateOnSpringsManager", hibernateOnSpringsManager);
    CompleteConfiguration<?, ?> c = timestamps == null ? null : timestamps.getConfiguration(CompleteConfiguration.class);
    m.put("timestampsStoreByValue", c == null ? null : c.isStoreByValue()); // null: no such cache in this manager
    m.put("timestampsEternal", c != null && c.getExpiryPolicyFactory().create() instanceof EternalExpiryPolicy);
    return m;
  }
}
