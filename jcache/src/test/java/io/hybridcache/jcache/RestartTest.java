package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.hybridcache.core.api.HybridCache;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A warm directory comes back warm, and JCache semantics hold across the restart. */
class RestartTest {
  @TempDir Path dir;

  private static MutableConfiguration<String, String> strings() {
    return new MutableConfiguration<String, String>().setTypes(String.class, String.class);
  }

  @Test
  void entriesComeBackButExpiredRemovedAndClearedOnesDoNot() {
    long expiresBy;
    try (CacheManager manager = TestManagers.open(new HybridCachingProvider(), dir, "users", "ttl", "cleared", "old")) {
      Cache<String, String> users = manager.createCache("users", strings());
      Cache<String, String> ttl = manager.createCache("ttl", strings().setExpiryPolicyFactory(
          FactoryBuilder.factoryOf(new CreatedExpiryPolicy(new Duration(TimeUnit.MILLISECONDS, 50)))));
      Cache<String, String> cleared = manager.createCache("cleared", strings());
      String pad = "p".repeat(500);
      for (int i = 0; i < 3000; i++) { // 1.5 MB: some on flash
        users.put("u" + i, pad + i);
      }
      users.remove("u5");
      users.remove("u2999"); // in DRAM
      ttl.put("t", "short-lived");
      expiresBy = System.currentTimeMillis() + 50;
      cleared.put("c", "gone");
      cleared.clear();
      manager.unwrap(HybridCache.class).flush();
    } // clean close
    while (System.currentTimeMillis() <= expiresBy) { // the clock must pass the expiry, whatever the machine's speed
      Thread.onSpinWait();
    }

    try (CacheManager manager = TestManagers.open(new HybridCachingProvider(), dir, "users", "ttl", "cleared", "old")) {
      Cache<String, String> users = manager.createCache("users", strings());
      Cache<String, String> ttl = manager.createCache("ttl", strings());
      Cache<String, String> cleared = manager.createCache("cleared", strings());
      String pad = "p".repeat(500);
      for (int i = 0; i < 3000; i++) {
        if (i == 5 || i == 2999) {
          assertNull(users.get("u" + i), "a removed entry came back: u" + i);
        } else {
          assertEquals(pad + i, users.get("u" + i), "u" + i);
        }
      }
      assertFalse(ttl.containsKey("t"), "an expired entry came back");
      assertNull(cleared.get("c"), "a cleared entry came back");
      HybridCache engine = manager.unwrap(HybridCache.class);
      // the three absent keys; the expired one was asked by containsKey, a header read that counts no engine get
      assertEquals(3, engine.stats().misses(), "only the three absent keys missed");
      org.junit.jupiter.api.Assertions.assertTrue(engine.stats().flashHits() > 0, "nothing came from flash");
    }
  }

  @Test
  void destroyingACacheOfAnEarlierRunEmptiesIt() {
    try (CacheManager manager = TestManagers.open(new HybridCachingProvider(), dir, "users", "ttl", "cleared", "old")) {
      manager.createCache("old", strings()).put("k", "v");
    }
    try (CacheManager manager = TestManagers.open(new HybridCachingProvider(), dir, "users", "ttl", "cleared", "old")) {
      manager.destroyCache("old"); // not opened by this manager
      assertNull(manager.createCache("old", strings()).get("k"), "a destroyed cache's entry came back");
    }
    try (CacheManager manager = TestManagers.open(new HybridCachingProvider(), dir, "users", "ttl", "cleared", "old")) {
      manager.createCache("old", strings()).put("k2", "v2");
    }
    try (CacheManager manager = TestManagers.open(new HybridCachingProvider(), dir, "users", "ttl", "cleared", "old")) {
      assertEquals("v2", manager.createCache("old", strings()).get("k2"), "an entry of a cache not destroyed was lost");
    }
  }
}
