package io.hybridcache.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.bench.compare.stores.OurDramBudget;
import io.hybridcache.core.api.CacheConfig;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The comparison runs this library as its users do: the default configuration (compact index, no JVM
 * flags), with its index charged to the same DRAM budget as every peer's cache.
 */
class OursAsUsersRunItTest {
  @TempDir
  Path dir;

  @Test
  void theDefaultStoreOpensTheCompactIndexWithoutFlagsAndChargesItToTheBudget() throws Exception {
    assertFalse(StoreType.HYBRIDCACHE.opensChronicle(), "its child JVM gets no module flags");
    assertTrue(StoreType.defaultSet().contains(StoreType.HYBRIDCACHE));
    assertFalse(StoreType.defaultSet().contains(StoreType.HYBRIDCACHE_CHRONICLE));
    assertTrue(StoreType.HYBRIDCACHE_CHRONICLE.opensChronicle() && StoreType.HYBRIDCACHE_CHRONICLE.ours());
    long budget = 24L << 20;
    long expected = 100_000;
    try (KvStore s = StoreType.HYBRIDCACHE.open(new StoreSettings(dir, budget, 64L << 20, expected, 1_100))) {
      String d = s.describe();
      assertTrue(d.contains("index heap"), d);
      assertTrue(d.contains("DRAM tier ") && d.contains("the budget less the index's charge"), d);
      for (int i = 0; i < 1_000; i++) {
        s.put("user" + i, new byte[1_000]);
      }
      long index = s.indexBytes();
      long charge = OurDramBudget.heapIndexCharge(expected);
      // the tier is the budget less a charge of at least 16 B x expected entries and at least the index measured now
      assertTrue(index > 0, "the store reports its index's DRAM");
      assertEquals(charge, s.indexChargeBytes());
      assertTrue(index <= charge, "index " + index + " B under its charge " + charge + " B");
      assertTrue(d.contains("index's charge ") && chargeIn(d) >= charge, d + " (index measures " + index + " B)");
    }
  }

  /** The charge the description states, back in bytes (to the precision the description prints). */
  private static long chargeIn(String description) {
    String t = description.substring(description.indexOf("index's charge ") + "index's charge ".length());
    String[] parts = t.substring(0, t.indexOf(')')).split(" ");
    double v = Double.parseDouble(parts[0]);
    long unit = switch (parts[1]) {
      case "B" -> 1;
      case "KiB" -> 1L << 10;
      case "MiB" -> 1L << 20;
      default -> throw new AssertionError(description);
    };
    return (long) Math.ceil((v + 0.05) * unit);
  }

  @Test
  void oursIsTheDefaultConfigurationWithOnlyTheSizesSetAndTheTierIsTheBudgetLessIndexAndWriteBuffers() throws Exception {
    long budget = 24L << 20;
    long expected = 50_000;
    try (KvStore s = StoreType.HYBRIDCACHE.open(new StoreSettings(dir, budget, 256L << 20, expected, 1_100))) {
      CacheConfig defaults = CacheConfig.builder(dir).name("compare").flashBytes(256L << 20).build();
      CacheConfig atBudget = defaults.toBuilder().dramBytes(budget).build();
      long tier = budget - OurDramBudget.heapIndexCharge(expected) - OurDramBudget.bufferBytes(atBudget);
      CacheConfig expectedConfig = defaults.toBuilder().dramBytes(tier).build();
      assertEquals(expectedConfig.toString(), configOf(s).toString(), "every setting but the sizes is the default");
    }
  }

  /**
   * Issue 38's review: the write buffers are charged at the total the budget derives, and the cache keeps
   * that total, though the smaller tier alone would derive fewer (192 MiB: 12 buffers charged; a tier of
   * about 179 MiB derives 11), so what it runs with is what it was charged for.
   */
  @Test
  void theCacheKeepsTheWriteBuffersItsBudgetWasChargedFor() throws Exception {
    long budget = 192L << 20;
    long expected = 50_000;
    try (KvStore s = StoreType.HYBRIDCACHE.open(new StoreSettings(dir, budget, 256L << 20, expected, 1_100))) {
      CacheConfig c = configOf(s);
      assertEquals(12, c.writeBuffersTotal(), "a sixteenth of the 192 MiB budget in 1 MiB buffers");
      assertEquals(11, CacheConfig.derivedWriteBuffersTotal(c.dramBytes(), c.writeBufferBytes(), c.writeBuffers()),
          "what the tier alone would derive");
      assertEquals(budget - OurDramBudget.heapIndexCharge(expected) - 12L * ((1L << 20) + 4096), c.dramBytes());
    }
  }

  private static CacheConfig configOf(KvStore s) {
    return ((io.hybridcache.bench.compare.stores.HybridCacheStore) s).config();
  }

  @Test
  void aBudgetTheIndexsChargeWouldExhaustIsRefusedWithTheFigures() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> StoreType.HYBRIDCACHE.open(new StoreSettings(dir, 2L << 20, 64L << 20, 100_000, 1_100)));
    assertTrue(e.getMessage().contains("2 MiB") && e.getMessage().contains("index and write buffers"), e.getMessage());
    assertEquals(IllegalArgumentException.class, e.getClass());
  }
}
