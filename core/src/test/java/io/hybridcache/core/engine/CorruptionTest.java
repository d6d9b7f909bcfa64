package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Random byte flips in segment files and in the index file: detected, never a wrong value, no exception. */
class CorruptionTest {
  private static final int KEYS = 1500;
  @TempDir Path dir;

  private CacheConfig fill(IndexType index) {
    CacheConfig cfg = TestCaches.small(dir, index).build();
    try (Engine c = TestCaches.open(cfg)) {
      for (int i = 0; i < KEYS; i++) {
        c.put(key(i), value(i, 1, 300));
      }
    }
    return cfg;
  }

  @Test
  void flippedSegmentBytesAreMissesNotWrongValues() throws IOException {
    flippedSegmentBytesAreMissesNotWrongValues(IndexType.HEAP);
  }

  @Test
  @NeedsChronicle
  void flippedSegmentBytesAreMissesNotWrongValuesOnChronicle() throws IOException {
    flippedSegmentBytesAreMissesNotWrongValues(IndexType.CHRONICLE);
  }

  private void flippedSegmentBytesAreMissesNotWrongValues(IndexType index) throws IOException {
    CacheConfig cfg = fill(index);
    Random rnd = new Random(42);
    List<Path> slots;
    try (Stream<Path> s = Files.list(dir.resolve("segments"))) {
      slots = s.filter(p -> p.toString().endsWith(".seg")).sorted().toList();
    }
    for (int i = 0; i < 400; i++) {
      flip(slots.get(rnd.nextInt(slots.size())), rnd, TestCaches.SEGMENT);
    }
    int hits;
    long corrupt;
    try (Engine c = TestCaches.open(cfg)) {
      hits = assertNoWrongValue(c);
      corrupt = c.stats().corruptReads();
    }
    assertTrue(corrupt > 0, "flips must be detected");
    assertTrue(hits > KEYS / 2, "undamaged entries still hit: " + hits);
  }

  @Test
  @NeedsChronicle
  void flippedChronicleIndexBytesAreDetected() throws IOException {
    CacheConfig cfg = fill(IndexType.CHRONICLE);
    Path indexFile = dir.resolve("index.cm");
    Random rnd = new Random(7);
    long len = Files.size(indexFile);
    for (int i = 0; i < 200; i++) {
      flip(indexFile, rnd, len);
    }
    try (Engine c = TestCaches.open(cfg)) {
      assertNoWrongValue(c);
      // the checksum caught the damage: the index was discarded rather than trusted
      assertTrue(c.stats().flashEntries() == 0, "a damaged index must not be trusted");
    }
  }

  @Test
  @NeedsChronicle
  void flippedIndexBytesAfterACrashAreStillSafe() throws IOException {
    CacheConfig cfg = fill(IndexType.CHRONICLE);
    Files.delete(dir.resolve("CLEAN")); // as if killed: no checksum verification, recovery path
    Path indexFile = dir.resolve("index.cm");
    Random rnd = new Random(11);
    long len = Files.size(indexFile);
    for (int i = 0; i < 50; i++) {
      flip(indexFile, rnd, len);
    }
    try (Engine c = TestCaches.open(cfg)) {
      assertNoWrongValue(c);
      for (int i = 0; i < KEYS; i++) {
        c.put(key(i + KEYS), value(i + KEYS, 1, 100)); // the recovered index still takes writes
      }
    }
  }

  /** Every key reads as a miss or as exactly what was written; returns the hits. */
  private static int assertNoWrongValue(Engine c) {
    int hits = 0;
    for (int i = 0; i < KEYS; i++) {
      byte[] v = c.get(key(i));
      if (v != null) {
        hits++;
        assertArrayEquals(value(i, 1, 300), v, "key " + i);
      }
    }
    return hits;
  }

  private static void flip(Path file, Random rnd, long len) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      long pos = (long) (rnd.nextDouble() * Math.min(len, f.length()));
      f.seek(pos);
      int b = f.read();
      f.seek(pos);
      f.write(b ^ (1 << rnd.nextInt(8)));
    }
  }
}
