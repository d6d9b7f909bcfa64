package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.device.Device;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The shared read buffers (issue 25, item 11): bounded, reused, waited for, dropped at close. */
class ReadBuffersTest {
  private static final int KIB = 1024;

  @Test
  void atMostCountBuffersAreMadeAndTheNextReaderWaitsForOneGivenBack() throws Exception {
    ReadBuffers pool = new ReadBuffers(3, 16 * KIB);
    List<ByteBuffer> held = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ByteBuffer b = pool.acquire(8 * KIB);
      assertTrue(b.isDirect());
      assertEquals(0, b.alignmentOffset(0, Device.ALIGNMENT), "aligned for O_DIRECT");
      assertEquals(8 * KIB, b.remaining());
      held.add(b);
    }
    assertEquals(ReadBuffers.boundBytes(3, 16 * KIB), pool.retainedBytes(), "three made: the bound");
    CompletableFuture<ByteBuffer> fourth = CompletableFuture.supplyAsync(() -> pool.acquire(4 * KIB));
    assertFalse(completesWithin(fourth, 200), "all three in use: the fourth reader waits");
    pool.release(held.get(1));
    assertSame(held.get(1), fourth.get(10, TimeUnit.SECONDS), "it gets the one given back");
    assertEquals(ReadBuffers.boundBytes(3, 16 * KIB), pool.retainedBytes(), "none made beyond the bound");
  }

  private static boolean completesWithin(CompletableFuture<?> f, long millis) {
    try {
      f.get(millis, TimeUnit.MILLISECONDS);
      return true;
    } catch (java.util.concurrent.TimeoutException e) {
      return false;
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aThreadReadingAgainReusesABufferInsteadOfMakingOne() {
    ReadBuffers pool = new ReadBuffers(8, 16 * KIB);
    ByteBuffer first = pool.acquire(4 * KIB);
    pool.release(first);
    for (int i = 0; i < 100; i++) {
      pool.release(pool.acquire(12 * KIB));
    }
    assertEquals(ReadBuffers.boundBytes(1, 16 * KIB), pool.retainedBytes(), "one buffer for one reader at a time");
  }

  @Test
  void largeReadsUseTheirFewBuffersAndAnOversizeReadOneOfItsOwn() {
    int maxEntry = 256 * KIB;
    ReadBuffers pool = new ReadBuffers(64, maxEntry);
    ByteBuffer small = pool.acquire(ReadBuffers.SMALL_BYTES);
    assertEquals(ReadBuffers.SMALL_BYTES, small.capacity());
    ByteBuffer large = pool.acquire(ReadBuffers.maxReadBytes(maxEntry));
    assertEquals(ReadBuffers.maxReadBytes(maxEntry), large.capacity());
    ByteBuffer oversize = pool.acquire(2 * maxEntry); // an entry of an earlier, larger writeBufferBytes
    assertEquals(2 * maxEntry, oversize.remaining());
    pool.release(oversize);
    pool.release(large);
    pool.release(small);
    long kept = pool.retainedBytes();
    assertEquals(ReadBuffers.SMALL_BYTES + ReadBuffers.maxReadBytes(maxEntry) + 2L * Device.ALIGNMENT, kept,
        "the oversize buffer is not kept");
    List<ByteBuffer> larges = new ArrayList<>();
    for (int i = 0; i < ReadBuffers.LARGE_BUFFERS; i++) {
      larges.add(pool.acquire(100 * KIB)); // every large permit, the oversize one given back too
    }
    assertNotSame(larges.get(0), larges.get(1));
    larges.forEach(pool::release);
    assertEquals(ReadBuffers.boundBytes(64, maxEntry) - 63L * (ReadBuffers.SMALL_BYTES + Device.ALIGNMENT),
        pool.retainedBytes(), "one small buffer and the large ones");
  }

  @Test
  void closeDropsTheBuffersAndThoseGivenBackLater() {
    ReadBuffers pool = new ReadBuffers(4, 16 * KIB);
    ByteBuffer a = pool.acquire(4 * KIB);
    ByteBuffer b = pool.acquire(4 * KIB);
    pool.release(a);
    pool.close();
    assertEquals(ReadBuffers.boundBytes(1, 16 * KIB), pool.retainedBytes(), "only the one still in use");
    pool.release(b);
    assertEquals(0, pool.retainedBytes(), "the cache keeps none after close");
  }
}
