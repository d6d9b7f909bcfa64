package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.SmallTestKeys.key;
import static io.hybridcache.core.engine.SmallTestKeys.value;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.device.MemoryDevice;
import io.hybridcache.core.engine.SmallSetPage.Entry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What threshold admission buys before the log exists: 100,000 objects of 100 B (24 B keys) into 3,703
 * sets, staged per set and inserted as one batch once {@code threshold} have gathered (what Kangaroo's
 * KLog does on flash; here the staging is a test-side map, so the log's own writes, about one byte per
 * byte admitted, are not counted). Prints set-write amplification and objects per rewrite.
 */
class SmallSetsBatchingTest {
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 4, 8, 16})
  void setWriteAmplificationFallsWithTheThreshold(int threshold) {
    int sets = 100_000 / 27;
    SmallSets region = new SmallSets(new MemoryDevice(1, (long) sets * 4096), 0, 1, SmallSets.Options.DEFAULT);
    Map<Integer, List<Entry>> staged = new HashMap<>();
    long admitted = 0;
    for (int i = 0; i < 100_000; i++) {
      Entry e = Entry.of(key(i), value(i, 1, 100), i, 0);
      admitted += e.key().length + e.value().length;
      int set = region.setOf(e.keyHash());
      List<Entry> batch = staged.computeIfAbsent(set, s -> new ArrayList<>());
      batch.add(e);
      if (batch.size() >= threshold) {
        region.insert(set, batch);
        staged.remove(set);
      }
    }
    SmallSetCounters.Snapshot s = region.stats();
    double wa = (double) s.pageBytesWritten() / admitted;
    System.out.printf("small sets, threshold %2d: %6d set rewrites, %.2f objects per rewrite, set-write "
        + "amplification %.2f, %d stored (%d left staged)%n", threshold, s.setRewrites(), s.objectsPerRewrite(),
        wa, s.entries(), staged.values().stream().mapToInt(List::size).sum());
    assertTrue(s.objectsPerRewrite() >= threshold, s.toString());
    assertTrue(wa <= 4096.0 / (threshold * 124) + 0.01, "amplification " + wa);
  }
}
