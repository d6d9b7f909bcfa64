package io.hybridcache.core.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FileDevice} asking for direct I/O against the shared {@link DeviceContractTest}, plus what is
 * specific to files: preallocation on first write, the direct-I/O probe, punch hole, reopen,
 * write-life hints and recovery from an interrupted reader.
 */
class FileDeviceTest extends DeviceContractTest {
  @TempDir Path dir;
  private int opened;

  @Override
  protected Device createDevice(int slotCount, long slotBytes) throws IOException {
    return FileDevice.open(dir.resolve("dev" + opened++), slotCount, slotBytes, true);
  }

  private FileDevice newFileDevice(int slotCount) throws IOException {
    return (FileDevice) newDevice(slotCount, SLOT_BYTES);
  }

  /** This test's own probe, independent of FileDevice's: O_DIRECT write + read of one 4 KiB block. */
  private static boolean directIoWorks(Path directory) {
    Path probe = directory.resolve("independent-probe");
    try (FileChannel ch = FileChannel.open(probe, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
        StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT)) {
      ByteBuffer block = ByteBuffer.allocateDirect(2 * BLOCK).alignedSlice(BLOCK);
      block.limit(BLOCK);
      return ch.write(block, 0) == BLOCK && ch.read(block.clear().limit(BLOCK), 0) == BLOCK;
    } catch (IOException | RuntimeException e) {
      return false;
    } finally {
      try {
        Files.deleteIfExists(probe);
      } catch (IOException ignored) {
        // the temp dir is removed anyway
      }
    }
  }

