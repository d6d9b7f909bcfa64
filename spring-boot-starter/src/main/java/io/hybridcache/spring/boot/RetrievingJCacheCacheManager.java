package io.hybridcache.spring.boot;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.springframework.cache.Cache;
import org.springframework.cache.jcache.JCacheCache;
import org.springframework.cache.jcache.JCacheCacheManager;

/**
 * Spring's JCache cache manager whose caches answer {@link Cache#retrieve(Object)} and
 * {@link Cache#retrieve(Object, Supplier)}, so that {@code @Cacheable} methods returning {@code CompletableFuture}
 * can be cached (Reactor's {@code Mono}/{@code Flux} go through the same methods in Spring; not tried here). Spring's own {@link JCacheCache}
 * throws {@code UnsupportedOperationException} there. A lookup, which may read flash, runs on {@code executor},
 * never on the caller's thread; a loaded value is stored on it too. As Spring's other caches do, {@code retrieve}
 * completes with {@code null} for a miss (the method is then called), with a {@code ValueWrapper} when null values
 * are allowed, else with the value. {@code retrieve(key, loader)} ({@code @Cacheable(sync = true)}) runs one lookup
 * and at most one load per key for concurrent callers, as Spring's {@code ConcurrentMapCache} and Caffeine's cache
 * do: a map of the futures in flight, by key, each removed as it completes. Otherwise it is Spring's
 * {@link JCacheCacheManager} (caches, null values, transaction awareness). Thread-safe as its superclass.
 */
class RetrievingJCacheCacheManager extends JCacheCacheManager {
  private final Supplier<Executor> executor;

  /** A manager over {@code original}'s JCache manager, with its settings; lookups of {@code retrieve} on {@code executor}. */
  RetrievingJCacheCacheManager(JCacheCacheManager original, Supplier<Executor> executor) {
    super(original.getCacheManager());
    setAllowNullValues(original.isAllowNullValues());
    setTransactionAware(original.isTransactionAware());
    this.executor = executor;
  }

  @Override
  protected Collection<Cache> loadCaches() {
    javax.cache.CacheManager m = getCacheManager();
    List<Cache> caches = new ArrayList<>();
    if (m != null) {
      for (String name : m.getCacheNames()) {
        caches.add(new RetrievingCache(m.getCache(name), isAllowNullValues(), executor));
      }
    }
    return caches;
  }

  @Override
  protected Cache getMissingCache(String name) {
    javax.cache.CacheManager m = getCacheManager();
    javax.cache.Cache<Object, Object> cache = m == null ? null : m.getCache(name);
    return cache == null ? null : new RetrievingCache(cache, isAllowNullValues(), executor);
  }

  /** A {@link JCacheCache} whose {@code retrieve} looks up on the executor. */
  static final class RetrievingCache extends JCacheCache {
    private final Supplier<Executor> executor;
    /** The futures of {@code retrieve(key, loader)} in flight, by key: at most one per key, removed as it completes. */
    private final ConcurrentHashMap<Object, CompletableFuture<Object>> inFlight = new ConcurrentHashMap<>();

    RetrievingCache(javax.cache.Cache<Object, Object> cache, boolean allowNullValues, Supplier<Executor> executor) {
      super(cache, allowNullValues);
      this.executor = executor;
    }

    @Override
    public CompletableFuture<?> retrieve(Object key) {
      return CompletableFuture.supplyAsync(() -> {
        Object stored = lookup(key);
        return stored == null ? null : isAllowNullValues() ? toValueWrapper(stored) : fromStoreValue(stored);
      }, executor.get());
    }

    /**
     * One lookup-and-load per key for concurrent callers: the first caller's future is here until it completes, and
     * the callers that come meanwhile wait for it; each gets a copy of it (one caller's cancel does not end the
     * others'). Removed before it completes, so a caller after that looks up afresh (and finds what was stored).
     */
    @Override
    @SuppressWarnings("unchecked")
    public <T> CompletableFuture<T> retrieve(Object key, Supplier<CompletableFuture<T>> valueLoader) {
      CompletableFuture<Object> mine = new CompletableFuture<>();
      CompletableFuture<Object> theirs = inFlight.putIfAbsent(key, mine);
      if (theirs != null) {
        return (CompletableFuture<T>) theirs.copy();
      }
      lookupOrLoad(key, valueLoader).whenComplete((value, failure) -> {
        inFlight.remove(key, mine);
        if (failure != null) {
          mine.completeExceptionally(failure);
        } else {
          mine.complete(value);
        }
      });
      return (CompletableFuture<T>) mine.copy();
    }

    /** The stored value of {@code key}, or else {@code valueLoader}'s, stored; both on the executor. */
    @SuppressWarnings("unchecked")
    private <T> CompletableFuture<T> lookupOrLoad(Object key, Supplier<CompletableFuture<T>> valueLoader) {
      Executor on = executor.get();
      return CompletableFuture.supplyAsync(() -> lookup(key), on).thenCompose(stored -> stored != null
          ? CompletableFuture.completedFuture((T) fromStoreValue(stored))
          : valueLoader.get().thenApplyAsync(loaded -> {
            put(key, loaded);
            return loaded;
          }, on));
    }
  }
}
