package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the blind put's own path (issue 37: its key's lock taken directly, no clock or events) must keep: the key's
 * lock, and the exact UTF-8 bytes on both sides of the JDK-encoded length. Written by session 20's review; the first
 * fails if the blind put stops taking the lock (checked by removing it).
 */
class BlindPutTest {
  @TempDir
  Path dir;

  /** A blind put (eternal, no listener) of a key whose entry processor is running waits for it, then wins. */
  @Test
  void aBlindPutWaitsForTheEntryProcessorOfItsKey() throws Exception {
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir)) {
      Cache<String, String> c = m.createCache("c", new MutableConfiguration<String, String>()
          .setTypes(String.class, String.class));
      c.put("k", "0");
      CountDownLatch inside = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Thread processor = new Thread(() -> c.invoke("k", (e, a) -> {
        inside.countDown();
        try {
          release.await();
        } catch (InterruptedException ex) {
          throw new IllegalStateException(ex);
        }
        e.setValue("processor");
        return null;
      }));
      processor.start();
      inside.await();
      Thread put = new Thread(() -> c.put("k", "put"));
      put.start();
      while (put.getState() != Thread.State.WAITING && put.isAlive()) {
        Thread.onSpinWait(); // until the put parks on the key's lock, or (the bug) completes without it
      }
      assertFalse(!put.isAlive(), "the blind put completed while the key's entry processor ran");
      release.countDown();
      processor.join();
      put.join();
      assertEquals("put", c.get("k"), "the put waited for the processor, so it is the last write");
    }
  }

  /** ReservingCodec.utf8 gives String.getBytes(UTF_8) behind the head at and around the 1,024-char switch. */
  @Test
  void utf8MatchesTheJdkAtTheSwitchForAnyString() {
    String[] tails = {"", "a", "\u00e9", "\u20ac", "\ud83d\ude00", "\ud800", "\udc00x"};
    for (int n : new int[] {1022, 1023, 1024, 1025, 1026}) {
      for (String t : tails) {
        String s = ("x".repeat(n) + t).substring(0, Math.max(0, n - 1)) + t;
        byte[] expected = new byte[8 + s.getBytes(StandardCharsets.UTF_8).length];
        System.arraycopy(s.getBytes(StandardCharsets.UTF_8), 0, expected, 8, expected.length - 8);
        assertArrayEquals(expected, ReservingCodec.utf8(s, 8), "length " + s.length() + " tail " + t);
      }
    }
  }
}
