package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.Durability;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.device.FaultInjectingDevice;
import io.hybridcache.core.device.FileDevice;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Warm restart of the compact index after a crash, in one JVM: a "kill" is a copy of the cache directory
 * taken while the cache is open (what a kill -9 leaves: every write the process made, memory-mapped ones
 * included, is in the page cache, which a copy reads), opened as a new cache. A power loss is the same
 * copy opened with a faked boot id (the kernel lost what was not synced). {@link CrashTest} does it with
 * real kills of a child JVM.
 */
class WarmRestartTest {
  private static final int KEYS = 300;
  @TempDir Path dir;
  private final Supplier<String> realBootId = BootId.source;

  @AfterEach
  void restoreBootId() {
    BootId.source = realBootId;
  }

  private CacheConfig config(Path d, IndexType index, Durability durability) {
    return TestCaches.small(d, index).durability(durability).dramBytes(8 * CacheConfig.MIB)
        .flashBytes(64L * TestCaches.SEGMENT).build();
  }

  private static byte[] v(int k, long version) {
    return TestCaches.value(k, version, 500);
  }

  /** Version 1 of every key, written to flash (DRAM emptied). */
  private static void putV1OnFlash(Engine cache) {
    for (int k = 0; k < KEYS; k++) {
      cache.put(TestCaches.key(k), v(k, 1));
    }
    cache.writeBackAndDropDram();
  }

