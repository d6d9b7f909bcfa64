package io.hybridcache.core.api;

import java.util.ServiceLoader;

/**
 * Loads the {@link CacheProvider} once, from the class loader that loaded this API (not the thread's
 * context loader, which in a host such as Cassandra may not see the library). Thread-safe: the holder
 * idiom initializes it on first use.
 */
final class CacheProviders {
  private CacheProviders() {}

  private static final class Holder {
    static final CacheProvider PROVIDER = load();
  }

  static CacheProvider provider() {
    return Holder.PROVIDER;
  }

  private static CacheProvider load() {
    return ServiceLoader.load(CacheProvider.class, CacheProvider.class.getClassLoader()).findFirst()
        .orElseThrow(() -> new IllegalStateException("no hybridcache engine found: the class path lacks "
            + "META-INF/services/" + CacheProvider.class.getName() + " from hybridcache-core (a shaded jar "
            + "needs the shade plugin's ServicesResourceTransformer)"));
  }
}
