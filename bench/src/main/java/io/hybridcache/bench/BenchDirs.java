package io.hybridcache.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Scratch directories the benchmarks own. A directory is wiped only if it is empty, absent, or
 * carries the marker file {@value #MARKER} that {@link #prepare(Path)} leaves, so a mistyped
 * {@code --dir} never deletes someone else's files. Thread-safe: stateless.
 */
public final class BenchDirs {
  public static final String MARKER = ".hybridcache-bench";

  private BenchDirs() {}

  /** Empties (or creates) {@code dir} and marks it as a benchmark directory. */
  public static Path prepare(Path dir) throws IOException {
    Path abs = dir.toAbsolutePath().normalize();
    if (Files.exists(abs)) {
      if (!Files.isDirectory(abs)) {
        throw new IOException(abs + " exists and is not a directory");
      }
      boolean empty;
      try (Stream<Path> s = Files.list(abs)) {
        empty = s.findAny().isEmpty();
      }
      if (!empty && !Files.exists(abs.resolve(MARKER))) {
        throw new IOException("refusing to wipe " + abs + ": it is not empty and has no " + MARKER
            + " marker (not made by this tool); pass another --dir or empty it yourself");
      }
      deleteContents(abs);
    }
    Files.createDirectories(abs);
    Files.writeString(abs.resolve(MARKER), "scratch directory of hybridcache-bench; wiped on each run\n");
    return abs;
  }

  /** Deletes {@code dir} and everything under it (a temporary directory a benchmark made). */
  public static void deleteTree(Path dir) throws IOException {
    deleteContents(dir);
    Files.deleteIfExists(dir.resolve(MARKER));
    Files.deleteIfExists(dir);
  }

  /** Deletes everything under {@code dir} except the marker; leaves {@code dir} itself. */
  public static void deleteContents(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder())
          .filter(p -> !p.equals(dir) && !p.equals(dir.resolve(MARKER)))
          .forEach(p -> {
            try {
              Files.delete(p);
            } catch (IOException e) {
              throw new UncheckedIOException("cannot delete " + p, e);
            }
          });
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
