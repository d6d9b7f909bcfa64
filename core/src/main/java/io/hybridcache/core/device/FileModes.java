package io.hybridcache.core.device;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * POSIX permissions of the files and directories the cache makes. Thread-safe: stateless.
 *
 * <p>Design note. The rule is that <b>a file takes the permissions of the directory it is made in,
 * without the x bits</b> (a {@code rwx------} directory gets {@code rw-------} files), and the cache
 * sets its directories to the configured mode ({@link #forDirectory}: x for each class that may read).
 * So the writers below the engine ({@link AtomicFile}, {@link FileDevice}, the index files) need no
 * permission argument: they ask the directory ({@link #inDirectory}); a directory the cache does not
 * manage (a catalogue, a test's temporary directory) keeps today's behaviour of files that follow it.
 * Files are created with the permissions as a create attribute (the process umask can only narrow it,
 * so a new file is never more open than asked) and then set exactly ({@link #trySet}), so a umask does
 * not silently drop bits the user asked for.
 *
 * <p>Where the file system has no POSIX permissions, every method here is a no-op: a {@code null}
 * permission set means "the platform's default" throughout.
 */
public final class FileModes {
  private static final FileAttribute<?>[] NONE = new FileAttribute<?>[0];
  private static final List<PosixFilePermission[]> CLASSES = List.of(
      new PosixFilePermission[] {PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_EXECUTE},
      new PosixFilePermission[] {PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_EXECUTE},
      new PosixFilePermission[] {PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_EXECUTE});

  private FileModes() {}

  /** The permissions of a directory holding files of {@code file}: x added for each class that may read. */
  public static Set<PosixFilePermission> forDirectory(Set<PosixFilePermission> file) {
    if (file == null) {
      return null;
    }
    Set<PosixFilePermission> dir = EnumSet.noneOf(PosixFilePermission.class);
    dir.addAll(file);
    for (PosixFilePermission[] readExecute : CLASSES) {
      if (file.contains(readExecute[0])) {
        dir.add(readExecute[1]);
      }
    }
    return dir;
  }

  /**
   * The permissions of a file made in {@code directory}: the directory's without the x bits; null
   * where the file system has no POSIX permissions or the directory cannot be read.
   */
  public static Set<PosixFilePermission> inDirectory(Path directory) {
    if (!supported(directory)) {
      return null;
    }
    try {
      Set<PosixFilePermission> p = EnumSet.noneOf(PosixFilePermission.class);
      p.addAll(Files.getPosixFilePermissions(directory));
      for (PosixFilePermission[] readExecute : CLASSES) {
        p.remove(readExecute[1]);
      }
      return p;
    } catch (IOException | UnsupportedOperationException e) {
      return null;
    }
  }

  /** {@code perms} as a create attribute; none for null. */
  public static FileAttribute<?>[] attributes(Set<PosixFilePermission> perms) {
    return perms == null ? NONE : new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(perms)};
  }

  /** True where {@code path}'s file system has POSIX permissions (the path need not exist). */
  public static boolean supported(Path path) {
    return path.getFileSystem().supportedFileAttributeViews().contains("posix");
  }

  /** Sets exactly {@code perms} on {@code path} unless it already has them; a no-op for null. */
  public static void set(Path path, Set<PosixFilePermission> perms) throws IOException {
    if (perms == null || !supported(path)) {
      return;
    }
    if (!Files.getPosixFilePermissions(path).equals(perms)) {
      Files.setPosixFilePermissions(path, perms);
    }
  }

  /**
   * {@link #set}, best effort, on something the caller made with {@code perms} as its create attribute:
   * if it fails (a file system that refuses chmod) the file keeps what the umask left of {@code perms},
   * which is never more open than asked. False if it failed.
   */
  public static boolean trySet(Path path, Set<PosixFilePermission> perms) {
    try {
      set(path, perms);
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * Creates directory {@code dir} (its parent must exist) with exactly {@code perms}; returns false,
   * changing nothing, if it already exists.
   */
  public static boolean createDirectory(Path dir, Set<PosixFilePermission> perms) throws IOException {
    try {
      Files.createDirectory(dir, attributes(supported(dir) ? perms : null));
    } catch (FileAlreadyExistsException e) {
      return false;
    }
    trySet(dir, perms);
    return true;
  }

  /**
   * Opens {@code file}, creating it with the permissions of its directory ({@link #inDirectory}) if it
   * does not exist; {@code options} are added to {@link StandardOpenOption#CREATE}.
   */
  public static FileChannel create(Path file, OpenOption... options) throws IOException {
    Set<PosixFilePermission> perms = inDirectory(parentOf(file));
    Set<OpenOption> all = new HashSet<>(List.of(options));
    all.add(StandardOpenOption.CREATE);
    boolean existed = Files.exists(file);
    FileChannel ch = FileChannel.open(file, all, attributes(perms));
    if (!existed) {
      trySet(file, perms);
    }
    return ch;
  }

  /** Creates an empty {@code file} with the permissions of its directory unless it exists; true if made. */
  public static boolean createFile(Path file) throws IOException {
    Set<PosixFilePermission> perms = inDirectory(parentOf(file));
    try {
      Files.createFile(file, attributes(perms));
    } catch (FileAlreadyExistsException e) {
      return false;
    }
    trySet(file, perms);
    return true;
  }

  private static Path parentOf(Path file) {
    Path parent = file.toAbsolutePath().getParent();
    return parent == null ? file.toAbsolutePath() : parent;
  }
}
