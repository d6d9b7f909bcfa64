package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link ChronicleIndex}: the shared contract plus reopening, recovery, corruption and capacity. */
@NeedsChronicle
class ChronicleIndexTest extends IndexContractTest {

  private final AtomicInteger files = new AtomicInteger();

  @Override
  Index newIndex(long expectedEntries) {
    return ChronicleIndex.open(dir.resolve("index-" + files.incrementAndGet() + ".cmap"), expectedEntries, false);
  }

  private Path fileOf(Index i) {
    return ((ChronicleIndex) i).file();
  }

  @Test
  void loadingTheClassDisablesChronicleAnalytics() {
    assertEquals("true", System.getProperty("chronicle.analytics.disable"));
    assertEquals("true", System.getProperty("chronicle.announcer.disable"));
  }

  @Test
  void reopenKeepsContents() throws IOException {
    Map<Long, Long> expected = fill(index, 10_000);
    Path file = fileOf(index);
    index.close();
    index.close(); // idempotent
    assertTrue(Files.exists(ChronicleIndex.sealPath(file)), "clean close writes the seal");

    index = ChronicleIndex.open(file, 10_000, false);
    assertFalse(Files.exists(ChronicleIndex.sealPath(file)), "open consumes the seal");
    assertEquals(expected, snapshot(index));
    index.put(key(20_000), entry(1));
    index.close();

    index = ChronicleIndex.open(file, 123, false); // sizing of an existing file is kept
    expected.put(key(20_000), entry(1));
    assertEquals(expected, snapshot(index));
  }

  @Test
  void recoverModeKeepsContentsOfACleanFile() throws IOException {
    Map<Long, Long> expected = fill(index, 10_000);
    Path file = fileOf(index);
    index.close();
    index = ChronicleIndex.open(file, 10_000, true);
    assertEquals(expected, snapshot(index));
    index.put(key(20_000), entry(1));
    assertEquals(entry(1), index.get(key(20_000)));
  }

  /** A copy of a live, flushed file is what a crash leaves behind: no seal, segment locks as they were. */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void crashImageIsRecovered(boolean recover) throws IOException {
    Map<Long, Long> expected = fill(index, 10_000);
    index.flush();
    Path crash = dir.resolve("crash.cmap");
    Files.copy(fileOf(index), crash);
    try (Index recovered = ChronicleIndex.open(crash, 10_000, recover)) {
      assertEquals(expected, snapshot(recovered));
      assertEquals(expected.size(), recovered.size());
      recovered.put(key(20_000), entry(1));
      assertEquals(entry(1), recovered.get(key(20_000)));
    }
  }

  /**
   * Any damage after a clean close opens as an empty, working index, without throwing and without
   * Chronicle's one-minute wait for a header that is not marked ready (headerPage, wholeFile).
   */
  @ParameterizedTest
  @CsvSource({
    "middle, false", "sprinkle, false", "header, false", "headerPage, false", "wholeFile, false",
    "truncateHalf, false", "truncateTiny, false", "garbage, false",
    "headerPage, true", "wholeFile, true", "truncateTiny, true", "garbage, true"
  })
  void corruptFileOpensEmpty(String damage, boolean recover) throws IOException {
    fill(index, 10_000);
    Path file = fileOf(index);
    index.close();
    damage(file, damage);

    long start = System.nanoTime();
    index = ChronicleIndex.open(file, 10_000, recover);
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertTrue(millis < 20_000, "open took " + millis + " ms");
    assertEquals(0, index.size());
    assertEquals(IndexEntry.NONE, index.get(key(1)));
    index.put(key(1), entry(1));
    assertEquals(entry(1), index.get(key(1)));
    index.close();
    index = ChronicleIndex.open(file, 10_000, false);
    assertEquals(1, index.size(), "the fresh file persists normally");
  }

  /** Recovery after damage keeps what it can; whatever it keeps is right. */
  @ParameterizedTest
  @ValueSource(strings = {"middle", "sprinkle", "truncateHalf"})
  void recoveryOfDamagedFileKeepsOnlyCorrectEntries(String damage) throws IOException {
    Map<Long, Long> expected = fill(index, 10_000);
    Path file = fileOf(index);
    index.close();
    damage(file, damage);

    index = ChronicleIndex.open(file, 10_000, true);
    Map<Long, Long> kept = snapshot(index);
    assertTrue(kept.size() <= expected.size());
    kept.forEach((h, e) -> assertEquals(expected.get(h), e, "recovered entry " + h));
    index.put(key(20_000), entry(1));
    assertEquals(entry(1), index.get(key(20_000)));
  }

  @Test
  void fullIndexThrowsIndexFullExceptionAndStaysUsable() throws IOException {
    index.close();
    index = ChronicleIndex.open(dir.resolve("small.cmap"), 1_000, false);
    IndexFullException full = null;
    int i = 0;
    for (; i < 1_000_000 && full == null; i++) {
      try {
        index.put(key(i), entry(i));
      } catch (IndexFullException e) {
        full = e;
      }
    }
    assertNotNull(full, "a map sized for 1000 took a million entries");
    int stored = i - 1;
    System.out.printf("ChronicleIndex sized for 1000 entries was full at %d%n", stored);
    assertTrue(stored >= 1_000, "full before its expected size: " + stored);
    assertEquals(stored, index.size());
    assertEquals(IndexEntry.NONE, index.get(key(stored)), "the refused put left nothing");
    assertEquals(entry(0), index.get(key(0)));
    assertEquals(entry(0), index.put(key(0), entry(1)), "updating a present key still works");
    assertEquals(stored, snapshot(index).size(), "forEach sees every tier");
    index.clear();
    index.put(key(stored), entry(stored));
    assertEquals(entry(stored), index.get(key(stored)), "room again after clear");
  }

  private static void damage(Path file, String how) throws IOException {
    Random random = new Random(42);
    long length = Files.size(file);
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      switch (how) {
        case "middle" -> overwrite(raf, length / 2, 4096, random);
        case "sprinkle" -> {
          for (int i = 0; i < 100; i++) {
            raf.seek(12 + (long) (random.nextDouble() * (length - 12)));
            raf.write(random.nextInt(256));
          }
        }
        case "header" -> overwrite(raf, 16, 64, random);
        case "headerPage" -> overwrite(raf, 0, 4096, random);
        case "wholeFile" -> overwrite(raf, 0, (int) length, random);
        case "truncateHalf" -> raf.setLength(length / 2);
        case "truncateTiny" -> raf.setLength(100);
        case "garbage" -> {
          raf.setLength(0);
          overwrite(raf, 0, 5000, random);
        }
        default -> throw new AssertionError(how);
      }
    }
  }

  private static void overwrite(RandomAccessFile raf, long position, int length, Random random)
      throws IOException {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    raf.seek(position);
    raf.write(bytes);
  }
}
