package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.device.FileDevice;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write the index refuses is not stored (issue 25, item 6): write-back keeps the entry dirty in DRAM
 * (so its DRAM eviction offers it to flash again, or reports it gone from both tiers), and goes on with
 * the other dirty entries instead of stopping at the first refusal.
 */
@Timeout(120)
class IndexFullWriteBackTest {
  private static final int VALUE = 400;
  private static final int DIRTY = 20;

  @TempDir Path dir;

  /** The heap index, full while {@link #full}: it refuses a key it does not hold, as a full index does. */
  private static final class FullIndex extends ForwardingIndex {
    volatile boolean full;

    FullIndex(Index delegate) {
      super(delegate);
    }

    @Override
    public long put(long hash, long entry) {
      if (full && get(hash) == IndexEntry.NONE) {
        throw new IndexFullException("injected: index full");
      }
      return super.put(hash, entry);
    }
  }

  /**
   * A DRAM eviction the index refuses is told {@code EVICTED}, never {@code EVICTED_FROM_DRAM}: the entry is
   * in neither tier.
   */
  @Test
  void anEvictionTheIndexRefusesIsToldEvicted() {
    java.util.Queue<byte[]> toldOnFlash = new java.util.concurrent.ConcurrentLinkedQueue<>();
    CacheConfig cfg = TestCaches.small(dir, IndexType.HEAP).removalExecutor(Runnable::run)
        .removalListener((k, v, cause) -> {
          if (cause == io.hybridcache.core.api.RemovalCause.EVICTED_FROM_DRAM) {
            toldOnFlash.add(k);
          }
        }).build();
    FullIndex[] index = new FullIndex[1];
    try (Engine c = Engine.open(cfg, FileDevice::open, IndexEntry.SEGMENT_TAG_BITS,
        i -> index[0] = new FullIndex(i))) {
      index[0].full = true;
      for (int i = 0; i < 4000; i++) {
        c.put(key(i), value(i, 1, VALUE)); // 1.6 MB through 1 MiB of DRAM: evictions the index refuses
      }
      assertTrue(c.stats().indexFullRejected() > 0, c.stats().toString());
      for (byte[] k : toldOnFlash) {
        assertTrue(c.flashTier().address(new ByteKey(k).hash64()) != IndexEntry.NONE,
            "told EVICTED_FROM_DRAM but on flash neither: " + new String(k, java.nio.charset.StandardCharsets.UTF_8));
      }
    }
  }

  @Test
  void aWriteBackTheIndexRefusesStaysDirtyAndTheRestAreStillOffered() {
    CacheConfig cfg = TestCaches.small(dir, IndexType.HEAP).build();
    FullIndex[] index = new FullIndex[1];
    try (Engine c = Engine.open(cfg, FileDevice::open, IndexEntry.SEGMENT_TAG_BITS,
        i -> index[0] = new FullIndex(i))) {
      for (int i = 0; i < 600; i++) {
        c.put(key(i), value(i, 1, VALUE));
      }
      c.writeBackAndDropDram(); // 600 keys on flash
      for (int i = 1000; i < 1000 + DIRTY; i++) {
        c.put(key(i), value(i, 1, VALUE)); // dirty in DRAM only
      }
      index[0].full = true;
      long refusedBefore = c.stats().indexFullRejected();
      c.flush();
      for (int i = 1000; i < 1000 + DIRTY; i++) {
        ByteKey k = new ByteKey(key(i));
        assertEquals(IndexEntry.NONE, c.flashTier().address(k.hash64()), "refused: not on flash");
        assertTrue(c.dramTier().map().get(k).dirty(), "a refused write-back stays dirty: key " + i);
      }
      assertEquals(DIRTY, c.stats().indexFullRejected() - refusedBefore,
          "every dirty entry was offered, not only those before the first refusal");

      index[0].full = false;
      for (int i = 0; i < 20; i++) {
        c.remove(key(i)); // the index shrinks below where it refused: room again
      }
      c.flush();
      for (int i = 1000; i < 1000 + DIRTY; i++) {
        ByteKey k = new ByteKey(key(i));
        assertTrue(c.flashTier().address(k.hash64()) != IndexEntry.NONE, "written back once there is room: " + i);
      }
      c.dramTier().map().clear();
      for (int i = 1000; i < 1000 + DIRTY; i++) {
        assertArrayEquals(value(i, 1, VALUE), c.get(key(i)), "served from flash");
      }
    }
  }
}
