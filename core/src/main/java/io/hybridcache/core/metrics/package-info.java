/**
 * Micrometer meters for a cache: {@link io.hybridcache.core.metrics.HybridCacheMetrics}, a {@code
 * MeterBinder} publishing {@link io.hybridcache.core.api.CacheStats} under Micrometer's cache meter
 * names ({@code cache.gets}, {@code cache.puts}, {@code cache.evictions}, {@code cache.size}) with a
 * {@code tier} tag, and the flash tier's figures under {@code hybridcache.*}.
 *
 * <p>The only package that uses Micrometer, an optional dependency (add {@code
 * io.micrometer:micrometer-core} to use it); it depends on the library's {@code api} only, and nothing
 * depends on it.
 */
package io.hybridcache.core.metrics;
