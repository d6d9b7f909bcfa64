package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.hybridcache.core.api.CacheConfig;
import org.junit.jupiter.api.Test;

/** The API states the engine's format limits as constants of its own: they must be the engine's. */
class ApiConstantsTest {

  @Test
  void theApiLimitsAreTheFormatsLimits() {
    assertEquals(IndexEntry.MAX_ENTRY_BYTES, CacheConfig.MAX_ENTRY_BYTES);
    assertEquals(IndexEntry.MAX_SEGMENT_BYTES, CacheConfig.MAX_SEGMENT_BYTES);
    assertEquals(EntryFormat.HEADER_BYTES, CacheConfig.FLASH_ENTRY_HEADER_BYTES);
    assertEquals(EntryFormat.entryBytes(7, 9), CacheConfig.FLASH_ENTRY_HEADER_BYTES + 7 + 9);
  }
}
