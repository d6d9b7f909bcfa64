package io.hybridcache.core.api;

/**
 * The engine behind {@link HybridCache#open}, found with {@link java.util.ServiceLoader} (core's
 * {@code META-INF/services} entry and {@code module-info} name it). Callers use {@link HybridCache#open};
 * this interface exists so the API package does not depend on the engine's.
 */
public interface CacheProvider {

  /** Opens (creating or warm-restarting) the cache described by {@code config}. */
  HybridCache open(CacheConfig config);

  /** See {@link HybridCache#deleteFiles}. */
  void deleteFiles(java.nio.file.Path directory) throws java.io.IOException;
}
