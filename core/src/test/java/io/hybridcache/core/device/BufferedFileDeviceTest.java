package io.hybridcache.core.device;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link FileDevice} with buffered I/O (preferDirectIo false) against the shared contract. */
class BufferedFileDeviceTest extends DeviceContractTest {
  @TempDir Path dir;
  private int opened;

  @Override
  protected Device createDevice(int slotCount, long slotBytes) throws IOException {
    return FileDevice.open(dir.resolve("dev" + opened++), slotCount, slotBytes, false);
  }

  @Test
  void notDirectWhenNotAsked() throws IOException {
    assertFalse(newDevice(1, SLOT_BYTES).directIo());
  }
}
