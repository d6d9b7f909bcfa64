package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DRAM bytes per mapping ({@code memoryBytes() / size()}) at 1M mappings, the figure behind "DRAM
 * bytes per flash entry". Prints one line per configuration; run alone with {@code mvn -B -q -f
 * core/pom.xml test -Dtest=IndexMemoryTest}.
 */
class IndexMemoryTest {

  private static final int N = 1_000_000;

  @TempDir Path dir;

  @Test
  void heapIndexSizedForOneMillion() {
    double perEntry = fillAndReport("HeapIndex(expected 1M)", new HeapIndex(N));
    assertTrue(perEntry <= 16, "HeapIndex bytes per entry: " + perEntry);
  }

  @Test
  void heapIndexGrownFromEmpty() {
    double perEntry = fillAndReport("HeapIndex(expected 0, grown)", new HeapIndex(0));
    assertTrue(perEntry <= 16, "HeapIndex bytes per entry: " + perEntry);
  }

  /** Memory follows the entries held: at every tenth of the expected count, at most 16 B per entry. */
  @Test
  void heapIndexStaysCompactAtEveryFill() {
    HeapIndex index = new HeapIndex(N);
    for (int i = 0; i < N; i++) {
      index.put(IndexContractTest.key(i), IndexContractTest.entry(i & 0xFFFFF));
      if ((i + 1) % (N / 10) == 0) {
        double perEntry = (double) index.memoryBytes() / index.size();
        System.out.printf("HeapIndex(expected 1M) at %,d entries: %.1f bytes/entry%n", i + 1, perEntry);
        assertTrue(perEntry <= 16, "at " + (i + 1) + " entries: " + perEntry + " bytes per entry");
      }
    }
  }

  /**
   * Memory follows the entries as they leave too (reclaim evicting more than is admitted): at every
   * tenth on the way down, at most 16 B per entry, and every remaining key still found.
   */
  @Test
  void heapIndexShrinksAsEntriesLeave() {
    HeapIndex index = new HeapIndex(N);
    for (int i = 0; i < N; i++) {
      index.put(IndexContractTest.key(i), IndexContractTest.entry(i & 0xFFFFF));
    }
    for (int i = 0; i < N * 9 / 10; i++) {
      assertEquals(IndexContractTest.entry(i & 0xFFFFF), index.remove(IndexContractTest.key(i)));
      int left = N - i - 1;
      if (left % (N / 10) == 0) {
        double perEntry = (double) index.memoryBytes() / index.size();
        System.out.printf("HeapIndex(expected 1M) down to %,d entries: %.1f bytes/entry%n", left, perEntry);
        assertEquals(left, index.size());
        assertTrue(perEntry <= 16, "at " + left + " entries: " + perEntry + " bytes per entry");
      }
    }
    for (int i = N * 9 / 10; i < N; i++) {
      assertEquals(IndexContractTest.entry(i & 0xFFFFF), index.get(IndexContractTest.key(i)), "key " + i);
    }
  }

  @Test
  @NeedsChronicle
  void chronicleIndexSizedForOneMillion() throws Exception {
    try (ChronicleIndex index = ChronicleIndex.open(dir.resolve("m.cmap"), N, false)) {
      long empty = index.memoryBytes();
      double perEntry = fillAndReport("ChronicleIndex(expected 1M)", index);
      System.out.printf("  ChronicleIndex empty: %,d bytes (preallocated)%n", empty);
      assertTrue(perEntry > 0);
    }
  }

  private static double fillAndReport(String name, Index index) {
    for (int i = 0; i < N; i++) {
      index.put(IndexContractTest.key(i), IndexContractTest.entry(i & 0xFFFFF));
    }
    assertEquals(N, index.size());
    long bytes = index.memoryBytes();
    double perEntry = (double) bytes / index.size();
    System.out.printf("%s: %,d entries, %,d bytes, %.1f bytes/entry%n", name, index.size(), bytes, perEntry);
    return perEntry;
  }
}
