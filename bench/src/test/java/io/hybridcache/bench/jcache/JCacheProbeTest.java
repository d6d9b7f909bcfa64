package io.hybridcache.bench.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.cache.event.EventType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs {@link JCacheProbe} on the four providers, prints the table, and checks each column is what
 * {@code src/site/jcache.md}'s comparison table says (a provider that changes behaviour fails this test).
 */
class JCacheProbeTest {
  @TempDir Path dir;

  @Test
  void everyProviderAnswersTheProbesAsTheTableSays() throws Exception {
    List<JCacheProbe.Column> columns = new ArrayList<>();
    for (ProbeSubject s : JCacheProbe.subjects()) {
      columns.add(JCacheProbe.run(s, dir.resolve(s.getClass().getSimpleName())));
    }
    JCacheProbe.print(columns, System.out);
    assertEquals(List.of("hybridcache-jcache", "Ehcache 3", "Caffeine jcache", "Infinispan jcache"),
        columns.stream().map(JCacheProbe.Column::provider).toList());
    for (JCacheProbe.Column c : columns) {
      assertTrue(c.storeByValue(), c.provider() + ": store-by-value");
      assertEquals(List.of(EventType.CREATED, EventType.UPDATED, EventType.REMOVED), c.heard(), c.provider());
      assertTrue(c.statisticsMXBean() && c.configurationMXBean(), c.provider() + ": MXBeans");
    }
    int all = JCacheProbe.ENTRIES;
    // hybridcache (flash), Ehcache (persistent disk tier), Infinispan (file store, read-through): all, twice
    for (JCacheProbe.Column c : List.of(columns.get(0), columns.get(1), columns.get(3))) {
      assertEquals(all, c.beyondHeap(), c.provider() + ": entries beyond the heap budget");
      assertEquals(all, c.afterRestart(), c.provider() + ": entries after a restart");
    }
    JCacheProbe.Column caffeine = columns.get(2); // heap only
    assertTrue(caffeine.beyondHeap() <= JCacheProbe.HEAP_ENTRIES, "Caffeine kept " + caffeine.beyondHeap());
    assertEquals(0, caffeine.afterRestart());
    // after kill -9: ours loses only what was still in its 1 MiB DRAM tier (about 1,000 values), Ehcache drops
    // its disk tier after an unclean stop, Infinispan wrote every put through to its store
    JCacheProbe.Column ours = columns.get(0);
    assertTrue(ours.afterKill() >= all / 2, "hybridcache after kill -9: " + ours.afterKill());
    assertEquals(0, columns.get(1).afterKill(), "Ehcache after kill -9");
    assertEquals(0, caffeine.afterKill(), "Caffeine after kill -9");
    assertEquals(all, columns.get(3).afterKill(), "Infinispan after kill -9");
  }
}