  /** What a kill -9 leaves: the directory as the page cache holds it now (the lock file is the process's). */
  private Path killCopy(Path from, String name) throws IOException {
    Path to = dir.resolve(name);
    try (Stream<Path> all = Files.walk(from)) {
      for (Path p : all.toList()) {
        Path q = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(q);
        } else if (!p.getFileName().toString().equals("LOCK")) {
          try {
            Files.copy(p, q);
          } catch (java.nio.file.NoSuchFileException gone) {
            // a checkpoint's temporary file renamed meanwhile: a kill would not have seen it either
          }
        }
      }
    }
    return to;
  }

  /**
   * v1 reaches flash (and the checkpoint taken at the clean reopen), then put v2 (DRAM only) or remove,
   * then a kill: v1 never comes back; the keys left alone are served warm.
   */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void v1OnFlashThenV2InDramOrRemoveThenKillNeverServesV1(boolean v1InCheckpoint) throws Exception {
    Path d = dir.resolve("cache");
    CacheConfig c = config(d, IndexType.HEAP, Durability.PROCESS);
    Engine cache = TestCaches.open(c);
    putV1OnFlash(cache);
    if (v1InCheckpoint) {
      cache.close();
      cache = TestCaches.open(c); // the open writes a checkpoint holding every v1
    }
    try {
      for (int k = 0; k < KEYS; k++) {
        if (k % 3 == 0) {
          cache.put(TestCaches.key(k), v(k, 2)); // stays in DRAM (8 MiB)
        } else if (k % 3 == 1) {
          cache.remove(TestCaches.key(k));
        }
      }
      assertEquals(0, cache.stats().queueRejected());
      Path killed = killCopy(d, "killed");
      try (Engine after = TestCaches.open(config(killed, IndexType.HEAP, Durability.PROCESS))) {
        int warm = 0;
        for (int k = 0; k < KEYS; k++) {
          byte[] got = after.get(TestCaches.key(k));
          if (k % 3 == 2) {
            warm += got != null ? 1 : 0;
            if (got != null) {
              assertArrayEquals(v(k, 1), got);
            }
          } else {
            assertNull(got, "key " + k + ": v1 came back after " + (k % 3 == 0 ? "put v2" : "remove"));
          }
        }
        assertEquals(KEYS / 3, warm, "every untouched flash entry is served after the kill");
      }
    } finally {
      cache.close();
    }
  }

  /** Entries written after the last checkpoint come back from the segments (replay), newest version first. */
  @Test
  void entriesWrittenAfterTheCheckpointAreReplayed() throws Exception {
    Path d = dir.resolve("cache");
    try (Engine cache = TestCaches.open(config(d, IndexType.HEAP, Durability.PROCESS))) {
      for (int round = 1; round <= 3; round++) {
        for (int k = 0; k < KEYS; k++) {
          cache.put(TestCaches.key(k), v(k, round));
        }
        cache.writeBackAndDropDram();
      }
      Path killed = killCopy(d, "killed");
      try (Engine after = TestCaches.open(config(killed, IndexType.HEAP, Durability.PROCESS))) {
        for (int k = 0; k < KEYS; k++) {
          assertArrayEquals(v(k, 3), after.get(TestCaches.key(k)), "key " + k);
        }
        assertEquals(0, after.stats().checkpointFailures());
      }
    }
  }

  /** Several kills in a row, each recovering the previous one's copy with no clean close. */
  @Test
  void killsInARowKeepTheLastVersions() throws Exception {
    Path d = dir.resolve("k0");
    for (int round = 1; round <= 4; round++) {
      try (Engine cache = TestCaches.open(config(d, IndexType.HEAP, Durability.PROCESS))) {
        for (int k = 0; k < KEYS; k++) {
          byte[] got = cache.get(TestCaches.key(k));
          if (round > 1 && k % 2 == 0) {
            assertArrayEquals(v(k, round - 1), got, "round " + round + " key " + k);
          } else if (round > 1) {
            assertNull(got, "round " + round + " key " + k + ": removed before the kill");
          }
          cache.put(TestCaches.key(k), v(k, round));
        }
        cache.writeBackAndDropDram();
        for (int k = 1; k < KEYS; k += 2) {
          cache.remove(TestCaches.key(k));
        }
        Path next = killCopy(d, "k" + round);
        d = next;
      }
    }
  }

  /** A power loss (another boot) starts cold for both index types: never an old value. */
  @Test
  void anUncleanStopInAnotherBootStartsCold() throws Exception {
    anUncleanStopInAnotherBootStartsCold(IndexType.HEAP);
  }

  @Test
  @NeedsChronicle
  void anUncleanStopInAnotherBootStartsColdOnChronicle() throws Exception {
    anUncleanStopInAnotherBootStartsCold(IndexType.CHRONICLE);
  }

  private void anUncleanStopInAnotherBootStartsCold(IndexType index) throws Exception {
    Path d = dir.resolve("cache");
    try (Engine cache = TestCaches.open(config(d, index, Durability.PROCESS))) {
      putV1OnFlash(cache);
      Path killed = killCopy(d, "killed");
      Path rebooted = killCopy(d, "rebooted");
      try (Engine after = TestCaches.open(config(killed, index, Durability.PROCESS))) {
        assertTrue(after.stats().flashEntries() > 0, "same boot: warm");
      }
      BootId.source = () -> "another-boot";
      try (Engine after = TestCaches.open(config(rebooted, index, Durability.PROCESS))) {
        assertEquals(0, after.stats().flashEntries(), "another boot: cold");
        for (int k = 0; k < KEYS; k++) {
          assertNull(after.get(TestCaches.key(k)));
        }
      }
    }
  }

  /** With POWER the journal is forced: a restart in another boot stays warm, and v1 still never returns. */
  @Test
  void powerDurabilityStaysWarmAcrossABootAndNeverServesV1() throws Exception {
    Path d = dir.resolve("cache");
    try (Engine cache = TestCaches.open(config(d, IndexType.HEAP, Durability.POWER))) {
      putV1OnFlash(cache);
      for (int k = 0; k < KEYS; k += 2) {
        cache.put(TestCaches.key(k), v(k, 2));
      }
      Path rebooted = killCopy(d, "rebooted");
      BootId.source = () -> "another-boot";
      try (Engine after = TestCaches.open(config(rebooted, IndexType.HEAP, Durability.POWER))) {
        for (int k = 0; k < KEYS; k++) {
          byte[] got = after.get(TestCaches.key(k));
          if (k % 2 == 0) {
            assertNull(got, "key " + k + ": v1 came back after put v2");
          } else {
            assertArrayEquals(v(k, 1), got, "key " + k);
          }
        }
      }
    }
  }

  /**
   * Issue 25 item 2: two keys with one compact-index identity (stripe and tag). k2's entry is written
   * after the checkpoint began; k1's entry takes the shared slot; remove(k1) journals k1; put(k2, v3)
   * finds no slot. After a kill, k2's older entry (in a segment the replay reads) must not come back.
   */
  @Test
  void keysSharingAnIndexIdentityNeverBringBackAnOlderVersion() throws Exception {
    Path d = dir.resolve("cache");
    try (Engine cache = TestCaches.open(config(d, IndexType.HEAP, Durability.PROCESS))) {
      int[] pair = sameIdentity((HeapIndex) cache.flashTier().index());
      byte[] k1 = TestCaches.key(pair[0]);
      byte[] k2 = TestCaches.key(pair[1]);
      HeapIndex index = (HeapIndex) cache.flashTier().index();
      cache.put(k2, v(pair[1], 2));
      cache.writeBackAndDropDram(); // k2 v2 on flash, after the open's checkpoint began
      assertArrayEquals(v(pair[1], 2), cache.get(k2));
      cache.put(k1, v(pair[0], 1));
      cache.writeBackAndDropDram(); // k1's entry takes the shared slot
      assertEquals(index.identity(new ByteKey(k2).hash64()), index.identity(new ByteKey(k1).hash64()));
      assertNull(cache.get(k2), "k1 holds the slot");
      cache.remove(k1);
      cache.put(k2, v(pair[1], 3)); // acknowledged; stays in DRAM
      Path killed = killCopy(d, "killed");
      try (Engine after = TestCaches.open(config(killed, IndexType.HEAP, Durability.PROCESS))) {
        byte[] got = after.get(k2);
        assertTrue(got == null || TestCaches.versionOf(pair[1], got) == 3,
            "k2 came back as version " + (got == null ? -1 : TestCaches.versionOf(pair[1], got))
                + " after put v3 was acknowledged");
        assertNull(after.get(k1), "k1 was removed before the kill");
      }
    }
  }

  /**
   * Two key numbers whose keys ({@link TestCaches#key}) have the same identity in {@code index}: found
   * by brute force among 4 M keys (identities have about 40 bits; several pairs are expected).
   */
  private static int[] sameIdentity(HeapIndex index) {
    int n = 1 << 22;
    int stripeBits = Integer.numberOfTrailingZeros(index.stripeCount());
    long[] packed = new long[n]; // identity (tag and stripe, at most 40 bits), then the key number (22 bits)
    for (int i = 0; i < n; i++) {
      long mixed = HeapIndex.mix(new ByteKey(TestCaches.key(i)).hash64());
      long identity = ((HeapIndex.tagOf(mixed) & 0xFFFF_FFFFL) << stripeBits) | (mixed & (index.stripeCount() - 1));
      packed[i] = identity << 22 | i;
    }
    java.util.Arrays.sort(packed);
    for (int i = 1; i < n; i++) {
      if (packed[i] >>> 22 == packed[i - 1] >>> 22) {
        return new int[] {(int) (packed[i - 1] & (n - 1)), (int) (packed[i] & (n - 1))};
      }
    }
    throw new AssertionError("no two of " + n + " keys share an identity");
  }

  /**
   * Issue 25 item 4: an OS crash that loses checkpoint renames (the directory was not synced) leaves the
   * previous {@code index.ckpt} beside a journal whose half of that checkpoint's epoch was recycled by the
   * later checkpoints. Its invalidations are gone: the removed keys must not come back.
   */
  @Test
  void aPreviousCheckpointBesideARecycledJournalNeverServesRemovedKeys() throws Exception {
    Path d = dir.resolve("cache");
    try (Engine cache = TestCaches.open(config(d, IndexType.HEAP, Durability.POWER))) {
      putV1OnFlash(cache); // v1 on flash, after the open's checkpoint began
      Path previous = dir.resolve("previous.ckpt");
      Files.copy(d.resolve(OwnedFiles.CHECKPOINT), previous);
      for (int k = 0; k < KEYS; k += 2) {
        assertTrue(cache.remove(TestCaches.key(k))); // journaled in the previous checkpoint's epoch
      }
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
      assertTrue(cache.flashTier().checkpointNow(deadline), "the next checkpoint");
      assertTrue(cache.flashTier().checkpointNow(deadline), "and the one that recycles the older half");
      Path rebooted = killCopy(d, "rebooted");
      Files.copy(previous, rebooted.resolve(OwnedFiles.CHECKPOINT), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      BootId.source = () -> "another-boot";
      try (Engine after = TestCaches.open(config(rebooted, IndexType.HEAP, Durability.POWER))) {
        for (int k = 0; k < KEYS; k++) {
          byte[] got = after.get(TestCaches.key(k));
          if (k % 2 == 0) {
            assertNull(got, "key " + k + ": removed before the crash, came back");
          } else if (got != null) {
            assertArrayEquals(v(k, 1), got, "key " + k);
          }
        }
      }
    }
  }

  /**
   * Issue 25 item 3: entries written between a {@code clear()}'s clear record and the maintenance thread's
   * release of the segments (to segments sealed meanwhile) are dropped by that clear; their keys removed
   * after it returned must not come back after a kill, even where a discard leaves the bytes in place.
   */
  @Test
  void entriesWrittenDuringAClearNeverComeBackAfterAKill() throws Exception {
    Path d = dir.resolve("cache");
    // 16 MiB of flash: no checkpoint is due (2 MiB written) before the kill, so the segments are replayed
    CacheConfig c = TestCaches.small(d, IndexType.HEAP).durability(Durability.PROCESS)
        .flashBytes(256L * TestCaches.SEGMENT).build();
    AtomicReference<FaultInjectingDevice> device = new AtomicReference<>();
    try (Engine cache = Engine.open(c, (p, n, b, direct) -> {
      device.set(new FaultInjectingDevice(FileDevice.open(p, n, b, direct)).ignoreDiscards());
      return device.get();
    })) {
      CountDownLatch dropping = new CountDownLatch(1);
      CountDownLatch written = new CountDownLatch(1);
      cache.flashTier().beforeDropAll(() -> {
        dropping.countDown();
        try {
          written.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      Thread clearing = new Thread(cache::clear, "clear");
      clearing.start();
      assertTrue(dropping.await(60, TimeUnit.SECONDS), "the maintenance thread handles the clear");
      int keys = 3_000; // 1.5 MB through 1 MiB of DRAM: evictions seal segments on this thread
      for (int k = 0; k < keys; k++) {
        cache.put(TestCaches.key(k), v(k, 1));
      }
      assertTrue(cache.stats().sealedSegments() > 0, cache.stats().toString());
      written.countDown();
      clearing.join(TimeUnit.SECONDS.toMillis(60));
      assertFalse(clearing.isAlive(), "clear() returned");
      for (int k = 0; k < keys; k++) {
        cache.remove(TestCaches.key(k));
      }
      cache.awaitFlashWrites();
      Path killed = killCopy(d, "killed");
      try (Engine after = TestCaches.open(TestCaches.small(killed, IndexType.HEAP).durability(Durability.PROCESS)
          .flashBytes(256L * TestCaches.SEGMENT).build())) {
        for (int k = 0; k < keys; k++) {
          assertNull(after.get(TestCaches.key(k)), "key " + k + ": removed before the kill, came back");
        }
      }
    }
  }

  /**
   * A read that fails verification unlinks the entry (a miss), while the bytes on the device may be intact
   * (a flip on the way, in memory or on the bus). The key's remove then finds no slot to journal: after a
   * kill the replay must not bring the removed version back.
   */
  @Test
  void aCorruptReadThenARemoveNeverServesTheRemovedVersionAfterAKill() throws Exception {
    Path d = dir.resolve("cache");
    AtomicReference<FaultInjectingDevice> device = new AtomicReference<>();
    try (Engine cache = Engine.open(config(d, IndexType.HEAP, Durability.PROCESS), (p, n, b, direct) -> {
      device.set(new FaultInjectingDevice(FileDevice.open(p, n, b, direct)));
      return device.get();
    })) {
      putV1OnFlash(cache); // after the open's checkpoint began: replayed after a kill
      device.get().corruptAllReads(); // one bit of each page read: some reads hit their entry's bytes
      java.util.List<Integer> missed = new java.util.ArrayList<>();
      for (int k = 0; k < KEYS; k++) {
        if (cache.get(TestCaches.key(k)) == null) {
          missed.add(k);
        }
      }
      device.get().heal();
      assertTrue(!missed.isEmpty() && missed.size() < KEYS, missed.size() + " corrupt reads of " + KEYS);
      for (int k : missed) {
        cache.remove(TestCaches.key(k)); // finds no slot: the corrupt read unlinked it
      }
      Path killed = killCopy(d, "killed");
      try (Engine after = TestCaches.open(config(killed, IndexType.HEAP, Durability.PROCESS))) {
        for (int k : missed) {
          assertNull(after.get(TestCaches.key(k)), "key " + k + ": removed before the kill, came back");
        }
      }
    }
  }

  /** With NONE a crash starts cold (no checkpoint, no journal); a clean close stays warm. */
  @Test
  void durabilityNoneIsWarmOnlyAfterACleanClose() throws Exception {
    Path d = dir.resolve("cache");
    CacheConfig c = config(d, IndexType.HEAP, Durability.NONE);
    try (Engine cache = TestCaches.open(c)) {
      putV1OnFlash(cache);
      try (Engine after = TestCaches.open(config(killCopy(d, "killed"), IndexType.HEAP, Durability.NONE))) {
        assertEquals(0, after.stats().flashEntries());
      }
    }
    try (Engine cache = TestCaches.open(c)) {
      assertArrayEquals(v(7, 1), cache.get(TestCaches.key(7)));
    }
  }
}
