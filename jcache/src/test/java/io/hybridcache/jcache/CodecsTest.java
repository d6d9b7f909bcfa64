package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.Codec;
import java.io.ObjectInputFilter;
import java.io.Serializable;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Codecs: the fast ones round-trip; Java serialization decodes only through its filter. */
class CodecsTest {
  @TempDir Path dir;

  /** A class outside java.*, for allow-lists. */
  static final class Point implements Serializable {
    private static final long serialVersionUID = 1L;
    final int x;

    Point(int x) {
      this.x = x;
    }
  }

  @Test
  void fastCodecsRoundTripAndCopy() {
    assertEquals(Long.MIN_VALUE, Codecs.longs().decode(Codecs.longs().encode(Long.MIN_VALUE)));
    assertEquals(-7, Codecs.integers().decode(Codecs.integers().encode(-7)));
    assertEquals("zß", Codecs.string().decode(Codecs.string().encode("zß")));
    byte[] b = {1, 2};
    assertNotSame(b, Codecs.bytes().encode(b));
  }

  @Test
  void theDefaultFilterRefusesAGraphDeeperThanItsLimit() {
    Codec<Object> codec = Codecs.serializing(getClass().getClassLoader(),
        ObjectInputFilter.Config.createFilter(Codecs.DEFAULT_SERIAL_FILTER));
    List<Object> shallow = nested(10);
    assertEquals(shallow, codec.decode(codec.encode(shallow)));
    byte[] deep = codec.encode(nested(200));
    assertThrows(RuntimeException.class, () -> codec.decode(deep));
  }

  private static List<Object> nested(int depth) {
    List<Object> l = new ArrayList<>();
    for (int i = 0; i < depth; i++) {
      List<Object> outer = new ArrayList<>();
      outer.add(l);
      l = outer;
    }
    return l;
  }

  @Test
  void anAllowListSetByPropertyRefusesOtherClasses() {
    Properties p = TestManagers.small(dir);
    p.setProperty(ProviderProperties.SERIAL_FILTER, "java.lang.*;java.util.*;!*");
    HybridCachingProvider provider = new HybridCachingProvider();
    try (CacheManager manager = provider.getCacheManager(URI.create("test:filter"), getClass().getClassLoader(), p)) {
      Cache<String, Object> c = manager.createCache("objects", new MutableConfiguration<String, Object>());
      c.put("list", new ArrayList<>(List.of("a")));
      assertEquals(List.of("a"), c.get("list"));
      c.put("point", new Point(3));
      CacheException e = assertThrows(CacheException.class, () -> c.get("point"));
      assertTrue(e.getMessage().contains("serialization filter"), e.getMessage());
    }
  }

  @Test
  void aBadPropertyIsNamedWithItsValue() {
    Properties p = TestManagers.small(dir);
    p.setProperty(ProviderProperties.DRAM_BYTES, "lots");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new HybridCachingProvider().getCacheManager(URI.create("test:bad"), getClass().getClassLoader(), p));
    assertTrue(e.getMessage().contains("dram-bytes") && e.getMessage().contains("lots"), e.getMessage());
  }
}
