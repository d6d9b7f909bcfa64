package io.hybridcache.core.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replacement that fails (a full disk while an index checkpoint is written) costs nothing: the old file
 * stays, and the partly written temp file is deleted, so the space it took goes back at once instead of
 * sitting there until the next attempt (issue 25 item 8: a failing checkpoint on a full disk).
 */
class AtomicFileTest {
  @TempDir Path dir;

  @Test
  void aFailedReplacementKeepsTheOldFileAndLeavesNoTempFile() throws IOException {
    Path file = dir.resolve("index.ckpt");
    Files.write(file, new byte[] {1, 2, 3});
    IOException full = assertThrows(IOException.class, () -> AtomicFile.replace(file, ch -> {
      AtomicFile.writeFully(ch, ByteBuffer.allocate(1 << 20)); // a part written...
      throw new IOException("No space left on device"); // ...then the disk is full
    }));
    assertEquals("No space left on device", full.getMessage());
    assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(file), "the old file stays");
    assertFalse(Files.exists(dir.resolve("index.ckpt" + AtomicFile.TEMP_SUFFIX)), "no temp file left taking space");
  }

  @Test
  void aTempPathThatIsNotOursIsNeverDeleted() throws IOException {
    Path file = dir.resolve("index.ckpt");
    Path foreign = Files.createDirectory(dir.resolve("index.ckpt" + AtomicFile.TEMP_SUFFIX));
    assertThrows(IOException.class, () -> AtomicFile.replace(file, ch -> { }));
    assertTrue(Files.isDirectory(foreign), "a directory in the temp file's place was not made by us: kept");
  }

  /**
   * The temp file is made new (CREATE_NEW, no link followed): a symbolic link planted at {@code NAME.tmp}
   * never makes a replacement write through it to the file it points at (issue 35 item 4).
   */
  @Test
  void aSymbolicLinkInTheTempFilesPlaceIsNeverFollowed() throws IOException {
    Path file = dir.resolve("layout.properties");
    Path victim = Files.write(dir.resolve("victim"), new byte[] {7, 7, 7});
    Files.createSymbolicLink(dir.resolve("layout.properties" + AtomicFile.TEMP_SUFFIX), victim);
    AtomicFile.replace(file, ch -> AtomicFile.writeFully(ch, ByteBuffer.wrap(new byte[] {1, 2})));
    assertArrayEquals(new byte[] {7, 7, 7}, Files.readAllBytes(victim), "the replacement wrote through a link");
    assertArrayEquals(new byte[] {1, 2}, Files.readAllBytes(file));
    assertFalse(Files.isSymbolicLink(file), "the link itself was renamed over the target");
  }

  /** A stale temp file of a crash (a regular file) is replaced, not written into. */
  @Test
  void aStaleTempFileOfACrashIsReplaced() throws IOException {
    Path file = dir.resolve("segments.meta");
    Files.write(dir.resolve("segments.meta" + AtomicFile.TEMP_SUFFIX), new byte[] {9, 9, 9, 9});
    AtomicFile.replace(file, ch -> AtomicFile.writeFully(ch, ByteBuffer.wrap(new byte[] {1})));
    assertArrayEquals(new byte[] {1}, Files.readAllBytes(file));
  }
}
