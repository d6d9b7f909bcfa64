package io.hybridcache.core.engine;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.IndexType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;

/**
 * Child JVM for {@link NoFlagsTest}, started without any JVM flag: the README's example on the default
 * configuration ({@code args[1] = default}), or an open with Chronicle ({@code chronicle}), whose error it
 * prints. Prints {@code OK} when the example ran and read its values back (also after a reopen), or
 * {@code ERROR <class>: <message>}.
 */
public final class NoFlagsChild {
  private NoFlagsChild() {}

  public static void main(String[] args) {
    Path dir = Path.of(args[0]);
    try {
      CacheConfig.Builder b = CacheConfig.builder(dir).dramBytes(CacheConfig.MIB).flashBytes(8 * CacheConfig.MIB)
          .segmentBytes(1 << 20).writeBufferBytes(64 * 1024).jmx(false);
      if (args[1].equals("chronicle")) {
        b.indexType(IndexType.CHRONICLE);
      }
      CacheConfig config = b.build();
      byte[] key = "key".getBytes(StandardCharsets.UTF_8);
      byte[] row = "row".getBytes(StandardCharsets.UTF_8);
      try (HybridCache cache = HybridCache.open(config)) {
        cache.put(key, row);
        cache.put("key2".getBytes(StandardCharsets.UTF_8), row, Duration.ofMinutes(10));
        check(Arrays.equals(row, cache.get(key)), "get after put");
        cache.remove("key2".getBytes(StandardCharsets.UTF_8));
        cache.stats();
      }
      try (HybridCache cache = HybridCache.open(config)) {
        check(Arrays.equals(row, cache.get(key)), "get after a clean reopen");
      }
      System.out.println("OK " + config.indexType());
    } catch (Throwable t) {
      System.out.println("ERROR " + t.getClass().getName() + ": " + t.getMessage());
    }
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError(what);
    }
  }
}
