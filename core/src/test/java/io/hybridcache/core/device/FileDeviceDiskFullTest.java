package io.hybridcache.core.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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
  private static Path mountPoint;

  private FileDevice device;

  @BeforeAll
  static void mountSmallFilesystem() throws IOException, InterruptedException {
    mountPoint = Files.createTempDirectory("hybridcache-diskfull");
    String output;
    int exit;
    try {
      Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs",
          mountPoint.toString()).redirectErrorStream(true).start();
      output = new String(mount.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      exit = mount.waitFor(60, TimeUnit.SECONDS) ? mount.exitValue() : -1;
    } catch (IOException e) {
      output = e.toString();
      exit = -1;
    }
    if (exit != 0) {
      Files.deleteIfExists(mountPoint);
      mountPoint = null;
    }
    Assumptions.assumeTrue(exit == 0, "cannot mount a small tmpfs here: " + output);
  }

  @AfterAll
  static void unmount() throws IOException, InterruptedException {
    if (mountPoint == null) {
      return;
    }
    Process umount = new ProcessBuilder("umount", mountPoint.toString()).inheritIO().start();
    if (umount.waitFor(60, TimeUnit.SECONDS) && umount.exitValue() == 0) {
      Files.deleteIfExists(mountPoint);
    }
  }

  @AfterEach
  void emptyTheFilesystem() throws IOException {
    if (device != null) {
      device.close();
    }
    try (Stream<Path> files = Files.walk(mountPoint)) {
      for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
        if (!path.equals(mountPoint)) {
          Files.delete(path);
        }
      }
    }
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
