package io.hybridcache.core.engine;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.index.IndexType;
import java.nio.file.Path;
import java.util.Random;

/**
 * Child JVM for {@link CrashTest}: opens the cache and writes forever (puts, spills that drive flushes
 * and reclaim, removes), printing a progress line every 200 operations until it is killed.
 */
public final class CrashChild {
  public static final int KEYS = 3000;

  private CrashChild() {}

  public static void main(String[] args) {
    Path dir = Path.of(args[0]);
    IndexType index = IndexType.valueOf(args[1]);
    long seed = Long.parseLong(args[2]);
    CacheConfig cfg = TestCaches.small(dir, index).build();
    Engine cache = TestCaches.open(cfg);
    Random rnd = new Random(seed);
    System.out.println("OPEN");
    System.out.flush();
    for (long op = 1; ; op++) {
      int k = rnd.nextInt(KEYS);
      int dice = rnd.nextInt(100);
      if (dice < 90) {
        cache.put(TestCaches.key(k), TestCaches.value(k, seed * 1_000_000_000L + op, 100 + rnd.nextInt(800)));
      } else if (dice < 97) {
        cache.remove(TestCaches.key(k));
      } else {
        cache.writeBack();
      }
      if (op % 200 == 0) {
        System.out.println("P " + op);
        System.out.flush();
      }
    }
  }
}
