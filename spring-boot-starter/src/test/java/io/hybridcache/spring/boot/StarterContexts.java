package io.hybridcache.spring.boot;

import java.nio.file.Path;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Configuration;

/** The application contexts the starter's tests run: Spring Boot's cache auto-configuration and the starter's. */
final class StarterContexts {
  private StarterContexts() {}

  /** An application that caches ({@code @EnableCaching}), as Spring Boot needs for its cache manager. */
  @Configuration(proxyBeanMethods = false)
  @EnableCaching
  static class CachingApplication {}

  /**
   * A runner with Spring Boot's cache auto-configuration, the starter's and {@code more}, and small budgets in
   * {@code directory} (1 MiB of DRAM, 4 MiB of flash in 64 KiB segments, no direct I/O: the temp directory may be
   * a tmpfs).
   */
  static ApplicationContextRunner runner(Path directory, Class<?>... more) {
    Class<?>[] all = new Class<?>[more.length + 2];
    all[0] = CacheAutoConfiguration.class;
    all[1] = HybridCacheAutoConfiguration.class;
    System.arraycopy(more, 0, all, 2, more.length);
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(all))
        .withUserConfiguration(CachingApplication.class)
        .withPropertyValues(
            "hybridcache.jcache.directory=" + directory,
            "hybridcache.jcache.dram-bytes=1MB",
            "hybridcache.jcache.flash-bytes=4MB",
            "hybridcache.jcache.segment-bytes=64KB",
            "hybridcache.jcache.write-buffer-bytes=16KB",
            "hybridcache.jcache.direct-io=false");
  }
}
