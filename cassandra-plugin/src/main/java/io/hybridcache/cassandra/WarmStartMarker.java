package io.hybridcache.cassandra;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The provider's own permission for a warm start: the file {@value #FILE_NAME} in the flash tier's
 * directory, written (and synced) only after the row cache closed at the end of Cassandra's drain with
 * no invalidation refused, and removed (and the removal synced) at every start before the cache serves
 * anything and on the first invalidation refused after the close. So a start finds it only when the
 * previous run ended with a clean drain that lost no write's invalidation.
 *
 * <p>Not thread-safe on its own: {@link HybridRowCache} calls {@link #write} and {@link #delete} under
 * one lock. Failures are returned (and left to the caller to log), never thrown: it runs inside
 * Cassandra's drain and write paths.
 */
final class WarmStartMarker {
  static final String FILE_NAME = "cassandra-warm-start";
  static final String EPOCH = "epoch=";
  /** The {@link SSTableFingerprint} at the close: a warm start needs the same one. */
  static final String SSTABLES = "sstables=";
  /** The marker's format: a marker of another format (an older version's) allows no warm start. */
  static final String FORMAT = "format=";
  static final String CURRENT_FORMAT = "2";
  /** A table with entries on flash ("TABLE-UUID"): floored at the next clean close if it does not cache rows. */
  static final String STORED = "stored=";
  /** One table's invalidation floor ({@link InvalidationRecords}): "TABLE-UUID EPOCH". */
  static final String FLOOR = "floor=";

  private final Path file;

  WarmStartMarker(Path directory) {
    this.file = directory.resolve(FILE_NAME);
  }

  Path file() {
    return file;
  }

  boolean exists() {
    return Files.exists(file);
  }

  /**
   * The invalidation clock the closed run ended at (line {@value #EPOCH}N), so a warm start stamps and
   * records above every value stored before; empty if there is no marker or it has no such line (then
   * the start must be cold).
   */
  java.util.OptionalLong epoch() {
    try {
      java.util.List<String> v = values(EPOCH);
      if (!v.isEmpty()) {
        return java.util.OptionalLong.of(Long.parseLong(v.get(0).trim()));
      }
    } catch (RuntimeException e) {
      // malformed: no warm start
    }
    return java.util.OptionalLong.empty();
  }

  /**
   * What follows {@code prefix} on each line that starts with it, in file order; empty if there is no
   * marker or it cannot be read (then {@link #epoch()} is empty too, and the start is cold).
   */
  java.util.List<String> values(String prefix) {
    java.util.List<String> out = new java.util.ArrayList<>();
    try {
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        if (line.startsWith(prefix)) {
          out.add(line.substring(prefix.length()));
        }
      }
    } catch (IOException | RuntimeException e) {
      return java.util.List.of(); // no marker, unreadable
    }
    return out;
  }

  /** Writes the marker durably (temporary file, sync, rename, directory sync); null or the failure. */
  IOException write(String content) {
    Path tmp = file.resolveSibling(FILE_NAME + ".tmp");
    try {
      Files.createDirectories(file.getParent());
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer b = ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8));
        while (b.hasRemaining()) {
          ch.write(b);
        }
        ch.force(true);
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      syncDirectory();
      return null;
    } catch (IOException | RuntimeException e) {
      return e instanceof IOException io ? io : new IOException(e);
    }
  }

  /** Removes the marker durably (a missing marker is fine); null or the failure. */
  IOException delete() {
    try {
      if (Files.deleteIfExists(file)) {
        syncDirectory();
      }
      Files.deleteIfExists(file.resolveSibling(FILE_NAME + ".tmp"));
      return null;
    } catch (IOException | RuntimeException e) {
      return e instanceof IOException io ? io : new IOException(e);
    }
  }

  private void syncDirectory() throws IOException {
    try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
      dir.force(true);
    }
  }
}
