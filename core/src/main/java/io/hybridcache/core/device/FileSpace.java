package io.hybridcache.core.device;

import java.io.IOException;
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
    if (!LibC.available()) {
      return false;
    }
    long length = java.nio.file.Files.size(file);
    int rc = LibC.fallocateFile(file, LibC.O_RDWR, 0, length);
    if (rc == 0) {
      return true;
    }
    if (rc == LibC.EOPNOTSUPP || rc == LibC.EINVAL) {
      return false;
    }
    throw new IOException("posix_fallocate(" + file + ", " + length + " bytes): " + LibC.describe(rc));
  }
}
