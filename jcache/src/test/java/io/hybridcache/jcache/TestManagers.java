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
}
