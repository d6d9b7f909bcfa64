package io.hybridcache.core.engine;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.HybridCache;

/**
 * TEMPORARY stub so branch {@code bench} compiles before the engine lands on main. Drop this
 * commit ("TEMP stub Engine") at merge: the real class replaces it.
 */
public final class Engine {
  private Engine() {}

  /** Always throws: the engine is not on this branch yet. */
  public static HybridCache open(CacheConfig c) {
    throw new UnsupportedOperationException("Engine stub on branch bench: merge main for the real engine");
  }
}
