package io.hybridcache.core.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Issue 38: the write buffers a configuration may make in all ({@link CacheConfig#writeBuffersTotal()}) are
 * derived from its DRAM tier unless set: a sixteenth of it, at least one class's buffers, at most four
 * classes'. config.md, faults.md and the README quote these figures.
 */
class WriteBuffersTotalTest {
  private static final long MIB = CacheConfig.MIB;
  private final Path dir = Path.of("target", "never-opened");

  private static CacheConfig.Builder builder(Path dir) {
    return CacheConfig.builder(dir).flashBytes(512 * MIB);
  }

  @Test
  void theDefaultConfigurationHoldsFourMebibytesOfWriteBuffersBesideItsSixtyFourMebibyteDramTier() {
    CacheConfig c = builder(dir).build();
    assertEquals(64 * MIB, c.dramBytes());
    assertEquals(4, c.writeBuffersTotal(), "write buffers of 1 MiB in all at the defaults");
    assertTrue(c.writeBuffersTotal() * (long) c.writeBufferBytes() <= c.dramBytes() / 16);
  }

  @Test
  void theTotalFollowsTheDramTierBetweenOneClassAndFourClassesWorth() {
    assertEquals(4, builder(dir).dramBytes(16 * MIB).build().writeBuffersTotal(), "one class's worth at least");
    assertEquals(4, builder(dir).dramBytes(32 * MIB).build().writeBuffersTotal());
    assertEquals(5, builder(dir).dramBytes(80 * MIB).build().writeBuffersTotal(), "a sixteenth of 80 MiB");
    assertEquals(8, builder(dir).dramBytes(128 * MIB).build().writeBuffersTotal());
    assertEquals(16, builder(dir).dramBytes(256 * MIB).build().writeBuffersTotal());
    assertEquals(16, builder(dir).dramBytes(64L * 1024 * MIB).build().writeBuffersTotal(), "four classes' at most");
    assertEquals(32, builder(dir).dramBytes(64L * 1024 * MIB).writeBuffers(8).build().writeBuffersTotal());
    assertEquals(16, builder(dir).dramBytes(4 * MIB).writeBuffers(16).build().writeBuffersTotal());
    assertEquals(8, builder(dir).dramBytes(32 * MIB).writeBufferBytes(256 * 1024).build().writeBuffersTotal(),
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
