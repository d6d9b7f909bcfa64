package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.SmallTestKeys.key;
import static io.hybridcache.core.engine.SmallTestKeys.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.device.FaultInjectingDevice;
import io.hybridcache.core.device.FaultInjectingDevice.WriteFault;
import io.hybridcache.core.device.MemoryDevice;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Device faults under the set region (FaultInjectingDevice): a read error is a miss, and a failed read
 * or write never leaves an older version of a key reachable after its put or remove returns.
 */
class SmallSetsFaultTest {
  private static final int VALUE = 100;

  private FaultInjectingDevice device;
  private SmallSets sets;

  @BeforeEach
  void oneSet() {
    device = new FaultInjectingDevice(new MemoryDevice(1, 4096)); // one set: every key shares the page
    sets = new SmallSets(device, 0, 1, SmallSets.Options.DEFAULT);
    for (int i = 0; i < 10; i++) {
      assertTrue(sets.put(key(i), value(i, 1, VALUE), i, 0));
    }
  }

  @Test
  void aReadErrorIsAMissAndTheNextReadHits() {
    device.failNextReads(1);
    assertNull(sets.get(key(1)));
    assertEquals(1, sets.stats().readErrors());
    assertArrayEquals(value(1, 1, VALUE), sets.get(key(1)));
  }

  /** The read of a read-modify-write fails: the page is rebuilt from the batch alone, never from older data. */
  @Test
  void aReadErrorInARewriteLosesNeighboursButNeverServesAnOlderVersion() {
    device.failNextReads(1);
    assertTrue(sets.put(key(1), value(1, 2, VALUE), 100, 0));
    assertArrayEquals(value(1, 2, VALUE), sets.get(key(1)));
    assertNull(sets.get(key(2)), "the rest of the set was lost with the unreadable page");
    assertEquals(1, sets.stats().entries());
  }

  @Test
  void aFailedPutLeavesNoOlderVersionReachable() {
    device.failNextWrites(1, WriteFault.IO_ERROR);
    assertFalse(sets.put(key(1), value(1, 2, VALUE), 100, 0));
    assertNull(sets.get(key(1)), "version 1 is still on flash but unreachable");
    assertNull(sets.get(key(2)), "the set is poisoned");
    assertTrue(sets.put(key(5), value(5, 2, VALUE), 101, 0), "the next insert starts from an empty page");
    assertNull(sets.get(key(1)), "version 1 is not merged back");
    assertArrayEquals(value(5, 2, VALUE), sets.get(key(5)));
    assertEquals(1, sets.stats().writeErrors());
    assertEquals(1, sets.stats().entries());
  }

  @Test
  void aFailedRemoveStillMakesTheKeyUnreachable() {
    device.failNextWrites(1, WriteFault.DISK_FULL);
    sets.remove(key(3));
    assertNull(sets.get(key(3)));
    sets.put(key(4), value(4, 2, VALUE), 100, 0);
    assertNull(sets.get(key(3)), "not merged back by the next rewrite");
  }

  /**
   * The remove's page read returns bytes that fail their check (one flipped bit: the CRC): the key may be
   * there, so the set is poisoned as for a read error, counted; the next clean read must not serve it.
   */
  @Test
  void aRemoveWhosePageFailsItsCheckStillMakesTheKeyUnreachable() {
    device.corruptNextReads(1);
    assertFalse(sets.remove(key(3)));
    assertEquals(1, device.injectedCorruptions(), "the remove's page read was the corrupted one");
    device.heal();
    assertNull(sets.get(key(3)), "the page reads clean again: version 1 must not come back");
    assertEquals(1, sets.stats().damagedPages(), "counted");
    sets.put(key(4), value(4, 2, VALUE), 100, 0);
    assertNull(sets.get(key(3)), "not merged back by the next rewrite");
  }

  @Test
  void aRemoveThatCannotReadThePageStillMakesTheKeyUnreachable() {
    device.failNextReads(1);
    assertFalse(sets.remove(key(3)));
    assertNull(sets.get(key(3)));
    sets.put(key(4), value(4, 2, VALUE), 100, 0);
    assertNull(sets.get(key(3)), "not merged back by the next rewrite");
  }
}
