package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The key hash keeps the values earlier versions wrote into checkpoints and journals (zero-allocation-hashing's
 * {@code xx3()}, which is the XXH3-64 reference with seed 0), and hashes a key inside a direct buffer, a heap
 * buffer or an array alike. This test runs without JVM flags, as users run: a hash that needed JDK internals
 * would throw here.
 */
class KeyHashTest {
  private static final String LONG = "0123456789abcdef".repeat(16);

  @Test
  void matchesTheReferenceVectorsAndTheEarlierHashes() {
    // XXH3_64bits(input, seed 0); "" and "a" are the reference's own vectors, the rest were printed by
    // zero-allocation-hashing 0.16's LongHashFunction.xx3() (the hash of every earlier release)
    assertEquals(0x2d06800538d394c2L, KeyHash.of(bytes("")));
    assertEquals(0xe6c632b61e964e1fL, KeyHash.of(bytes("a")));
    assertEquals(0x87e86d6d9f6040e9L, KeyHash.of(bytes("hybridcache")));
    assertEquals(0xb7d65aa676c0fa41L, KeyHash.of(bytes("user0000000001")));
    assertEquals(0x2d039bbef8ae3c63L, KeyHash.of(bytes(LONG)));
  }

  @Test
  void aKeyInsideADirectOrHeapBufferHashesAsItsCopy() {
    Random random = new Random(7);
    ByteBuffer direct = ByteBuffer.allocateDirect(8192);
    ByteBuffer heap = ByteBuffer.allocate(8192);
    for (int length : new int[] {0, 1, 3, 16, 17, 128, 129, 240, 241, KeyHash.SCRATCH_BYTES, KeyHash.SCRATCH_BYTES + 1, 4000}) {
      byte[] key = new byte[length];
      random.nextBytes(key);
      int offset = 1 + random.nextInt(100);
      direct.put(offset, key);
      heap.put(offset, key);
      long expected = KeyHash.of(key);
      assertEquals(expected, KeyHash.of(direct, offset, length), "direct, length " + length);
      assertEquals(expected, KeyHash.of(heap, offset, length), "heap, length " + length);
      assertEquals(expected, KeyHash.of(heap.slice(offset, length), 0, length), "heap slice, length " + length);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
