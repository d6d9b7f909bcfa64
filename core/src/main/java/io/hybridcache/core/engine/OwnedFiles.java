package io.hybridcache.core.engine;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.device.AtomicFile;
import io.hybridcache.core.device.DirectoryLock;
import io.hybridcache.core.device.FileDevice;
import io.hybridcache.core.device.FileModes;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The names a cache directory may hold: the test of whether a directory is a cache directory at all,
 * and the only things the cache ever deletes or changes the permissions of. Not thread-safe: used by
 * the opening thread, under the {@link DirectoryLock} (except the first {@link #refuseForeign}).
 *
 * <p>Design note. A fixed list, not "everything but {@code catalog/}": a cache pointed at the wrong
 * directory (a home directory, a mount point with {@code lost+found}, a data directory) must not delete
 * or expose a byte of it. So open refuses a directory holding any entry not on the list, and a layout
 * change deletes only names on the list. The list, each name made by the class named:
 *
 * <ul>
 *   <li>{@value #LAYOUT} ({@link FlashOpener}), {@code LOCK} ({@link DirectoryLock}, never deleted),
 *       {@value #CLEAN} ({@code FlashTier.close}), {@value #META} ({@code SegmentTable.save}),
 *       {@value #HEAP_INDEX} ({@code HeapIndex.saveTo} of an older version), {@value #CHECKPOINT}
 *       ({@code IndexCheckpoint}), {@code index.journal} ({@link InvalidationJournal}), {@code boot.id}
 *       ({@link BootId}), {@value #CHRONICLE_INDEX} and its
 *       {@link ChronicleIndex#SEAL_SUFFIX seal} ({@link ChronicleIndex}); the temp file
 *       {@link AtomicFile} writes beside each file it replaces (layout, meta, heap index, seal);
 *   <li>{@value #SMALL}{@code /} with slot files of the small-object engine and its checkpoint
 *       ({@link SmallTier#isOwnFile});
 *   <li>{@value #SEGMENTS}{@code /} with the names {@link FileDevice#isOwnFile} accepts (slot files and
 *       the direct-I/O probe); it may be a symbolic link to a directory (which is never deleted);
 *   <li>{@code catalog/}: the schema catalogue's, accepted and never touched (its ids may be referenced
 *       elsewhere; keeping it is always safe);
 *   <li>the configured write trace, when it lies directly in the directory: accepted, never deleted.
 * </ul>
 *
 * Own files must be regular files (not links), {@value #SEGMENTS} and {@code catalog} directories;
 * anything else under an own name is foreign too.
 */
final class OwnedFiles {
  private static final Logger LOG = LoggerFactory.getLogger(OwnedFiles.class);
  static final String LAYOUT = "layout.properties";
  static final String SEGMENTS = "segments";
  /** The small-object engine's slot files ({@link SmallTier}); recreated at every open. */
  static final String SMALL = "small";
  static final String META = "segments.meta";
  static final String CHRONICLE_INDEX = "index.cm";
  static final String HEAP_INDEX = "index.heap";
  static final String CHECKPOINT = "index.ckpt";
  static final String CLEAN = "CLEAN";

  /** Own files of the top level that a layout change deletes (all but the lock); layout last. */
  private static final List<String> REPLACED = List.of(
      CLEAN, META, META + AtomicFile.TEMP_SUFFIX, HEAP_INDEX, HEAP_INDEX + AtomicFile.TEMP_SUFFIX,
      CHRONICLE_INDEX, CHRONICLE_INDEX + ChronicleIndex.SEAL_SUFFIX,
      CHRONICLE_INDEX + ChronicleIndex.SEAL_SUFFIX + AtomicFile.TEMP_SUFFIX,
      SequenceLease.FILE, SequenceLease.FILE + AtomicFile.TEMP_SUFFIX, CHECKPOINT, CHECKPOINT + AtomicFile.TEMP_SUFFIX,
      InvalidationJournal.FILE, BootId.FILE, BootId.FILE + AtomicFile.TEMP_SUFFIX,
      LAYOUT + AtomicFile.TEMP_SUFFIX, LAYOUT);

  private final Path directory;
  /** Own regular files of the top level: REPLACED and the lock. */
  private final Set<String> files;
  /** Name of the write trace if it lies directly in the directory, else null: accepted, never touched. */
  private final String trace;

  OwnedFiles(Path directory, Path writeTrace) {
    this.directory = directory;
    List<String> names = new ArrayList<>(REPLACED);
    names.add(DirectoryLock.FILE);
    this.files = Set.copyOf(names);
    Path t = writeTrace == null ? null : writeTrace.toAbsolutePath().normalize();
    this.trace = t != null && directory.toAbsolutePath().normalize().equals(t.getParent())
        ? t.getFileName().toString() : null;
  }

  /**
   * Throws unless the directory is absent, empty or holds only the cache's own entries; the message
   * names the directory and the first foreign entry.
   */
  void refuseForeign() throws IOException {
    Path foreign = firstForeign();
    if (foreign != null) {
      throw new IOException("refusing to open " + directory + ": it holds " + directory.relativize(foreign)
          + ", which is not a hybridcache file; a cache directory holds only the cache's own files "
          + "(use a new or empty directory)");
    }
  }

  /** The first entry (top level, in {@value #SEGMENTS}/ or {@value #SMALL}/) that is not the cache's own, or null. */
  Path firstForeign() throws IOException {
    if (!Files.exists(directory, LinkOption.NOFOLLOW_LINKS)) {
      return null;
    }
    if (!Files.isDirectory(directory)) {
      throw new IOException("cannot open a cache in " + directory + ": it is not a directory");
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
      for (Path p : entries) {
        String name = p.getFileName().toString();
        boolean own = files.contains(name) || name.equals(trace) ? Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)
            : (name.equals(SEGMENTS) || name.equals(SMALL) || name.equals(CacheConfig.COMPANION_DIRECTORY))
                && Files.isDirectory(p);
        if (!own) {
          return p;
        }
      }
    }
    for (String sub : List.of(SEGMENTS, SMALL)) {
      Path segments = directory.resolve(sub);
      if (Files.isDirectory(segments)) {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(segments)) {
          for (Path p : entries) {
            String name = p.getFileName().toString();
            boolean ownName = sub.equals(SMALL) ? SmallTier.isOwnFile(name) : FileDevice.isOwnFile(name);
            if (!ownName || !Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
              return p;
            }
          }
        }
      }
    }
    return null;
  }

  /**
   * For a layout change: deletes the cache's own files except the lock, the write trace and
   * {@code catalog/}; inside {@value #SEGMENTS}/ only slot and probe files, then the directory itself if
   * that leaves it empty (never a symbolic link). Call after {@link #refuseForeign} under the lock.
   */
  void deleteForLayoutChange() throws IOException {
    SmallTier.deleteSlotFiles(directory.resolve(SMALL)); // its directory stays (empty), as the lock file
    Path segments = directory.resolve(SEGMENTS);
    if (Files.isDirectory(segments)) {
      try (DirectoryStream<Path> entries = Files.newDirectoryStream(segments)) {
        for (Path p : entries) {
          if (FileDevice.isOwnFile(p.getFileName().toString()) && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
            Files.delete(p);
          }
        }
      }
      if (!Files.isSymbolicLink(segments)) {
        try {
          Files.delete(segments);
        } catch (DirectoryNotEmptyException e) {
          LOG.warn("{} keeps files the cache did not make; left in place", segments);
        }
      }
    }
    for (String name : REPLACED) { // the layout record last: a half-done replace still reads as a change
      Path p = directory.resolve(name);
      if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
        Files.delete(p);
      }
    }
  }

  /**
   * Gives every own file (not the write trace) {@code filePerms} and the directory and {@value #SEGMENTS}/
   * (unless a symbolic link) the matching {@link FileModes#forDirectory directory permissions}; null
   * leaves all as they are. A directory whose permissions cannot be set fails the open (its mode is what
   * keeps others out: {@code TrustedDirectory}); a file's failure is logged in one warning and leaves it as
   * it is (its directory keeps others out).
   */
  void applyPermissions(Set<PosixFilePermission> filePerms) throws IOException {
    if (filePerms == null) {
      return;
    }
    Set<PosixFilePermission> dirPerms = FileModes.forDirectory(filePerms);
    List<Path> failed = new ArrayList<>();
    setDirectory(directory, dirPerms);
    for (String name : files) {
      Path p = directory.resolve(name);
      if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
        set(p, filePerms, failed);
      }
    }
    for (String sub : List.of(SEGMENTS, SMALL)) {
      Path segments = directory.resolve(sub);
      if (Files.isDirectory(segments, LinkOption.NOFOLLOW_LINKS)) {
        setDirectory(segments, dirPerms);
      }
      if (Files.isDirectory(segments)) {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(segments)) {
          for (Path p : entries) {
            set(p, filePerms, failed);
          }
        }
      }
    }
    if (!failed.isEmpty()) {
      LOG.warn("cannot set the permissions of {} of the cache's files in {} (first: {}); "
          + "they keep theirs, and new files follow their directory", failed.size(), directory, failed.get(0));
    }
  }

  private static void setDirectory(Path dir, Set<PosixFilePermission> perms) throws IOException {
    try {
      FileModes.set(dir, perms);
    } catch (IOException | RuntimeException e) {
      throw new IOException("cannot set the permissions of the cache directory " + dir + " to "
          + java.nio.file.attribute.PosixFilePermissions.toString(perms) + " (" + e + "); refusing to use a "
          + "directory whose mode the cache cannot control", e);
    }
  }

  private static void set(Path p, Set<PosixFilePermission> perms, List<Path> failed) {
    if (!FileModes.trySet(p, perms)) {
      failed.add(p);
    }
  }
}
