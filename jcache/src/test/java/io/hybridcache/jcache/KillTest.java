package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.hybridcache.core.ChildJvms;
import io.hybridcache.core.api.HybridCache;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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

/**
 * kill -9 of a JVM using the provider: what reached flash comes back, while an entry removed, cleared or
 * expired before the kill never does (the engine journals removes; the namespace epoch is synced).
 */
class KillTest {
  /** The caches, created on demand, that must come back warm ({@code cache.NAME.warm=true}). */
  private static final String[] WARM = {"users", "cleared", "ttl"};
  static final int USERS = 2000;
  static final String PAD = "p".repeat(300);

  @TempDir Path dir;

  static MutableConfiguration<String, String> strings() {
    return new MutableConfiguration<String, String>().setTypes(String.class, String.class);
  }

  /** The child: fills three caches, flushes, then removes, clears, says READY and waits to be killed. */
  public static void main(String[] args) throws Exception {
    CacheManager manager = TestManagers.open(new HybridCachingProvider(), Path.of(args[0]), WARM);
    Cache<String, String> users = manager.createCache("users", strings());
    Cache<String, String> cleared = manager.createCache("cleared", strings());
    Cache<String, String> ttl = manager.createCache("ttl", strings().setExpiryPolicyFactory(
        FactoryBuilder.factoryOf(new CreatedExpiryPolicy(new Duration(TimeUnit.MILLISECONDS, 50)))));
    for (int i = 0; i < USERS; i++) {
      users.put("u" + i, PAD + i);
    }
    for (int i = 0; i < 100; i++) {
      cleared.put("c" + i, PAD);
    }
    ttl.put("t", "short-lived");
    manager.unwrap(HybridCache.class).flush(); // every version below is on flash
    for (int i = 5; i < 10; i++) {
      users.remove("u" + i);
    }
    cleared.clear();
    System.out.println("READY " + (System.currentTimeMillis() + 50));
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }

  @Test
  void removedClearedAndExpiredEntriesStayGoneAfterKill9() throws Exception {
    Process child = ChildJvms.start(KillTest.class, "256m", dir.resolve("child.err").toFile(),
        dir.resolve("cache").toString());
    long expiresBy;
    try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line = out.readLine();
      if (line == null || !line.startsWith("READY ")) {
        throw new AssertionError("child failed: " + Files.readString(dir.resolve("child.err")));
      }
      expiresBy = Long.parseLong(line.substring(6));
    } finally {
      child.destroyForcibly(); // SIGKILL
      child.waitFor();
    }
    while (System.currentTimeMillis() <= expiresBy) { // the clock must pass the expiry
      Thread.onSpinWait();
    }
    try (CacheManager manager = TestManagers.open(new HybridCachingProvider(), dir.resolve("cache"), WARM)) {
      Cache<String, String> users = manager.createCache("users", strings());
      Cache<String, String> cleared = manager.createCache("cleared", strings());
      Cache<String, String> ttl = manager.createCache("ttl", strings());
      for (int i = 0; i < USERS; i++) {
        if (i >= 5 && i < 10) {
          assertNull(users.get("u" + i), "a removed entry came back after kill -9: u" + i);
        } else {
          assertEquals(PAD + i, users.get("u" + i), "a flushed entry was lost: u" + i);
        }
      }
      for (int i = 0; i < 100; i++) {
        assertNull(cleared.get("c" + i), "a cleared entry came back after kill -9");
      }
      assertFalse(ttl.containsKey("t"), "an expired entry came back after kill -9");
    }
  }
}
