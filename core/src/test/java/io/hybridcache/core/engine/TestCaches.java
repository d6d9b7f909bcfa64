package io.hybridcache.core.engine;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.device.FaultInjectingDevice;
import io.hybridcache.core.device.FileDevice;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;

/** Small configurations and self-describing values for engine tests. */
final class TestCaches {
  static final int SEGMENT = 64 * 1024;

  private TestCaches() {}

  /** 1 MiB DRAM, 16 segments of 64 KiB flash, 16 KiB write buffers: reclaim runs after ~1 MiB. */
  static CacheConfig.Builder small(Path dir, IndexType index) {
    return CacheConfig.builder(dir)
        .dramBytes(CacheConfig.MIB)
        .flashBytes(16L * SEGMENT)
        .segmentBytes(SEGMENT)
        .writeBufferBytes(16 * 1024)
        .indexType(index)
        .expectedEntries(100_000)
        .faultRetryInterval(Duration.ZERO)
        .jmx(false);
  }

  /**
   * {@link #small} with the small-object engine on when {@code smallObjects}: a quarter of the flash, and
   * entries of key + value up to 1,600 bytes (about half of {@link CrashChild}'s 200..3000-byte values).
   */
  static CacheConfig.Builder small(Path dir, IndexType index, boolean smallObjects) {
    CacheConfig.Builder b = small(dir, index);
    return smallObjects ? b.smallObjectShare(0.25).smallObjectMaxBytes(1600) : b;
  }

  static Engine open(CacheConfig c) {
    return Engine.open(c, FileDevice::open);
  }

  /** Opens {@code c} on files behind a {@link FaultInjectingDevice}, which it leaves in {@code device}. */
  static Engine openFaulty(CacheConfig c, AtomicReference<FaultInjectingDevice> device) {
    return Engine.open(c, (d, n, b, direct) -> {
      device.set(new FaultInjectingDevice(FileDevice.open(d, n, b, direct)));
      return device.get();
    });
  }

  /**
   * Opens {@code c} with a {@link FaultInjectingDevice} under the small-object engine alone (left in {@code
   * device}); the log engine's device is plain.
   */
  static Engine openSmallFaulty(CacheConfig c, AtomicReference<FaultInjectingDevice> device) {
    return Engine.open(c, (d, n, b, direct) -> {
      io.hybridcache.core.device.Device dev = FileDevice.open(d, n, b, direct);
      if (!d.getFileName().toString().equals(OwnedFiles.SMALL)) {
        return dev;
      }
      device.set(new FaultInjectingDevice(dev));
      return device.get();
    });
  }

  static byte[] key(int i) {
    return ("key-" + i).getBytes(StandardCharsets.UTF_8);
  }

  /** The i of {@link #key}(i). */
  static int keyIndex(byte[] key) {
    return Integer.parseInt(new String(key, StandardCharsets.UTF_8).substring("key-".length()));
  }

  /**
   * A value that names its key and version and is filled with a pattern derived from both, so a read
   * can tell a value written for this key from anything else.
   */
  static byte[] value(int key, long version, int length) {
    byte[] head = ("v:" + key + ":" + version + ":").getBytes(StandardCharsets.UTF_8);
    byte[] v = Arrays.copyOf(head, Math.max(length, head.length));
    long x = key * 0x9E3779B97F4A7C15L + version;
    for (int i = head.length; i < v.length; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
      v[i] = (byte) x;
    }
    return v;
  }

  /** The version {@code v} was written with for {@code key}, or -1 if {@code v} is no such value. */
  static long versionOf(int key, byte[] v) {
    String s = new String(v, 0, Math.min(v.length, 40), StandardCharsets.ISO_8859_1);
    String prefix = "v:" + key + ":";
    if (!s.startsWith(prefix)) {
      return -1;
    }
    int end = s.indexOf(':', prefix.length());
    if (end < 0) {
      return -1;
    }
    long version;
    try {
      version = Long.parseLong(s.substring(prefix.length(), end));
    } catch (NumberFormatException e) {
      return -1;
    }
    return Arrays.equals(v, value(key, version, v.length)) ? version : -1;
  }
}
