/**
 * A JCache (JSR-107) provider over hybridcache: {@link io.hybridcache.jcache.HybridCachingProvider}.
 *
 * <p>Each {@code CacheManager} opens one hybridcache engine (one directory, one DRAM and one flash budget,
 * one set of threads); each of its caches is a key namespace of that engine: its keys are stored as a short
 * prefix (the cache's namespace id and epoch, two varints) followed by the key's bytes, so fifty caches cost
 * what one costs. {@code clear()} and {@code destroyCache} bump the epoch (persisted before they return):
 * entries of an older epoch are never asked for again and age out of the tiers like any cold entry, so
 * neither scans the flash tier. Values are stored as their codec's bytes after an 8-byte expiry time
 * (epoch milliseconds), so an expired entry never comes back after a restart.
 *
 * <p>Callers name only {@link io.hybridcache.jcache.HybridCachingProvider},
 * {@link io.hybridcache.jcache.HybridCacheConfiguration}, {@link io.hybridcache.jcache.Codecs} and
 * {@link io.hybridcache.jcache.ProviderProperties}; everything else is package-private.
 */
package io.hybridcache.jcache;
