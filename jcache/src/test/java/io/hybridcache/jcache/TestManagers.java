package io.hybridcache.jcache;

import java.net.URI;
import java.nio.file.Path;
import java.util.Properties;
import javax.cache.CacheManager;

/** Managers on a test's own directory with small budgets (1 MiB DRAM, 8 MiB flash). */
final class TestManagers {
  private TestManagers() {}

  static Properties small(Path dir) {
    Properties p = new Properties();
    p.setProperty(ProviderProperties.DIRECTORY, dir.toString());
    p.setProperty(ProviderProperties.DRAM_BYTES, "1m");
    p.setProperty(ProviderProperties.FLASH_BYTES, "8m");
    p.setProperty(ProviderProperties.SEGMENT_BYTES, "512k");
    p.setProperty(ProviderProperties.WRITE_BUFFER_BYTES, "64k");
    return p;
  }

  static CacheManager open(HybridCachingProvider provider, Path dir) {
    return provider.getCacheManager(URI.create("test:" + dir.getFileName()), TestManagers.class.getClassLoader(),
        small(dir));
  }

  /** As {@link #small}, with {@code cache.NAME.warm=true} for each of {@code warm}: created on demand, yet warm. */
  static Properties small(Path dir, String... warm) {
    Properties p = small(dir);
    for (String name : warm) {
      p.setProperty(ProviderProperties.CACHE_PREFIX + name + ".warm", "true");
    }
    return p;
  }

  /** As {@link #open(HybridCachingProvider, Path)}, the caches named {@code warm} created on demand, yet warm. */
  static CacheManager open(HybridCachingProvider provider, Path dir, String... warm) {
    return provider.getCacheManager(URI.create("test:" + dir.getFileName()), TestManagers.class.getClassLoader(),
        small(dir, warm));
  }
}
