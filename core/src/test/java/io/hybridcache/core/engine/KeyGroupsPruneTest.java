package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.api.KeyGroups;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A key group that holds nothing leaves nothing behind (a JCache namespace epoch is a group: one per clear, so
 * counts kept forever grow with the clears), and the counts stay exact while groups come and go under races.
 */
class KeyGroupsPruneTest {
  @TempDir Path dir;

  /** The key's first byte is its group; every group counted, none capped. */
  static final KeyGroups BY_FIRST_BYTE = new KeyGroups() {
    @Override
    public long groupOf(byte[] key) {
      return key[0] & 0xFF;
    }

    @Override
    public long dramCap(long group) {
      return Long.MAX_VALUE;
    }

    @Override
    public long flashCap(long group) {
      return Long.MAX_VALUE;
    }
  };

  private CacheConfig config() {
    return TestCaches.small(dir, IndexType.HEAP).evictionKeyBytes(8).keyGroups(BY_FIRST_BYTE).build();
  }

  @Test
  void aGroupThatHoldsNothingIsDropped() {
    try (Engine c = TestCaches.open(config())) {
      GroupBytes groups = c.flashTier().groups();
      for (int g = 0; g < 200; g++) {
        c.put(new byte[] {(byte) g, 1}, new byte[100]);
      }
      assertEquals(200, groups.groupsCounted());
      for (int g = 0; g < 200; g++) {
        c.remove(new byte[] {(byte) g, 1});
      }
      assertEquals(0, groups.groupsCounted(), "groups left after every entry was removed from DRAM");
      for (int g = 0; g < 200; g++) {
        c.put(new byte[] {(byte) g, 2}, new byte[100]);
      }
      c.writeBackAndDropDram(); // on flash only
      c.clear(); // every segment leaves the table
      assertEquals(0, groups.groupsCounted(), "groups left after a clear emptied flash");
    }
  }

  @Test
  void countsStayExactWhileGroupsComeAndGo() throws Exception {
    try (Engine c = TestCaches.open(config())) {
      ExecutorService pool = Executors.newFixedThreadPool(4);
      try {
        List<Future<?>> runs = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
          int seed = t;
          runs.add(pool.submit(() -> {
            java.util.Random r = new java.util.Random(seed);
            for (int i = 0; i < 20_000; i++) {
              byte[] k = {(byte) r.nextInt(3), (byte) r.nextInt(4)};
              if (r.nextBoolean()) {
                c.put(k, new byte[r.nextInt(200)]);
              } else {
                c.remove(k);
              }
            }
          }));
        }
        for (Future<?> f : runs) {
          f.get();
        }
      } finally {
        pool.shutdown();
      }
      c.dramTier().cleanUp();
      long[] dram = new long[3];
      for (Map.Entry<ByteKey, DramEntry> e : c.dramTier().map().entrySet()) {
        dram[e.getKey().bytes()[0]] += DramTier.weigh(e.getKey().bytes().length, e.getValue().value().length);
      }
      for (int g = 0; g < 3; g++) {
        assertEquals(dram[g], c.dramBytesOf(g), "group " + g + "'s DRAM count");
      }
    }
  }
}
