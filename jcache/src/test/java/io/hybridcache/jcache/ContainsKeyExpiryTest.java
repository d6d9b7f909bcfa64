package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryExpiredListener;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A registered EXPIRED listener hears of an expired entry that containsKey finds, as of one that get finds: once. */
class ContainsKeyExpiryTest {
  static final List<String> EXPIRED = Collections.synchronizedList(new ArrayList<>());

  /** A synchronous listener recording the keys told expired. */
  public static final class Recorder implements CacheEntryExpiredListener<String, String>, java.io.Serializable {
    @Override
    public void onExpired(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
      events.forEach(e -> EXPIRED.add(e.getKey() + "=" + e.getOldValue()));
    }
  }

  @TempDir Path dir;

  @Test
  void containsKeyTellsAnExpiredEntryOnce() {
    EXPIRED.clear();
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      long ttl = 50;
      Cache<String, String> c = m.createCache("ttl", new MutableConfiguration<String, String>()
          .setTypes(String.class, String.class)
          .setExpiryPolicyFactory(FactoryBuilder.factoryOf(new CreatedExpiryPolicy(
              new Duration(TimeUnit.MILLISECONDS, ttl))))
          .addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
              FactoryBuilder.factoryOf(Recorder.class), null, true, true)));
      c.put("k", "v");
      long expiresBy = System.currentTimeMillis() + ttl; // after the put: its expiry is no later
      while (System.currentTimeMillis() <= expiresBy) { // the clock must pass the TTL: its own time, no handshake
        Thread.onSpinWait();
      }
      assertFalse(c.containsKey("k"));
      assertEquals(List.of("k=v"), EXPIRED, "told by containsKey");
      assertNull(c.get("k"));
      assertFalse(c.containsKey("k"));
      assertEquals(List.of("k=v"), EXPIRED, "told once");
    }
  }
}
