package demo;

import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import java.util.LinkedHashMap;
import java.util.Map;
import jakarta.persistence.EntityManagerFactory;
import javax.cache.CacheManager;
import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * GET /items/{id}: the item (one line); GET /customers/{id}: a customer's name (one line, through
 * Hibernate's second-level cache); GET /stats: the loads, Hibernate's counters and the cache engine's.
 */
@RestController
public class ItemController {
  private final ItemService items;
  private final CacheManager jcache;
  private final CustomerRepository customers;
  private final Statistics hibernate;

  public ItemController(ItemService items, CacheManager jcache, CustomerRepository customers,
      EntityManagerFactory jpa) {
    this.items = items;
    this.jcache = jcache;
    this.customers = customers;
    this.hibernate = jpa.unwrap(SessionFactory.class).getStatistics();
  }

  @GetMapping("/customers/{id}")
  public String customer(@PathVariable("id") long id) {
    return customers.findById(id).map(Customer::getName).orElse("none") + "\n";
  }

  @GetMapping("/items/{id}")
  public String item(@PathVariable("id") long id) {
    return items.item(id) + "\n";
  }

  @GetMapping("/stats")
  public Map<String, Object> stats() {
    HybridCache engine = jcache.unwrap(HybridCache.class);
    CacheStats s = engine.stats();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("loads", items.loads());
    m.put("gets", s.gets());
    m.put("dramHits", s.dramHits());
    m.put("flashHits", s.flashHits());
    m.put("misses", s.misses());
    m.put("flashEntries", s.flashEntries());
    m.put("dramBytes", engine.config().dramBytes());
    m.put("l2Hits", hibernate.getSecondLevelCacheHitCount());
    m.put("l2Misses", hibernate.getSecondLevelCacheMissCount());
    m.put("l2Puts", hibernate.getSecondLevelCachePutCount());
    m.put("sqlStatements", hibernate.getPrepareStatementCount());
    return m;
  }
}
