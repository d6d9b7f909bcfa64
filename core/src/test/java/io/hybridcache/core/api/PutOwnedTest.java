package io.hybridcache.core.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link HybridCache#putOwned} through the public API: the value served, expiry kept, bad times named. */
class PutOwnedTest {
  @TempDir
  Path dir;

  @Test
  void anOwnedPutIsServedFromDramAndFlashAndHonoursItsExpiry() throws Exception {
    try (HybridCache c = HybridCache.open(CacheConfig.builder(dir).dramBytes(CacheConfig.MIB)
        .flashBytes(64 * CacheConfig.MIB).build())) {
      byte[] key = "owned".getBytes(StandardCharsets.UTF_8);
      byte[] value = new byte[] {1, 2, 3};
      c.putOwned(key, value, Long.MAX_VALUE);
      assertArrayEquals(new byte[] {1, 2, 3}, c.get("owned".getBytes(StandardCharsets.UTF_8)));
      c.putOwned("gone".getBytes(StandardCharsets.UTF_8), new byte[] {9}, System.currentTimeMillis() - 1_000);
      assertNull(c.get("gone".getBytes(StandardCharsets.UTF_8)), "an expiry time already past is a miss");
      c.putOwned("later".getBytes(StandardCharsets.UTF_8), new byte[] {7},
          System.currentTimeMillis() + 3_600_000);
      c.flush(); // to flash as well: the owned arrays are written like any value
      assertArrayEquals(new byte[] {7}, c.get("later".getBytes(StandardCharsets.UTF_8)));
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> c.putOwned("bad".getBytes(StandardCharsets.UTF_8), new byte[] {1}, 0));
      assertTrue(e.getMessage().contains("0"), e.getMessage());
    }
  }
}
