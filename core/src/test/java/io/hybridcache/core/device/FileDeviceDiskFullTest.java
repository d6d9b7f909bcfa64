package io.hybridcache.core.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A real full disk: a 2 MiB tmpfs mounted for this class (needs root / CAP_SYS_ADMIN; skipped through
 * an assumption where mounting is not permitted). Slot files are reserved with posix_fallocate, so the
 * write that needs a new slot fails with ENOSPC's text and leaves nothing behind, and works again once
 * space is freed.
 */
class FileDeviceDiskFullTest {
  private static final int BLOCK = Device.ALIGNMENT;
  private static final long KIB = 1024;
  private static SmallTmpfs tmpfs;
  private static Path mountPoint;

  private FileDevice device;

  @BeforeAll
  static void mountSmallFilesystem() throws IOException, InterruptedException {
    tmpfs = SmallTmpfs.mount("2m");
    mountPoint = tmpfs.root();
  }

  @AfterAll
  static void unmount() throws IOException, InterruptedException {
    if (tmpfs != null) {
      tmpfs.close();
    }
  }

  @AfterEach
  void emptyTheFilesystem() throws IOException {
    if (device != null) {
      device.close();
    }
    tmpfs.empty();
  }

  private static void assertDiskFull(IOException e) {
    String message = String.valueOf(e.getMessage());
    assertTrue(message.contains("No space left on device"), "message: " + message);
    assertTrue(message.toLowerCase().contains("space"));
  }

  @Test
  void writeNeedingANewSlotFailsWithNoSpaceAndWorksAfterFilesAreDeleted() throws IOException {
    device = FileDevice.open(mountPoint.resolve("dev"), 4, 512 * KIB, true);
    Path filler = mountPoint.resolve("filler");
    Files.write(filler, new byte[(int) (1280 * KIB)]); // 1.25 MiB used by someone else
    device.write(0, 0, DeviceContractTest.pattern(1, BLOCK)); // 1.75 MiB reserved in all

    IOException full = assertThrows(IOException.class,
        () -> device.write(1, 0, DeviceContractTest.pattern(2, BLOCK)));
    assertDiskFull(full);
    assertFalse(device.allocated(1), "the failed slot is not allocated");
    assertFalse(Files.exists(device.slotPath(1)), "no half-reserved file is left behind");
    assertEquals(1, device.counters().writes(), "the failed write is not counted");
    assertArrayEquals(DeviceContractTest.bytes(DeviceContractTest.pattern(1, BLOCK)),
        DeviceContractTest.read(device, 0, 0, BLOCK), "existing slots stay readable");

    Files.delete(filler);
    device.write(1, 0, DeviceContractTest.pattern(2, BLOCK));
    assertTrue(device.allocated(1));
    assertEquals(List.of(512 * KIB, 512 * KIB),
        List.of(Files.size(device.slotPath(0)), Files.size(device.slotPath(1))));
    assertArrayEquals(DeviceContractTest.bytes(DeviceContractTest.pattern(2, BLOCK)),
        DeviceContractTest.read(device, 1, 0, BLOCK));
  }

  @Test
  void slotsAloneExceedingTheFilesystemFailAndADiscardFreesTheirSpace() throws IOException {
    device = FileDevice.open(mountPoint.resolve("dev"), 3, 768 * KIB, false);
    device.write(0, 0, DeviceContractTest.pattern(1, BLOCK));
    device.write(1, 0, DeviceContractTest.pattern(2, BLOCK));
    assertDiskFull(assertThrows(IOException.class,
        () -> device.write(2, 0, DeviceContractTest.pattern(3, BLOCK))));
    assertFalse(device.allocated(2));

    device.discard(0); // punch hole: tmpfs gives the pages back
    Assumptions.assumeTrue(device.counters().discardsIgnored() == 0, "punch hole unsupported");
    device.write(2, 0, DeviceContractTest.pattern(3, BLOCK));
    assertTrue(device.allocated(2));
    // slot 0 was punched: reusing it needs its space again, which is gone now
    assertDiskFull(assertThrows(IOException.class,
        () -> device.write(0, 0, DeviceContractTest.pattern(4, BLOCK))));
    assertTrue(device.allocated(0), "a discarded slot keeps its file and size");
  }
}
