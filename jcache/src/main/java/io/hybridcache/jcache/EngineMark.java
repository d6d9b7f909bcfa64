package io.hybridcache.jcache;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.device.AtomicFile;
import io.hybridcache.core.device.FileModes;
import io.hybridcache.core.device.TrustedDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Properties;

/**
 * What the engine's directory knows of the namespace table written with it: the table's directory id and the
 * next namespace id ({@code id} and {@code next-id} in {@code ENGINE/catalog/jcache-namespaces.properties}, the
 * engine's companion directory, which it neither reads nor deletes). It lives and dies with the engine's
 * files, so a table that is missing, from another directory or from before the engine was replaced is told
 * apart from the engine's own ({@link Namespaces#open}); and since {@code next-id} is written before a
 * namespace id is used, it bounds every id the engine's keys can hold. Stateless.
 */
final class EngineMark {
  static final String FILE = "jcache-namespaces.properties";

  /** The table's directory id and the next namespace id, as the engine's directory last saw them. */
  record Mark(String directoryId, int nextId) {}

  private EngineMark() {}

  private static Path file(Path engineDirectory) {
    return engineDirectory.resolve(CacheConfig.COMPANION_DIRECTORY).resolve(FILE);
  }

  /** The mark in {@code engineDirectory}, or null if there is none or it cannot be read (then none is trusted). */
  static Mark read(Path engineDirectory) {
    Path file = file(engineDirectory);
    try {
      Properties p = PropertiesFile.read(file);
      return p == null ? null : new Mark(p.getProperty("id"), Integer.parseInt(p.getProperty("next-id")));
    } catch (IOException | RuntimeException e) {
      org.slf4j.LoggerFactory.getLogger(EngineMark.class).warn("cannot read {}: the namespace table is not "
          + "trusted, every cache starts empty", file, e);
      return null;
    }
  }

  /** Writes {@code mark} (synced) into {@code engineDirectory}, making its companion directory 0700 if absent. */
  static void write(Path engineDirectory, Mark mark) throws IOException {
    Path dir = file(engineDirectory).getParent();
    if (!FileModes.createDirectory(dir, PosixFilePermissions.fromString("rwx------")) && FileModes.supported(dir)) {
      TrustedDirectory.check(dir, PosixFilePermissions.fromString("rwx------"));
    }
    Properties p = new Properties();
    p.setProperty("id", mark.directoryId());
    p.setProperty("next-id", Integer.toString(mark.nextId()));
    PropertiesFile.write(file(engineDirectory), p, "hybridcache JCache: the namespace table written with this engine");
  }

  /** Deletes the mark and the companion directory if that empties it (a private manager directory's close). */
  static void delete(Path engineDirectory) throws IOException {
    Path file = file(engineDirectory);
    Files.deleteIfExists(file);
    Files.deleteIfExists(file.resolveSibling(FILE + AtomicFile.TEMP_SUFFIX));
    Path dir = file.getParent();
    if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      try (var entries = Files.list(dir)) {
        if (entries.findAny().isEmpty()) {
          Files.delete(dir);
        }
      }
    }
  }
}
