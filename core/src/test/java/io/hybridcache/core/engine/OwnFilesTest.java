package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.api.LayoutChange;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cache deletes only files it made: it refuses a directory holding anything else (naming it and
 * leaving it in place), and a layout change replaces only its own files, or refuses with
 * {@link LayoutChange#FAIL}.
 */
@NeedsChronicle
class OwnFilesTest {
  @TempDir Path tmp;

  private Path dir() {
    return tmp.resolve("cache");
  }

  private CacheConfig.Builder config() {
    return TestCaches.small(dir(), IndexType.CHRONICLE);
  }

  /** Opens, writes 300 entries through to flash, closes: a cache directory with every kind of own file. */
  private void fill(CacheConfig c) {
    try (Engine e = TestCaches.open(c)) {
      for (int i = 0; i < 300; i++) {
        e.put(key(i), value(i, 1, 500));
      }
      e.writeBackAndDropDram();
    }
  }

  private static String openFailure(CacheConfig c) {
    UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> TestCaches.open(c).close());
    return e.getMessage();
  }

  private List<Path> slotFiles() throws IOException {
    try (Stream<Path> s = Files.list(dir().resolve("segments"))) {
      return s.sorted().toList();
    }
  }

  @Test
  void aForeignFileIsRefusedNamedAndLeftAlone() throws IOException {
    Files.createDirectories(dir());
    Path notes = Files.writeString(dir().resolve("notes.txt"), "mine");
    String m = openFailure(config().build());
    assertTrue(m.contains(dir().toString()) && m.contains("notes.txt"), m);
    assertEquals("mine", Files.readString(notes));
    try (Stream<Path> s = Files.list(dir())) {
      assertEquals(List.of(notes), s.toList(), "a refused directory gets nothing, not even a LOCK file");
    }
  }

  @Test
  void aForeignFileInSegmentsIsRefusedNamedAndLeftAlone() throws IOException {
    fill(config().build());
    Files.writeString(dir().resolve("segments.meta.tmp"), "torn"); // what a crash may leave: ours
    Files.writeString(dir().resolve("segments").resolve(".direct-io-probe"), "left");
    try (Engine e = TestCaches.open(config().build())) {
      assertArrayEquals(value(1, 1, 500), e.get(key(1)), "own leftovers are no reason to refuse");
    }
    Path mine = Files.writeString(dir().resolve("segments").resolve("mine.txt"), "mine");
    String m = openFailure(config().build());
    assertTrue(m.contains(dir().toString()) && m.contains(Path.of("segments", "mine.txt").toString()), m);
    assertEquals("mine", Files.readString(mine));
  }

  @Test
  void aLayoutChangeInADirectoryWithAForeignFileDeletesNothing() throws IOException {
    fill(config().build());
    Path other = Files.createDirectory(dir().resolve("backup"));
    Files.writeString(other.resolve("data"), "mine");
    List<Path> slots = slotFiles();
    String layout = Files.readString(dir().resolve("layout.properties"));
    String m = openFailure(config().segmentBytes(2 * TestCaches.SEGMENT).build());
    assertTrue(m.contains(dir().toString()) && m.contains("backup"), m);
    assertEquals("mine", Files.readString(other.resolve("data")));
    assertEquals(slots, slotFiles());
    assertEquals(layout, Files.readString(dir().resolve("layout.properties")));
    assertTrue(Files.exists(dir().resolve("index.cm")) && Files.exists(dir().resolve("CLEAN")));
  }

  @Test
  void aLayoutChangeReplacesOwnFilesAndKeepsTheCatalogueAndTheLock() throws IOException {
    Path trace = dir().resolve("trace.csv"); // a write trace inside the directory is accepted and kept
    fill(config().writeTrace(trace).build());
    Path catalog = Files.createDirectories(dir().resolve("catalog"));
    Files.writeString(catalog.resolve("catalog.properties"), "kept");
    int slotsBefore = slotFiles().size();
    assertTrue(slotsBefore > 0);
    long traceBytes = Files.size(trace);

    CacheConfig bigger = TestCaches.small(dir(), IndexType.HEAP).flashBytes(32L * TestCaches.SEGMENT)
        .writeTrace(trace).build();
    try (Engine e = TestCaches.open(bigger)) {
      assertNull(e.get(key(1)), "started cold");
      assertEquals(0, e.stats().flashEntries());
      assertTrue(slotFiles().isEmpty(), "the old slot files are gone");
      assertFalse(Files.exists(dir().resolve("index.cm")), "and the other index type's file");
      assertTrue(Files.exists(dir().resolve("LOCK")));
    }
    assertEquals("kept", Files.readString(catalog.resolve("catalog.properties")));
    assertTrue(Files.size(trace) > traceBytes, "the trace is appended to, not replaced");
    assertTrue(Files.readString(dir().resolve("layout.properties")).contains("segmentCount=32"));
  }

  @Test
  void failOnLayoutChangeRefusesNamingBothLayoutsAndKeepsEverything() throws IOException {
    fill(config().build());
    List<Path> slots = slotFiles();
    CacheConfig other = config().segmentBytes(2 * TestCaches.SEGMENT).flashBytes(32L * TestCaches.SEGMENT)
        .onLayoutChange(LayoutChange.FAIL).build();
    String m = openFailure(other);
    assertTrue(m.contains(dir().toString()), m);
    assertTrue(m.contains("segmentBytes=" + TestCaches.SEGMENT) && m.contains("segmentBytes=" + 2 * TestCaches.SEGMENT), m);
    assertEquals(slots, slotFiles());
    try (Engine e = TestCaches.open(config().onLayoutChange(LayoutChange.FAIL).build())) {
      assertArrayEquals(value(1, 1, 500), e.get(key(1)), "the old settings still open it warm");
    }
  }

  @Test
  void failOnLayoutChangeAlsoRefusesSegmentsWithoutALayoutRecord() throws IOException {
    fill(config().build());
    Files.delete(dir().resolve("layout.properties"));
    String m = openFailure(config().onLayoutChange(LayoutChange.FAIL).build());
    assertTrue(m.contains(dir().toString()) && m.contains("layout.properties missing"), m);
  }
}
