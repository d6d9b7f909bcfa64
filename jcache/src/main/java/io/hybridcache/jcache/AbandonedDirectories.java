package io.hybridcache.jcache;

import io.hybridcache.core.device.DirectoryLock;
import io.hybridcache.core.device.TrustedDirectory;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
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
 * the lock once; a new one still being opened has an empty {@code LOCK}) and this process can take that lock
 * now (no live process holds it: the OS lock dies with its process). Holding the lock, it deletes only what the
 * cache made there ({@link SharedEngine#unlock}: the engine's files, the namespace table, the lock), then the
 * directory if that left it empty. Each deletion is logged at INFO; a sibling that cannot be checked is left.
 */
final class AbandonedDirectories {
  private static final Logger LOG = LoggerFactory.getLogger(AbandonedDirectories.class);
  private static final Pattern NAME = Pattern.compile(Pattern.quote(ManagerSettings.PRIVATE_PREFIX) + "[0-9a-f]{24}");

  private AbandonedDirectories() {}

  /** Deletes the abandoned private directories beside {@code own} (which is not touched). */
  static void sweep(Path own) {
    Path root = own.getParent();
    if (root == null || !Files.isDirectory(root)) {
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

  private static void reclaim(Path d) {
    DirectoryLock lock;
    try {
      if (!Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS) || SharedEngine.isOpen(d)) {
        return;
      }
      TrustedDirectory.check(d, PosixFilePermissions.fromString("rwx------")); // this user's, only its writes
      Path lockFile = d.resolve(DirectoryLock.FILE);
      if (!Files.isRegularFile(lockFile, LinkOption.NOFOLLOW_LINKS) || Files.size(lockFile) == 0) {
        return; // never locked, or being opened right now
      }
      lock = DirectoryLock.acquire(d, PosixFilePermissions.fromString("rw-------"));
    } catch (IOException | RuntimeException e) {
      LOG.debug("left {}: in use or not ours ({})", d, e.getMessage());
      return;
    }
    SharedEngine.unlock(d, false, lock, null);
    LOG.info("deleted the private CacheManager directory {} of a process that ended without closing its "
        + "CacheManager (kill -9 or a crash)", d);
  }
}
