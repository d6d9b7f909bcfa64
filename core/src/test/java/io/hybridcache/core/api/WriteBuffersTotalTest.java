package io.hybridcache.core.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Issue 38: the write buffers a configuration may make in all ({@link CacheConfig#writeBuffersTotal()}) are
 * derived from its DRAM tier unless set: a sixteenth of it in whole buffers, at least two classes' buffers
 * (FRESH and SURVIVOR, which every cache writes), at most four classes'. config.md, faults.md and the README
 * quote these figures.
 */
class WriteBuffersTotalTest {
  private static final long MIB = CacheConfig.MIB;
  private final Path dir = Path.of("target", "never-opened");

  private static CacheConfig.Builder builder(Path dir) {
    return CacheConfig.builder(dir).flashBytes(512 * MIB);
  }

  @Test
  void theDefaultConfigurationHoldsEightMebibytesOfWriteBuffersBesideItsSixtyFourMebibyteDramTier() {
    CacheConfig c = builder(dir).build();
    assertEquals(64 * MIB, c.dramBytes());
    assertEquals(4, c.writeBuffers());
    assertEquals(8, c.writeBuffersTotal(), "two classes' four buffers of 1 MiB at the defaults, not sixteen");
  }

  @Test
  void theTotalFollowsTheDramTierBetweenTwoClassesAndFourClassesWorth() {
    assertEquals(8, builder(dir).dramBytes(16 * MIB).build().writeBuffersTotal(), "two classes' worth at least");
    assertEquals(8, builder(dir).dramBytes(128 * MIB).build().writeBuffersTotal());
    assertEquals(10, builder(dir).dramBytes(160 * MIB).build().writeBuffersTotal(), "a sixteenth of 160 MiB");
    assertEquals(16, builder(dir).dramBytes(256 * MIB).build().writeBuffersTotal());
    assertEquals(16, builder(dir).dramBytes(64L * 1024 * MIB).build().writeBuffersTotal(), "four classes' at most");
    assertEquals(32, builder(dir).dramBytes(64L * 1024 * MIB).writeBuffers(8).build().writeBuffersTotal());
    assertEquals(32, builder(dir).dramBytes(4 * MIB).writeBuffers(16).build().writeBuffersTotal());
    assertEquals(4, builder(dir).dramBytes(4 * MIB).writeBuffers(2).build().writeBuffersTotal());
    assertEquals(16, builder(dir).dramBytes(64 * MIB).writeBufferBytes(256 * 1024).build().writeBuffersTotal(),
        "smaller buffers: more of them in the same sixteenth");
  }

  @Test
  void aSetTotalIsKeptAndADerivedOneFollowsTheDramTierThroughToBuilder() {
    assertEquals(12, builder(dir).writeBuffersTotal(12).build().writeBuffersTotal());
    CacheConfig derived = builder(dir).build();
    assertEquals(16, derived.toBuilder().dramBytes(1024 * MIB).build().writeBuffersTotal());
    CacheConfig set = builder(dir).writeBuffersTotal(6).build();
    assertEquals(6, set.toBuilder().dramBytes(1024 * MIB).build().writeBuffersTotal());
  }
}
