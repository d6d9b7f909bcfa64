/**
 * What callers name: {@link io.hybridcache.core.api.HybridCache} (open, get, put, remove, keys,
 * close) and its typed view {@link io.hybridcache.core.api.TypedCache} with {@link
 * io.hybridcache.core.api.Codec}; the immutable {@link io.hybridcache.core.api.CacheConfig} and the
 * choices it takes ({@link io.hybridcache.core.api.IndexType}, {@link io.hybridcache.core.api.MapperKind},
 * {@link io.hybridcache.core.api.VictimPolicy}, {@link io.hybridcache.core.api.AdmissionPolicy} and its
 * implementations, {@link io.hybridcache.core.api.LifetimeClass}, {@link
 * io.hybridcache.core.api.LayoutChange}); the snapshots it reports ({@link
 * io.hybridcache.core.api.CacheStats}, {@link io.hybridcache.core.api.PlacementStats}, the JMX view
 * {@link io.hybridcache.core.api.HybridCacheMXBean}).
 *
 * <p>This package depends on no other of the library's except {@code device} (page size). The engine
 * behind {@link io.hybridcache.core.api.HybridCache#open} is found through {@link
 * io.hybridcache.core.api.CacheProvider}, so the engine depends on the API and never the reverse.
 */
package io.hybridcache.core.api;
