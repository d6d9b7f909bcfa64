package io.hybridcache.core.engine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * CRC32C of a whole file, stored beside it as {@code NAME.crc} at clean close and checked at warm
 * open, so a flipped byte anywhere in a persisted index is detected before the index is trusted.
 * Thread-safe: stateless.
 */
final class FileChecksum {
  private FileChecksum() {}

  static Path sidecar(Path file) {
    return file.resolveSibling(file.getFileName() + ".crc");
  }

  static long of(Path file) throws IOException {
    CRC32C crc = new CRC32C();
    ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      while (ch.read(buf) >= 0) {
        buf.flip();
        crc.update(buf);
        buf.clear();
      }
    }
    return crc.getValue();
  }

  static void write(Path file) throws IOException {
    Files.writeString(sidecar(file), Long.toString(of(file)), StandardCharsets.US_ASCII);
  }

  /** True if {@code file} and its sidecar exist and agree; the sidecar is removed either way. */
  static boolean verifyAndRemove(Path file) throws IOException {
    Path side = sidecar(file);
    try {
      if (!Files.exists(file) || !Files.exists(side)) {
        return false;
      }
      return Long.parseLong(Files.readString(side, StandardCharsets.US_ASCII).trim()) == of(file);
    } catch (NumberFormatException e) {
      return false;
    } finally {
      Files.deleteIfExists(side);
    }
  }
}
