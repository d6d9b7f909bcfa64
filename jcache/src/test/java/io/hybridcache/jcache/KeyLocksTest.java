package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The stripe hash of encoded keys: a function of their bytes only, and spread over the stripes. */
class KeyLocksTest {

  private static byte[] key(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void equalBytesHashEquallyAndEveryByteCounts() {
    assertEquals(KeyLocks.hash(key("cache:user42")), KeyLocks.hash(key("cache:user42")));
    for (String other : new String[] {"cache:user43", "cache:user4", "cache:user420", "dache:user42", ""}) {
      assertNotEquals(KeyLocks.hash(key("cache:user42")), KeyLocks.hash(key(other)), other);
    }
    // the length is mixed in: a key and the same key with a zero byte more differ
    assertNotEquals(KeyLocks.hash(new byte[8]), KeyLocks.hash(new byte[9]));
    assertNotEquals(KeyLocks.hash(new byte[3]), KeyLocks.hash(new byte[4]));
  }

  /** Sequential keys behind a namespace prefix (a cache's usual keys) fill the 256 stripes evenly. */
  @Test
  void sequentialKeysSpreadOverTheStripes() {
    int keys = 25_600;
    int[] perStripe = new int[KeyLocks.STRIPES];
    for (int i = 0; i < keys; i++) {
      byte[] k = key("user" + i);
      byte[] engineKey = new byte[2 + k.length];
      engineKey[0] = 7; // a namespace id and epoch, as Namespace.keyOf writes them
      engineKey[1] = 1;
      System.arraycopy(k, 0, engineKey, 2, k.length);
      perStripe[KeyLocks.stripe(KeyLocks.hash(engineKey))]++;
    }
    int mean = keys / KeyLocks.STRIPES;
    for (int s = 0; s < KeyLocks.STRIPES; s++) {
      assertTrue(perStripe[s] > mean / 2 && perStripe[s] < mean * 3 / 2,
          "stripe " + s + " holds " + perStripe[s] + " of " + keys + " keys (mean " + mean + ")");
    }
  }
}
