package io.hybridcache.core.device;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

/**
 * Replaces a small metadata file durably: the new contents go to {@code NAME.tmp}, are forced to the
 * device, the temp file is renamed over the target (atomically where the file system can), and the
 * directory is synced, so a crash leaves either the old file or the new one, never a torn one, and once
 * {@link #replace} returns even an OS crash or power loss leaves the new one (callers recycle what the old
 * one needed, e.g. the checkpointer's older journal half). Thread-safe: stateless; callers do not write
 * the same file concurrently.
 *
 * <p>A replacement that fails (a full disk) leaves the old file and deletes the temp file it opened, so
 * its space goes back at once; a temp path it could not open as a file (not its own) is left alone.
 *
 * <p>The temp file is always made new ({@code CREATE_NEW}, which never follows a symbolic link): a stale
 * one of a crash, or a symbolic link in its place, is deleted first (the link, never what it points at),
 * so a link planted at {@code NAME.tmp} cannot make a replacement write into another file. Anything else
 * in its place (a directory) fails the replacement and is left alone.
 *
 * <p>The new file gets the permissions of its directory without the x bits ({@link FileModes}), set on
 * the temp file before anything is written to it.
 *
 * <p>{@link #replace(Path, Contents, boolean) An unforced replacement} (for a file whose owner forces it later, or
 * whose loss to an OS crash is harmless) skips both forces: a process kill still leaves the old file or the new
 * one (the kernel keeps what was written), an OS crash may leave the old one, the new one, or a torn or empty one.
 */
public final class AtomicFile {
  /** Suffix of the temp file beside the target ({@code NAME.tmp}); a crash may leave one behind. */
  public static final String TEMP_SUFFIX = ".tmp";

  /** Writes the new contents to the channel. */
  @FunctionalInterface
  public interface Contents {
    void writeTo(FileChannel channel) throws IOException;
  }

  private AtomicFile() {}

  public static void replace(Path file, Contents contents) throws IOException {
    replace(file, contents, true);
  }

  /** As {@link #replace(Path, Contents)}; without {@code force} nothing is forced to the device (see above). */
  public static void replace(Path file, Contents contents, boolean force) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + TEMP_SUFFIX);
    Set<PosixFilePermission> perms = FileModes.inDirectory(file.toAbsolutePath().getParent());
    if (Files.isRegularFile(tmp, LinkOption.NOFOLLOW_LINKS) || Files.isSymbolicLink(tmp)) {
      Files.deleteIfExists(tmp); // a crash's stale temp file, or a link: itself, never its target
    }
    FileChannel ch = FileChannel.open(tmp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
        LinkOption.NOFOLLOW_LINKS), FileModes.attributes(perms));
    try {
      try (ch) {
        FileModes.trySet(tmp, perms); // exactly: past the umask
        contents.writeTo(ch);
        if (force) {
          ch.force(true);
        }
      }
      try {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException | RuntimeException | Error e) {
      // the temp file is ours (opened above as a regular file): a part written on a full disk goes at once
      try {
        Files.deleteIfExists(tmp);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    if (force) {
      syncDirectory(file.toAbsolutePath().getParent()); // the rename itself survives an OS crash
    }
  }

  /** Forces {@code file} (replaced unforced before) and its directory's entries to the device. */
  public static void sync(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      ch.force(true);
    }
    syncDirectory(file.toAbsolutePath().getParent());
  }

  /** Forces {@code dir}'s entries (creations, renames) to the device: fsync of the directory. */
  public static void syncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  /** Writes all of {@code buf} (position to limit). */
  public static void writeFully(FileChannel ch, java.nio.ByteBuffer buf) throws IOException {
    while (buf.hasRemaining()) {
      ch.write(buf);
    }
  }
}
