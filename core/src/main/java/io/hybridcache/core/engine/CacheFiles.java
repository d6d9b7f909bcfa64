package io.hybridcache.core.engine;

import io.hybridcache.core.device.DirectoryLock;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * Deletes a closed cache's directory: only what the cache made ({@link OwnedFiles}), for a directory meant
 * to live no longer than one process (a JCache manager without a configured directory). Thread-safe:
 * stateless; the directory's {@link DirectoryLock} keeps an open cache's files from being deleted.
 */
final class CacheFiles {
  private CacheFiles() {}

  /**
   * Deletes the cache's own files in {@code directory} (the lock file last, while held), then the directory
   * itself if that leaves it empty (anything else in it stays, and so does the directory); nothing if it
   * does not exist. Fails, deleting nothing, if a cache has it open or it holds a foreign entry.
   */
  static void delete(Path directory) throws IOException {
    if (!Files.exists(directory, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    OwnedFiles own = new OwnedFiles(directory, null);
    own.refuseForeign();
    try (DirectoryLock lock = DirectoryLock.acquire(directory, null)) {
      own.refuseForeign();
      own.deleteForLayoutChange();
      deleteEmptyDirectory(directory.resolve(OwnedFiles.SMALL));
      Files.deleteIfExists(directory.resolve(DirectoryLock.FILE)); // no one can open it: the lock is held
    }
    deleteEmptyDirectory(directory);
  }

  private static void deleteEmptyDirectory(Path dir) throws IOException {
    if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      try {
        Files.delete(dir);
      } catch (DirectoryNotEmptyException e) {
        // holds what the cache did not make (e.g. catalog/): left in place
      }
    }
  }
}
