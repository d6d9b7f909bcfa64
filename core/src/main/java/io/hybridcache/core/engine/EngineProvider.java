package io.hybridcache.core.engine;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheProvider;
import io.hybridcache.core.api.HybridCache;

/**
 * The flash engine as a {@link CacheProvider}: what {@link HybridCache#open} finds through
 * {@link java.util.ServiceLoader}. Public only because the service loader instantiates it; stateless.
 */
public final class EngineProvider implements CacheProvider {

  /** For the service loader. */
  public EngineProvider() {}

  @Override
  public HybridCache open(CacheConfig config) {
    return Engine.open(config);
  }

  @Override
  public void deleteFiles(java.nio.file.Path directory) throws java.io.IOException {
    CacheFiles.delete(directory);
  }
}
