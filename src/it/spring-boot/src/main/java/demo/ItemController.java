package demo;

import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.cache.CacheManager;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** GET /items/{id}: the item (one line); GET /stats: the loads and the cache engine's counters. */
@RestController
public class ItemController {
  private final ItemService items;
  private final CacheManager jcache;

  public ItemController(ItemService items, CacheManager jcache) {
    this.items = items;
    this.jcache = jcache;
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
    return m;
  }
}
