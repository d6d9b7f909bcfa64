package io.hybridcache.core.catalog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.Codec;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.TypedCache;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The "Schema catalogue" example ({@code src/site/catalog.md}, moved from the README), line for line (a
 * smaller flash tier), with its claims checked.
 */
class ReadmeExampleTest {
  @TempDir Path tmp;

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void theReadmeExampleRunsAsDocumented() {
    Path dir = tmp.resolve("rows");
    CacheConfig config = CacheConfig.builder(dir).flashBytes(8 * 1024 * 1024).segmentBytes(1024 * 1024)
        .writeBufferBytes(256 * 1024).jmx(false).build();
    try (HybridCache cache = HybridCache.open(config);
         SchemaCatalog catalog = SchemaCatalog.open(dir.resolve(SchemaCatalog.SUBDIRECTORY))) {
      RowCodec users = new RowCodec(catalog, "users");
      TypedCache<String, Row> table = cache.typed(Codec.utf8(), users);

      table.put("u1", Row.builder().put("name", utf8("Ada")).put("email", utf8("ada@example.org")).build());
      table.put("u2", Row.builder().put("name", utf8("Alan"))
          .put("address", Row.builder().put("city", utf8("London")).put("zip", utf8("NW1")).build())
          .build());

      Row ada = table.get("u1");
      byte[] email = ada.bytes("email");
      assertArrayEquals(utf8("ada@example.org"), email);

      RowCodec.Slice names = users.slice("name");
      Row slice = names.decode(cache.get(utf8("u2")));
      assertEquals("{name=4B}", slice.toString());

      long id = catalog.idFor("users", List.of("name", "email"));
      Schema s = catalog.schema(id);
      assertEquals(List.of("email", "name"), s.columns());
      CatalogStats stats = catalog.stats();
      assertEquals(3, stats.schemas(), "u1, u2 and u2's nested address");
    }
  }

  @Test
  void aColdStartOfTheCacheKeepsTheCatalogue() {
    Path dir = tmp.resolve("rows");
    CacheConfig.Builder b = CacheConfig.builder(dir).flashBytes(8 * 1024 * 1024).segmentBytes(1024 * 1024)
        .writeBufferBytes(256 * 1024).jmx(false);
    long id;
    try (HybridCache cache = HybridCache.open(b.build());
         SchemaCatalog catalog = SchemaCatalog.open(dir.resolve(SchemaCatalog.SUBDIRECTORY))) {
      id = catalog.idFor(List.of("a", "b"));
      cache.put(utf8("k"), utf8("v"));
    }
    try (HybridCache cache = HybridCache.open(b.flashBytes(16 * 1024 * 1024).build())) { // another layout: wiped
      assertEquals(null, cache.get(utf8("k")));
    }
    try (SchemaCatalog catalog = SchemaCatalog.open(dir.resolve(SchemaCatalog.SUBDIRECTORY))) {
      assertEquals(List.of("a", "b"), catalog.schema(id).columns());
    }
  }
}
