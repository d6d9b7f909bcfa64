package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.IndexType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * After an unclean stop the sequence restarts above every entry on flash (the persisted lease), so
 * {@link FlashKeyScan}'s "written before the scan started" test stays right across restarts.
 */
class SequenceLeaseTest {
  @TempDir Path dir;

  @Test
  void coverRaisesAndPersistsTheLimit() throws Exception {
    SequenceLease lease = SequenceLease.open(dir);
    assertEquals(0, lease.limit());
    lease.cover(5);
    assertTrue(lease.limit() > 5);
    lease.cover(lease.limit() - 1); // below the limit: nothing written
    assertEquals(lease.limit(), SequenceLease.open(dir).limit(), "read back as persisted");
    Files.write(dir.resolve(SequenceLease.FILE), new byte[] {1, 2, 3});
    assertEquals(0, SequenceLease.open(dir).limit(), "a damaged file reads as no lease");
  }

  @Test
  void anUncleanOpenRestartsTheSequenceAboveEveryEntryOnFlash() {
    anUncleanOpenRestartsTheSequenceAboveEveryEntryOnFlash(IndexType.HEAP);
  }

  @Test
  @NeedsChronicle
  void anUncleanOpenRestartsTheSequenceAboveEveryEntryOnFlashOnChronicle() {
    anUncleanOpenRestartsTheSequenceAboveEveryEntryOnFlash(IndexType.CHRONICLE);
  }

  private void anUncleanOpenRestartsTheSequenceAboveEveryEntryOnFlash(IndexType index) {
    int puts = 1500;
    Path d = dir.resolve(index.name());
    try (Engine c = TestCaches.open(TestCaches.small(d, index).build())) {
      for (int i = 0; i < puts; i++) {
        c.put(key(i), value(i, 1, 300));
      }
      c.writeBack();
    }
    assertTrue(d.resolve(FlashOpener.CLEAN_MARKER).toFile().delete(), "next open is unclean");
    try (Engine c = TestCaches.open(TestCaches.small(d, index).build())) {
      assertTrue(c.sequence() >= puts, index + ": sequence " + c.sequence() + " restarted below " + puts);
      if (index == IndexType.CHRONICLE) { // its index survives: keys() must find what it holds
        Set<String> keys = new HashSet<>();
        for (Iterator<byte[]> it = c.keys(); it.hasNext(); ) {
          keys.add(new String(it.next(), java.nio.charset.StandardCharsets.UTF_8));
        }
        assertEquals(c.stats().flashEntries(), keys.size(), "every flash key is returned after recovery");
      }
    }
  }
}