  private static List<String> listing(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void directIoMatchesAnIndependentProbe() throws IOException {
    boolean expected = directIoWorks(dir);
    FileDevice device = newFileDevice(1);
    assertEquals(expected, device.directIo(), "FileDevice's probe disagrees with the test's probe");
    device.write(0, 0, pattern(1, BLOCK));
    assertArrayEquals(bytes(pattern(1, BLOCK)), read(device, 0, 0, BLOCK));
  }

  @Test
  void openCreatesNoSlotFileAndFirstWritePreallocatesTheWholeSlot() throws IOException {
    FileDevice device = newFileDevice(3);
    assertEquals(List.of(), listing(device.directory()), "open leaves no files (probe removed)");
    device.write(1, 2 * BLOCK, pattern(1, BLOCK));
    assertEquals(List.of("slot-00001.seg"), listing(device.directory()));
    assertEquals(device.directory().resolve("slot-00001.seg"), device.slotPath(1));
    assertEquals(SLOT_BYTES, Files.size(device.slotPath(1)), "file size is slotBytes after first write");
    assertTrue(device.allocated(1));
    assertFalse(device.allocated(0));
    assertFalse(device.allocated(2));
  }

  @Test
  void aShortSlotFileIsNotAllocatedAndIsCompletedByTheNextWrite() throws IOException {
    FileDevice device = newFileDevice(2);
    Files.write(device.slotPath(0), new byte[BLOCK]); // as a crash mid-creation might leave it
    assertFalse(device.allocated(0));
    device.write(0, BLOCK, pattern(2, BLOCK));
    assertTrue(device.allocated(0));
    assertEquals(SLOT_BYTES, Files.size(device.slotPath(0)));
  }

  @Test
  void aSlotFileTruncatedBehindTheDevicesBackFailsTheRead() throws IOException {
    FileDevice device = newFileDevice(1);
    device.write(0, 0, pattern(2, BLOCK));
    try (RandomAccessFile file = new RandomAccessFile(device.slotPath(0).toFile(), "rw")) {
      file.setLength(BLOCK);
    }
    assertThrows(IOException.class, () -> device.read(0, BLOCK, Device.allocateAligned(BLOCK)));
  }

  @Test
  void dataSurvivesCloseAndReopen() throws IOException {
    Path home = dir.resolve("reopen");
    try (FileDevice device = FileDevice.open(home, 4, SLOT_BYTES, true)) {
      device.write(2, BLOCK, pattern(9, 2 * BLOCK));
      device.sync();
    }
    try (FileDevice device = FileDevice.open(home, 4, SLOT_BYTES, true)) {
      assertTrue(device.allocated(2));
      assertFalse(device.allocated(0));
      assertArrayEquals(bytes(pattern(9, 2 * BLOCK)), read(device, 2, BLOCK, 2 * BLOCK));
      device.write(2, 0, pattern(10, BLOCK)); // an existing slot is written in place
      assertArrayEquals(bytes(pattern(9, 2 * BLOCK)), read(device, 2, BLOCK, 2 * BLOCK));
    }
  }

  @Test
  void discardPunchesAHoleWhereSupported() throws IOException {
    FileDevice device = newFileDevice(1);
    device.write(0, 0, pattern(4, (int) SLOT_BYTES));
    device.discard(0);
    assertEquals(SLOT_BYTES, Files.size(device.slotPath(0)), "punch hole keeps the size");
    assertEquals(1, device.counters().discards());
    if (device.counters().discardsIgnored() == 0) {
      assertArrayEquals(new byte[(int) SLOT_BYTES], read(device, 0, 0, (int) SLOT_BYTES),
          "a punched hole reads zeros");
    }
  }

  @Test
  void writeLifeHintIsSetOnTheInodeAndReadsBack() throws IOException {
    FileDevice device = newFileDevice(3);
    device.write(0, 0, pattern(1, BLOCK));
    boolean supported = device.setWriteLifeHint(0, 3);
    Assumptions.assumeTrue(supported, "F_SET_RW_HINT unsupported on " + dir);
    assertEquals(3, FileDevice.getWriteLifeHint(device.slotPath(0)));
    assertTrue(device.setWriteLifeHint(0, 5));
    assertEquals(5, FileDevice.getWriteLifeHint(device.slotPath(0)));

    // a hint for a slot with no file yet is held until the first write creates it
    assertTrue(device.setWriteLifeHint(1, 2));
    assertFalse(Files.exists(device.slotPath(1)), "a hint does not create the slot file");
    device.write(1, 0, pattern(2, BLOCK));
    assertEquals(2, FileDevice.getWriteLifeHint(device.slotPath(1)));
    assertEquals(5, FileDevice.getWriteLifeHint(device.slotPath(0)), "slot 0 unchanged");
  }

  @Test
  void anInterruptedReaderReadsAndKeepsItsFlag() throws Exception {
    FileDevice device = newFileDevice(1);
    device.write(0, 0, pattern(8, 2 * BLOCK));
    assertArrayEquals(bytes(pattern(8, 2 * BLOCK)), read(device, 0, 0, 2 * BLOCK)); // channel cached

    // The JDK closes a FileChannel when an interrupted thread does I/O on it; the device's reads clear
    // the flag around the call and set it again, so the read succeeds and the caller keeps its flag.
    Object result = CompletableFuture.supplyAsync(() -> {
      Thread.currentThread().interrupt();
      try {
        ByteBuffer b = Device.allocateAligned(BLOCK);
        device.read(0, 0, b);
        return Thread.currentThread().isInterrupted() ? bytes(b.flip()) : "flag lost";
      } catch (Throwable e) {
        return e;
      } finally {
        Thread.interrupted();
      }
    }, runnable -> new Thread(runnable).start()).get(30, TimeUnit.SECONDS);
    assertArrayEquals(bytes(pattern(8, BLOCK)), assertInstanceOf(byte[].class, result));
    assertEquals(2, device.counters().reads());
  }

  /**
   * A writer whose interrupt is pending writes and keeps its flag (the small-object engine writes a set page
   * on the caller's thread): the JDK would otherwise close the slot's channel for every thread.
   */
  @Test
  void anInterruptedWriterWritesAndKeepsItsFlag() throws Exception {
    FileDevice device = newFileDevice(1);
    device.write(0, 0, pattern(8, 2 * BLOCK));
    Boolean kept = CompletableFuture.supplyAsync(() -> {
      Thread.currentThread().interrupt();
      try {
        device.write(0, 0, pattern(7, BLOCK));
        return Thread.currentThread().isInterrupted();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      } finally {
        Thread.interrupted();
      }
    }, runnable -> new Thread(runnable).start()).get(30, TimeUnit.SECONDS);
    assertTrue(kept, "the writer keeps its interrupt");
    assertArrayEquals(bytes(pattern(7, BLOCK)), read(device, 0, 0, BLOCK), "the interrupted write landed");
  }

  /** A slot whose channel was closed under it (an interrupt that lands mid-call) is reopened by the next call. */
  @Test
  void aChannelClosedUnderTheDeviceIsReopened() throws Exception {
    FileDevice device = newFileDevice(1);
    device.write(0, 0, pattern(8, 2 * BLOCK));
    device.openChannel(0).close(); // what the JDK does to a channel whose caller is interrupted mid-call
    assertArrayEquals(bytes(pattern(8, 2 * BLOCK)), read(device, 0, 0, 2 * BLOCK), "reopened for a read");
    device.openChannel(0).close();
    device.write(0, 0, pattern(9, BLOCK));
    device.sync();
    assertArrayEquals(bytes(pattern(9, BLOCK)), read(device, 0, 0, BLOCK), "reopened for a write");
  }

  @Test
  void validatesItsShape() {
    assertThrows(IllegalArgumentException.class, () -> FileDevice.open(dir, 0, SLOT_BYTES, false));
    assertThrows(IllegalArgumentException.class, () -> FileDevice.open(dir, 1, 1000, false));
  }
}
