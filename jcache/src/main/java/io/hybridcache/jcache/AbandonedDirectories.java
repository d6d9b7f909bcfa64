package io.hybridcache.jcache;

import io.hybridcache.core.device.DirectoryLock;
import io.hybridcache.core.device.TrustedDirectory;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reclaims the private manager directories of processes that ended without closing their managers (kill -9,
 * a crash): their engine's preallocated segments would otherwise stay for ever, often on a tmpfs. Run when a
 * manager makes its own private directory, over that directory's siblings. Stateless.
 *
 * <p>Design note (never another's): a sibling is deleted only if its name is a private directory's
 * ({@link ManagerSettings#PRIVATE_PREFIX} and 24 hex digits), it is a directory (not a link) of this process's
 * user that nobody else can write ({@code TrustedDirectory}), its {@code LOCK} holds a pid (its holder took
 * the lock once; a new one still being opened has an empty {@code LOCK}), that pid is not a live process (this
 * one included: another copy of the provider in this JVM would lose its OS lock if its file were opened and
 * closed here) and this process can take that lock now. Links are never followed: the directory's attributes
 * are read without following one, and read again after the lock is taken (the same file key, so not an entry
 * swapped meanwhile); the root must be writable by this user alone or sticky (as /tmp), where no other user
 * can rename an entry of ours. Holding the lock, it deletes only what the cache made there ({@link
 * SharedEngine#unlock}: the engine's files, the namespace table, the class descriptors, the lock), then the
 * directory if that left it
 * empty. Each deletion is logged at INFO; a sibling that cannot be checked is left.
 */
final class AbandonedDirectories {
  private static final Logger LOG = LoggerFactory.getLogger(AbandonedDirectories.class);
  private static final Pattern NAME = Pattern.compile(Pattern.quote(ManagerSettings.PRIVATE_PREFIX) + "[0-9a-f]{24}");

  private AbandonedDirectories() {}

  /** Deletes the abandoned private directories beside {@code own} (which is not touched). */
  static void sweep(Path own) {
    Path root = own.getParent();
    if (root == null || !Files.isDirectory(root) || !safeRoot(root)) {
      return;
    }
    try (DirectoryStream<Path> siblings = Files.newDirectoryStream(root,
        p -> NAME.matcher(p.getFileName().toString()).matches() && !p.equals(own))) {
      for (Path d : siblings) {
        reclaim(d);
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("cannot list {} for abandoned private CacheManager directories", root, e);
    }
  }

  /**
   * True if no other user can replace an entry of ours in {@code root}: nobody else can write it, or it is
   * sticky (as /tmp is: only an entry's owner may rename or delete it).
   */
  private static boolean safeRoot(Path root) {
    try {
      java.util.Set<PosixFilePermission> perms = Files.getPosixFilePermissions(root);
      boolean othersWrite = perms.contains(PosixFilePermission.GROUP_WRITE)
          || perms.contains(PosixFilePermission.OTHERS_WRITE);
      return !othersWrite || (Integer) Files.getAttribute(root, "unix:mode") % 010000 / 01000 == 1;
    } catch (IOException | RuntimeException e) {
      return false; // cannot tell: sweep nothing
    }
  }

  private static void reclaim(Path d) {
    DirectoryLock lock;
    try {
      Object key = ours(d);
      if (key == null || SharedEngine.isOpen(d)) {
        return;
      }
      Path lockFile = d.resolve(DirectoryLock.FILE);
      if (!Files.isRegularFile(lockFile, LinkOption.NOFOLLOW_LINKS) || Files.size(lockFile) == 0) {
        return; // never locked, or being opened right now
      }
      String pid = Files.readString(lockFile, java.nio.charset.StandardCharsets.US_ASCII).trim();
      if (alive(pid)) {
        return; // its process lives (maybe this one, through another copy of the provider): never taken
      }
      lock = DirectoryLock.acquire(d, PosixFilePermissions.fromString("rw-------"));
      if (!key.equals(ours(d))) { // replaced meanwhile: not the directory checked
        lock.close();
        return;
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("left {}: in use or not ours ({})", d, e.getMessage());
      return;
    }
    SharedEngine.unlock(d, false, lock, null);
    if (!Files.exists(d, LinkOption.NOFOLLOW_LINKS)) {
      LOG.info("deleted the private CacheManager directory {} of a process that ended without closing its "
          + "CacheManager (kill -9 or a crash)", d);
    }
  }

  /**
   * The file key of {@code d} if it is, itself and not through a link, a directory of this process's user
   * that nobody else can write (read in one step, links not followed); else null.
   */
  private static Object ours(Path d) throws IOException {
    PosixFileAttributes a = Files.readAttributes(d, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (!a.isDirectory() || a.isSymbolicLink()) {
      return null;
    }
    java.util.Set<PosixFilePermission> p = a.permissions();
    if (p.contains(PosixFilePermission.GROUP_WRITE) || p.contains(PosixFilePermission.OTHERS_WRITE)) {
      return null;
    }
    TrustedDirectory.check(d, PosixFilePermissions.fromString("rwx------")); // this user's (as the open checks it)
    return a.fileKey();
  }

  /** True if {@code pid} (as a LOCK file holds it) names a live process, this one included. */
  private static boolean alive(String pid) {
    try {
      long p = Long.parseLong(pid);
      return p == ProcessHandle.current().pid() || ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false);
    } catch (NumberFormatException e) {
      return true; // not a pid we can read: leave it
    }
  }
}
