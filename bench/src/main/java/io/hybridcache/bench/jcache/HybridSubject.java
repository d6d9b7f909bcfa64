package io.hybridcache.bench.jcache;

import java.net.URI;
import java.nio.file.Path;
import java.util.Properties;
import javax.cache.Cache;
import javax.cache.CacheManager;

/**
 * This project's provider: a manager's properties give its directory and budgets; the bounded cache is
 * declared in them ({@code cache.bounded.*}), with 1 MiB of DRAM (about {@link JCacheProbe#HEAP_ENTRIES}
 * values of 1 KiB with their keys and overheads) over 64 MiB of flash.
 */
final class HybridSubject extends ProbeSubject {
  HybridSubject() {
    super("hybridcache-jcache", "io.hybridcache.jcache.HybridCachingProvider");
  }

  private CacheManager manager(Path dir, Properties p) {
    p.setProperty("directory", dir.toString());
    p.setProperty("segment-bytes", "4m");
    p.setProperty("write-buffer-bytes", "256k");
    return provider().getCacheManager(URI.create("probe-" + dir.toAbsolutePath()), provider().getDefaultClassLoader(), p);
  }

  @Override
  CacheManager plainManager(Path dir) {
    Properties p = new Properties();
    p.setProperty("dram-bytes", "8m");
    p.setProperty("flash-bytes", "64m");
    return manager(dir, p);
  }

  @Override
  CacheManager boundedManager(Path dir) {
    Properties p = new Properties();
    p.setProperty("dram-bytes", "1m");
    p.setProperty("flash-bytes", "64m");
    p.setProperty("cache." + JCacheProbe.BOUNDED + ".key-type", "java.lang.Integer");
    p.setProperty("cache." + JCacheProbe.BOUNDED + ".value-type", "java.lang.String");
    return manager(dir, p);
  }

  @Override
  String boundedConfiguration() {
    return "provider properties: dram-bytes=1m, flash-bytes=64m, the cache declared by cache.bounded.key-type/value-type";
  }

  @Override
  Cache<Integer, String> boundedCache(CacheManager manager) {
    return manager.getCache(JCacheProbe.BOUNDED, Integer.class, String.class);
  }
}
