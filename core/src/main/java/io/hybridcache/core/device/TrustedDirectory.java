package io.hybridcache.core.device;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Whether an existing directory may hold a cache: it must belong to this process's user and be writable
 * by nobody else, except as the configured permissions allow. Thread-safe: stateless.
 *
 * <p>Design note. The cache reads back what its directory holds (segments, indexes, and above it a JCache
 * manager's namespace table and serialized values), so whoever can write the directory can plant what the
 * cache later decodes. A directory the cache makes is its user's and {@code rwx------}; one that exists
 * already (made by an operator, or planted under a predictable name in a shared directory such as
 * {@code /tmp}) is checked before anything in it is read, made or changed, and refused if it belongs to
 * another user or its group or others may write it (beyond {@code allowed}: a cache configured with
 * {@code rw-rw----} files shares its directory with its group on purpose). The refusal names the
 * directory, its owner and its mode, and changes nothing. Where the file system has no POSIX permissions
 * the check is skipped.
 */
public final class TrustedDirectory {
  private TrustedDirectory() {}

  /**
   * Throws unless {@code dir} is absent, or a directory of this process's user that group and others
   * cannot write beyond {@code allowed} (directory permissions; null: no POSIX permissions, no check).
   */
  public static void check(Path dir, Set<PosixFilePermission> allowed) throws IOException {
    if (allowed == null || !FileModes.supported(dir) || !Files.exists(dir)) {
      return;
    }
    UserPrincipal owner = Files.getOwner(dir);
    UserPrincipal me = processUser(dir);
    if (!owner.equals(me)) {
      throw new IOException("refusing to open " + dir + ": it belongs to " + owner.getName() + ", not to this "
          + "process's user " + me.getName() + " (mode " + mode(dir) + "); a cache opens only a directory of "
          + "its own user, since whoever can write it can plant data the cache reads back: use a new directory, "
          + "or chown it to " + me.getName());
    }
    Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir);
    List<String> writers = new ArrayList<>();
    if (perms.contains(PosixFilePermission.GROUP_WRITE) && !allowed.contains(PosixFilePermission.GROUP_WRITE)) {
      writers.add("its group");
    }
    if (perms.contains(PosixFilePermission.OTHERS_WRITE) && !allowed.contains(PosixFilePermission.OTHERS_WRITE)) {
      writers.add("others");
    }
    if (!writers.isEmpty()) {
      throw new IOException("refusing to open " + dir + ": its mode " + PosixFilePermissions.toString(perms)
          + " lets " + String.join(" and ", writers) + " write it, so anything in it may have been planted; "
          + "a cache opens only a directory its own user alone can write (the cache makes its own "
          + PosixFilePermissions.toString(allowed) + "): use a new directory, or chmod go-w " + dir
          + " if you know what it holds");
    }
  }

  /** The user this process runs as: the owner of {@code /proc/self} (Linux), else {@code user.name}. */
  private static UserPrincipal processUser(Path onFileSystem) throws IOException {
    Path self = onFileSystem.getFileSystem().getPath("/proc/self");
    if (Files.exists(self)) {
      return Files.getOwner(self);
    }
    return onFileSystem.getFileSystem().getUserPrincipalLookupService()
        .lookupPrincipalByName(System.getProperty("user.name"));
  }

  private static String mode(Path dir) {
    try {
      return PosixFilePermissions.toString(Files.getPosixFilePermissions(dir));
    } catch (IOException e) {
      return "unknown";
    }
  }
}
