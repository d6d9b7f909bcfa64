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
    List<Object> deep = nested(200);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> codec.encode(deep),
        "a value that would not read back fails its encode");
    assertTrue(e.getMessage().contains("maxdepth") || e.getMessage().contains("refused"), e.getMessage());
  }

  /** Lists nested {@code depth} deep. */
  static List<Object> nested(int depth) {
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
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.put("point", new Point(3)));
      assertTrue(e.getMessage().contains(Point.class.getName()) && e.getMessage().contains("serial-filter"),
          e.getMessage());
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
