package io.hybridcache.core.api;

/**
 * Turns the value of a hit into the caller's object, told which tier served it: for callers that count hits per
 * tier for a group of keys of their own (a JCache cache's namespace), at no cost beyond the read
 * ({@link HybridCache#readTiered}, {@link HybridCache#readAll}).
 *
 * @param <T> what the decoder makes
 */
@FunctionalInterface
public interface TieredDecoder<T> {
  /**
   * @param value the value's bytes: may be the cache's own array, so only read, during the call (as
   *     {@link HybridCache#readArray}'s decoder)
   * @param tier the tier that served the hit
   */
  T decode(byte[] value, Tier tier);
}
