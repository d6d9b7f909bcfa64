package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.EvictionHook;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.api.VictimPolicy;
import io.hybridcache.core.device.DeviceCounters;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The eviction hook (issue 37 item 4): reclaim tells it of each entry it drops by the key bytes of the victim's
 * summary, so counting evictions costs no device read: an engine with the hook reads exactly what one without
 * it reads, where a removal listener (which gets values) reads each dropped entry.
 */
class EvictionHookTest {
  @TempDir Path dir;

  private static CacheConfig.Builder config(Path dir) {
    return TestCaches.small(dir, IndexType.HEAP).victimPolicy(VictimPolicy.fifo()).reinsertAllBelowLiveRatio(0)
        .evictionKeyBytes(8);
  }

  /** 4 MB through 1 MiB of DRAM and 1 MiB of flash: reclaim drops the oldest; returns the device counters. */
  private static DeviceCounters.Snapshot fill(Engine c) {
    for (int i = 0; i < 4000; i++) {
      c.put(key(i), value(i, 1, 1000));
    }
    c.flush();
    return c.deviceCounters();
  }

  @Test
  void reclaimTellsTheHookWithoutReadingTheDevice() {
    ConcurrentLinkedQueue<byte[]> told = new ConcurrentLinkedQueue<>();
    DeviceCounters.Snapshot withHook;
    CacheStats stats;
    try (Engine c = TestCaches.open(config(dir.resolve("hook")).evictionHook(k -> told.add(k.clone())).build())) {
      withHook = fill(c);
      stats = c.stats();
    }
    DeviceCounters.Snapshot without;
    try (Engine c = TestCaches.open(config(dir.resolve("none")).build())) {
      without = fill(c);
    }
    DeviceCounters.Snapshot withListener;
    AtomicLong heard = new AtomicLong();
    try (Engine c = TestCaches.open(config(dir.resolve("listener")).removalExecutor(Runnable::run)
        .removalListener((k, v, cause) -> heard.incrementAndGet()).build())) {
      withListener = fill(c);
    }
    assertTrue(stats.reclaimEvicted() > 1000, "reclaim evicted: " + stats);
    assertEquals(without.reads(), withHook.reads(), "device reads with the hook " + withHook + ", without " + without);
    assertEquals(without.bytesRead(), withHook.bytesRead());
    assertTrue(withListener.reads() > without.reads() + 1000,
        "a removal listener reads each dropped entry: " + withListener + " against " + without);
    assertTrue(told.size() >= stats.reclaimEvicted(), told.size() + " told, " + stats.reclaimEvicted() + " reclaimed");
    for (byte[] k : told) { // each is an evicted key's first 8 bytes (the whole key from DRAM)
      byte[] prefix = Arrays.copyOf(k, 8);
      boolean some = false;
      for (int i = 0; i < 4000 && !some; i++) {
        some = Arrays.equals(prefix, Arrays.copyOf(key(i), 8));
      }
      assertTrue(some, "a key prefix of a written key: " + Arrays.toString(k));
    }
  }

  /**
   * An entry too large for flash (20 KB over 16 KiB write buffers) lives in DRAM only; when DRAM evicts it, flash
   * refuses it and the hook is told {@code refused} instead of {@code evicted}; every refusal the engine counts is
   * told so. (Each filler key is read twice so that DRAM's W-TinyLFU admits it over the unread large entry.)
   */
  @Test
  void aDramEvictionFlashDoesNotTakeIsToldAsRefused() {
    ConcurrentLinkedQueue<String> evicted = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<String> refused = new ConcurrentLinkedQueue<>();
    EvictionHook hook = new EvictionHook() {
      @Override
      public void evicted(byte[] key) {
        evicted.add(new String(key, java.nio.charset.StandardCharsets.UTF_8));
      }

      @Override
      public void refused(byte[] key) {
        refused.add(new String(key, java.nio.charset.StandardCharsets.UTF_8));
      }
    };
    try (Engine c = TestCaches.open(config(dir).evictionHook(hook).build())) {
      c.put(key(-1), new byte[20_000]);
      for (int i = 0; i < 3000 && refused.isEmpty(); i++) {
        c.put(key(i), value(i, 1, 1000));
        c.get(key(i));
        c.get(key(i));
      }
      CacheStats s = c.stats();
      assertTrue(refused.contains("key--1"), "refused: " + refused);
      assertTrue(!evicted.contains("key--1"), "told evicted too");
      assertEquals(s.admissionRejected() + s.queueRejected() + s.tooLargeRejected() + s.degradedRejected()
          + s.indexFullRejected(), refused.size(), "refusals counted against told");
    }
  }

  /** A summary with key bytes decodes them; one of the earlier layout (byte 9 zero) still decodes, without. */
  @Test
  void summariesKeepKeyBytesAndTheEarlierLayoutStillReads() {
    long[] hashes = {11, 22, 33};
    long[] offsets = {4096, 8192, 12288};
    byte[][] keys = {key(1), "ab".getBytes(java.nio.charset.StandardCharsets.UTF_8), key(1234)};
    long[] packed = new long[3];
    for (int i = 0; i < 3; i++) {
      packed[i] = SegmentSummary.keyPrefix(keys[i], 8);
    }
    java.nio.ByteBuffer withKeys = SegmentSummary.encode(7, hashes, offsets, packed, 8, 3);
    assertEquals(3, SegmentSummary.count(withKeys, 7));
    assertEquals(8, SegmentSummary.keyBytes(withKeys));
    long[] h = new long[3];
    long[] o = new long[3];
    long[] k = new long[3];
    assertTrue(SegmentSummary.decode(withKeys, 7, 3, h, o, k));
    for (int i = 0; i < 3; i++) {
      assertEquals(hashes[i], h[i]);
      assertEquals(offsets[i], o[i]);
      assertTrue(Arrays.equals(Arrays.copyOf(keys[i], 8), SegmentSummary.keyPrefixBytes(k[i], 8)), "key " + i);
    }
    java.nio.ByteBuffer earlier = SegmentSummary.encode(7, hashes, offsets, 3);
    assertEquals(0, SegmentSummary.keyBytes(earlier));
    assertTrue(SegmentSummary.decode(earlier, 7, 3, h, o, k));
    assertEquals(offsets[2], o[2]);
    withKeys.put(withKeys.limit() - SegmentSummary.FOOTER_BYTES + 9, (byte) 0); // a layout byte changed: CRC fails
    assertTrue(!SegmentSummary.decode(withKeys, 7, 3, h, o, k));
  }
}
