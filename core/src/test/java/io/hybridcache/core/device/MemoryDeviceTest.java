package io.hybridcache.core.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** {@link MemoryDevice} against the shared {@link DeviceContractTest}, plus what is its own. */
class MemoryDeviceTest extends DeviceContractTest {
  @Override
  protected Device createDevice(int slotCount, long slotBytes) {
    return new MemoryDevice(slotCount, slotBytes);
  }

  @Test
  void discardZeroFills() throws IOException {
    Device device = newDevice(1, SLOT_BYTES);
    device.write(0, 0, pattern(3, (int) SLOT_BYTES));
    device.discard(0);
    assertArrayEquals(new byte[(int) SLOT_BYTES], read(device, 0, 0, (int) SLOT_BYTES));
    assertEquals(0, device.counters().discardsIgnored());
  }

  @Test
  void recordsWriteLifeHints() throws IOException {
    MemoryDevice device = (MemoryDevice) newDevice(2, SLOT_BYTES);
    assertEquals(-1, device.writeLifeHint(0));
    assertTrue(device.setWriteLifeHint(0, 4));
    assertEquals(4, device.writeLifeHint(0));
    assertFalse(device.directIo());
  }

  @Test
  void validatesItsShape() {
    assertThrows(IllegalArgumentException.class, () -> new MemoryDevice(0, SLOT_BYTES));
    assertThrows(IllegalArgumentException.class, () -> new MemoryDevice(1, 1000));
  }
}
