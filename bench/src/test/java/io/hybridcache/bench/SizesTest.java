package io.hybridcache.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class SizesTest {
  @Test
  void parsesBinarySuffixes() {
    assertEquals(4096, Sizes.parse("4096"));
    assertEquals(512 * 1024, Sizes.parse("512k"));
    assertEquals(16L << 20, Sizes.parse("16MiB"));
    assertEquals(16L << 20, Sizes.parse("16m"));
    assertEquals(16L << 20, Sizes.parse("16MB"));
    assertEquals(1L << 30, Sizes.parse("1g"));
    assertEquals("16 MiB", Sizes.format(16L << 20));
    assertEquals("1.5 GiB", Sizes.format(3L << 29));
  }

  @Test
  void rejectsGarbage() {
    assertThrows(IllegalArgumentException.class, () -> Sizes.parse("16 mebibytes"));
    assertThrows(IllegalArgumentException.class, () -> Sizes.parse("-1"));
    assertThrows(IllegalArgumentException.class, () -> Sizes.parse("99999999999t"));
  }
}
