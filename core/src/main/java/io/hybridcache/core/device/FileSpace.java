package io.hybridcache.core.device;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * Backs a file's whole length with disk blocks ({@code posix_fallocate}), so a memory mapping of it can
 * never fault on a full disk: a write through a mapping onto a hole that the file system cannot fill
 * raises SIGBUS, which the JVM turns into an {@link InternalError} on the writing thread.
 *
 * <p>Thread-safe: stateless.
 */
public final class FileSpace {
  private FileSpace() {}

  /**
   * Reserves blocks for bytes [0, length of {@code file}). Returns false where fallocate is not
   * available (no libc binding, or a file system without it: the file may stay sparse).
   *
   * @throws IOException with the strerror text (e.g. "No space left on device (errno 28)") if the
   *     disk cannot hold the file
   */
  public static boolean backWhole(Path file) throws IOException {
    return reserve(file, java.nio.file.Files.size(file));
  }

  /**
   * Replaces the contents of {@code file}, open as {@code channel} for writing, with {@code length} zero
   * bytes, every one backed by disk blocks: reserved with posix_fallocate, or written as zeros where that
   * is not available. So a memory mapping of those bytes never touches a hole (tmpfs, ext4 and xfs all
   * honour both). On failure the file is left empty, its space given back.
   *
   * @throws IOException with the strerror text (e.g. "No space left on device (errno 28)") if the disk
   *     cannot hold {@code length} bytes
   */
  public static void createZeroed(FileChannel channel, Path file, long length) throws IOException {
    channel.truncate(0);
    try {
      if (!reserve(file, length)) {
        writeZeros(channel, length);
      }
      if (channel.size() != length) {
        throw new IOException(file + " is " + channel.size() + " bytes after reserving " + length);
      }
    } catch (IOException | RuntimeException | Error e) {
      try {
        channel.truncate(0); // a part reserved before the failure goes back to the file system
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /** posix_fallocate of bytes [0, length), extending the file; false where it is not available. */
  private static boolean reserve(Path file, long length) throws IOException {
    if (!LibC.available()) {
      return false;
    }
    int rc = LibC.fallocateFile(file, LibC.O_RDWR, 0, length);
    if (rc == 0) {
      return true;
    }
    if (rc == LibC.EOPNOTSUPP || rc == LibC.EINVAL) {
      return false;
    }
    throw new IOException("posix_fallocate(" + file + ", " + length + " bytes): " + LibC.describe(rc));
  }

  private static void writeZeros(FileChannel channel, long length) throws IOException {
    ByteBuffer zeros = ByteBuffer.allocate((int) Math.min(length, 1 << 16));
    for (long at = 0; at < length; ) {
      zeros.clear().limit((int) Math.min(zeros.capacity(), length - at));
      at += channel.write(zeros, at);
    }
  }
}
