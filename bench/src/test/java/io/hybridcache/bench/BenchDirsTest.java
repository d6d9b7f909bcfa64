package io.hybridcache.bench;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchDirsTest {
  @TempDir
  Path tmp;

  @Test
  void wipesOnlyItsOwnDirectories() throws IOException {
    Path foreign = tmp.resolve("foreign");
    Files.createDirectories(foreign);
    Files.writeString(foreign.resolve("precious"), "x");
    assertThrows(IOException.class, () -> BenchDirs.prepare(foreign));
    assertTrue(Files.exists(foreign.resolve("precious")));

    Path own = tmp.resolve("own");
    BenchDirs.prepare(own);
    Files.createDirectories(own.resolve("cache/sub"));
    Files.writeString(own.resolve("cache/sub/" + BenchDirs.MARKER), "nested");
    BenchDirs.prepare(own);
    assertFalse(Files.exists(own.resolve("cache")));
    assertTrue(Files.exists(own.resolve(BenchDirs.MARKER)));
  }
}
