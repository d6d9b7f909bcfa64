package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Entries the engine cannot keep as asked are never silent: one over the flash tier's largest entry (kept in
 * DRAM only, lost at eviction or restart) or over the DRAM budget is counted per cache
 * ({@link HybridCacheStatisticsMXBean#getOversizedEntries()}) and WARNed once per cache; a key over the engine's
 * key limit is a miss on a read and counted (not stored) on a write, never an exception.
 */
class LargeEntriesTest {
  @TempDir Path dir;

  private static long oversized(Cache<?, ?> c) {
    return c.unwrap(HybridCacheStatisticsMXBean.class).getOversizedEntries();
  }

  /** What the provider logs (slf4j-simple writes to System.err) while {@code r} runs. */
  private static String stderrOf(Runnable r) {
    PrintStream saved = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setErr(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      r.run();
    } finally {
      System.setErr(saved);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void entriesOverTheFlashTiersLargestOrTheDramBudgetAreCountedPerCacheAndWarnedOnce() {
    // TestManagers.small: write-buffer-bytes 64k (the flash tier's largest entry), dram-bytes 1m
    try (CacheManager manager = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<String, byte[]> big = manager.createCache("big",
          new MutableConfiguration<String, byte[]>().setTypes(String.class, byte[].class));
      Cache<String, byte[]> other = manager.createCache("other",
          new MutableConfiguration<String, byte[]>().setTypes(String.class, byte[].class));
      String log = stderrOf(() -> {
        big.put("small", new byte[1000]);
        big.put("over-flash-1", new byte[100_000]);
        big.put("over-flash-2", new byte[100_000]);
        big.put("over-both", new byte[2_000_000]);
      });
      assertEquals(3, oversized(big), "every entry over a tier's limit is counted");
      assertEquals(0, oversized(other), "counted per cache");
      assertEquals(1, SerialFilterTest.count(log, "cache big: an entry of"), "WARNed once per cache: " + log);
      assertTrue(log.contains("WARN"), log);
      assertEquals(100_000, big.get("over-flash-1").length, "over the flash tier only: served from DRAM");
      assertNull(big.get("over-both"), "over both tiers: not stored");
      String otherLog = stderrOf(() -> other.put("x", new byte[100_000]));
      assertEquals(1, oversized(other));
      assertEquals(1, SerialFilterTest.count(otherLog, "cache other: an entry of"), "each cache WARNs once: " + otherLog);
    }
  }

  @Test
  void anOversizedKeyIsAMissOnAReadAndCountedOnAWrite() {
    try (CacheManager manager = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<byte[], String> c = manager.createCache("keys",
          new MutableConfiguration<byte[], String>().setTypes(byte[].class, String.class));
      byte[] huge = new byte[70_000];
      Arrays.fill(huge, (byte) 7);
      assertNull(c.get(huge), "an oversized key on get is a miss");
      assertFalse(c.containsKey(huge));
      assertFalse(c.remove(huge));
      c.put(huge, "v");
      assertNull(c.get(huge), "an oversized key is not stored");
      assertEquals(1, oversized(c), "its put is counted");
    }
  }
}
