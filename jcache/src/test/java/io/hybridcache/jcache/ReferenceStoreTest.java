package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 35 item 8: store-by-reference caches are bounded (a default and a per-cache bound) and purge expired entries. */
class ReferenceStoreTest {
  @TempDir Path dir;

  private CacheManager open(String... extra) {
    Properties p = TestManagers.small(dir);
    for (int i = 0; i < extra.length; i += 2) {
      p.setProperty(extra[i], extra[i + 1]);
    }
    return new HybridCachingProvider().getCacheManager(URI.create("test:refs"), getClass().getClassLoader(), p);
  }

  private static int count(Cache<?, ?> c) {
    int n = 0;
    for (Cache.Entry<?, ?> e : c) {
      n++;
    }
    return n;
  }

  @Test
  void aStoreByReferenceCacheKeepsAtMostItsMaxEntriesAndCountsEvictions() {
    try (CacheManager m = open("cache.refs.store-by-reference", "true", "cache.refs.max-entries", "100",
        "cache.refs.statistics", "true")) {
      Cache<Object, Object> c = m.getCache("refs");
      for (int i = 0; i < 1000; i++) {
        c.put(i, new int[] {i});
      }
      int kept = count(c);
      assertTrue(kept <= 100 && kept > 0, "kept " + kept + " entries over cache.refs.max-entries=100");
      HybridCacheStatisticsMXBean stats = c.unwrap(HybridCacheStatisticsMXBean.class);
      assertEquals(1000 - kept, stats.getCacheEvictions(), "every entry dropped is an eviction");
    }
  }

  @Test
  void aStoreByReferenceCacheCreatedOnDemandHasTheDefaultBound() {
    try (CacheManager m = open()) {
      Cache<Object, Object> c = m.createCache("plain", new MutableConfiguration<>().setStoreByValue(false));
      int n = CacheSettings.DEFAULT_MAX_ENTRIES + 1000;
      for (int i = 0; i < n; i++) {
        c.put(i, i);
      }
      int kept = count(c);
      assertTrue(kept <= CacheSettings.DEFAULT_MAX_ENTRIES, "kept " + kept + " of " + n + ": unbounded");
    }
  }

  @Test
  void maxEntriesIsValidatedAndOnlyForStoreByReference() {
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
        () -> open("cache.refs.store-by-reference", "true", "cache.refs.max-entries", "0"));
    assertTrue(bad.getMessage().contains("cache.refs.max-entries") && bad.getMessage().contains("was 0"),
        bad.getMessage());
    try (CacheManager m = open("cache.v.max-entries", "10")) {
      fail(m);
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage().contains("cache.v.max-entries") && e.getMessage().contains("store-by-reference"),
          e.getMessage());
    }
  }

  private static void fail(CacheManager m) {
    org.junit.jupiter.api.Assertions.fail("max-entries accepted for a store-by-value cache: " + m.getCache("v"));
  }

  /** An expired entry nobody reads is dropped once the store's clock passes its expiry and the slack. */
  @Test
  void anExpiredEntryNobodyReadsIsPurged() {
    AtomicLong nanos = new AtomicLong();
    ReferenceStore<String, String> store = new ReferenceStore<>(10, nanos::get, () -> { });
    long now = System.currentTimeMillis();
    store.slot("short").put("v", now + 1_000);
    store.slot("eternal").put("v", Stored.ETERNAL);
    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(500));
    store.purge();
    assertNotNull(store.slot("short").get(), "dropped before its expiry");
    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(1_000) + ValueStore.ENGINE_TTL_SLACK.toNanos());
    store.purge();
    assertEquals(null, store.slot("short").get(), "an expired entry was kept");
    assertNotNull(store.slot("eternal").get());
    assertFalse(store.keys().next().equals("short"));
  }
}
