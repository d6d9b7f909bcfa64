package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@link Index} contract, run over every implementation by a subclass. Each test ends with an
 * invariant check: {@code size()} equals the number of mappings {@code forEach} visits.
 */
abstract class IndexContractTest {

  @TempDir Path dir;

  Index index;

  /** A new, empty index for about {@code expectedEntries} mappings; may use {@link #dir}. */
  abstract Index newIndex(long expectedEntries);

  /**
   * The hash {@code forEach} reports for a key stored under {@code hash}: the hash itself for an exact
   * index; the compact heap index reports one hash per stored identity (stripe and tag).
   */
  long canonical(long hash) {
    return hash;
  }

  /** {@code model} with every key as {@code forEach} reports it. */
  Map<Long, Long> canonical(Map<Long, Long> model) {
    Map<Long, Long> c = new HashMap<>();
    model.forEach((h, e) -> c.put(canonical(h), e));
    return c;
  }

  @BeforeEach
  void openIndex() {
    index = newIndex(100_000);
  }

  @AfterEach
  void checkInvariantAndClose() throws Exception {
    if (index != null) {
      assertEquals(snapshot(index).size(), index.size(), "size() vs forEach");
      index.close();
    }
  }

  // ------------------------------------------------------------------ helpers shared by subclasses

  /**
   * Distinct, never 0, and of distinct identity in the compact heap index: the key whose mix has as
   * its tag (high 32 bits) {@code i + 1} times an odd constant (a bijection of 32-bit values, so tags
   * are distinct and well spread) over well-spread low bits (the stripe). Keys that share an identity
   * share a slot there by design; {@code HeapIndexTest} tests that on its own.
   */
  static long key(int i) {
    long tag = ((i + 1L) * 0x9E3779B9L) & 0xFFFF_FFFFL;
    long low = ((i + 1L) * 0x85EBCA6BL) & 0xFFFF_FFFFL;
    return HeapIndex.unmix((tag << 32) | low);
  }

  /** A valid packed entry, distinct for i below 2^20 or so. */
  static long entry(int i) {
    return IndexEntry.pack(SegmentAddress.of(1 + (i >>> 10), (i & 1023) * 16L), 512);
  }

  static Map<Long, Long> snapshot(Index index) {
    Map<Long, Long> copy = new HashMap<>();
    index.forEach((h, e) -> assertEquals(null, copy.put(h, e), "forEach visited a key twice"));
    return copy;
  }

  static Map<Long, Long> fill(Index index, int n) {
    Map<Long, Long> expected = new HashMap<>();
    for (int i = 0; i < n; i++) {
      index.put(key(i), entry(i));
      expected.put(key(i), entry(i));
    }
    return expected;
  }

  /** Runs {@code tasks} on their own threads, released together; rethrows the first failure. */
  static <T> List<T> runTogether(List<Callable<T>> tasks) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
    try {
      CyclicBarrier start = new CyclicBarrier(tasks.size());
      List<Future<T>> futures = new ArrayList<>();
      for (Callable<T> task : tasks) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return task.call();
                }));
      }
      List<T> results = new ArrayList<>();
      for (Future<T> f : futures) {
        results.add(f.get());
      }
      return results;
    } finally {
      pool.shutdownNow();
    }
  }

  // ------------------------------------------------------------------ contract

  @Test
  void emptyIndexHasNothing() {
    assertEquals(0, index.size());
    assertEquals(IndexEntry.NONE, index.get(key(1)));
    assertEquals(0, snapshot(index).size());
    assertTrue(index.memoryBytes() > 0);
  }

  @Test
  void putReturnsPreviousAndGetSeesLatest() {
    assertEquals(IndexEntry.NONE, index.put(key(1), entry(1)));
    assertEquals(entry(1), index.get(key(1)));
    assertEquals(entry(1), index.put(key(1), entry(2)));
    assertEquals(entry(2), index.get(key(1)));
    index.put(key(2), entry(3));
    assertEquals(2, index.size());
    assertEquals(IndexEntry.NONE, index.get(key(3)));
  }

  @Test
  void extremeKeysAndValues() {
    long[] keys = {Long.MIN_VALUE, Long.MAX_VALUE, -1L, 1L};
    for (long k : keys) {
      index.put(k, k == 1L ? -1L : k);
    }
    for (long k : keys) {
      assertEquals(k == 1L ? -1L : k, index.get(k));
    }
    assertEquals(4, index.size());
  }

  @Test
  void replaceIsCompareAndSet() {
    long e = entry(1);
    long accessed = IndexEntry.withAccessed(e);
    index.put(key(1), e);
    assertFalse(index.replace(key(1), entry(2), accessed), "wrong expected value");
    assertEquals(e, index.get(key(1)));
    assertTrue(index.replace(key(1), e, accessed));
    assertEquals(accessed, index.get(key(1)));
    assertFalse(index.replace(key(1), e, entry(3)), "stale expected value after the update");
    assertEquals(accessed, index.get(key(1)));
    assertFalse(index.replace(key(2), e, accessed), "absent key");
    assertFalse(index.replace(key(2), IndexEntry.NONE, accessed), "replace never inserts");
    assertEquals(IndexEntry.NONE, index.get(key(2)));
    assertEquals(1, index.size());
  }

  @Test
  void removeExpectedOnlyOnMatch() {
    index.put(key(1), entry(1));
    assertFalse(index.remove(key(1), entry(2)));
    assertFalse(index.remove(key(1), IndexEntry.NONE));
    assertEquals(entry(1), index.get(key(1)));
    assertTrue(index.remove(key(1), entry(1)));
    assertEquals(IndexEntry.NONE, index.get(key(1)));
    assertFalse(index.remove(key(1), entry(1)), "already gone");
    assertEquals(0, index.size());
  }

  @Test
  void removeReturnsPrevious() {
    index.put(key(1), entry(1));
    assertEquals(entry(1), index.remove(key(1)));
    assertEquals(IndexEntry.NONE, index.remove(key(1)));
    assertEquals(IndexEntry.NONE, index.get(key(1)));
  }

  @Test
  void zeroHashAndNoneEntryAreRejectedOrAbsent() {
    assertThrows(IllegalArgumentException.class, () -> index.put(0, entry(1)));
    assertThrows(IllegalArgumentException.class, () -> index.put(key(1), IndexEntry.NONE));
    assertThrows(IllegalArgumentException.class, () -> index.replace(0, entry(1), entry(2)));
    assertThrows(IllegalArgumentException.class, () -> index.replace(key(1), entry(1), IndexEntry.NONE));
    assertEquals(IndexEntry.NONE, index.get(0));
    assertEquals(IndexEntry.NONE, index.remove(0));
    assertFalse(index.remove(0, entry(1)));
    assertEquals(0, index.size());
  }

  @Test
  void forEachVisitsEveryMappingOnce() {
    Map<Long, Long> expected = fill(index, 5_000);
    assertEquals(canonical(expected), snapshot(index));
    assertEquals(5_000, index.size());
  }

  @Test
  void forEachVisitorMayUpdateTheIndex() {
    fill(index, 2_000);
    index.forEach(
        (h, e) -> {
          if ((Long.hashCode(h) & 1) == 0) {
            assertTrue(index.replace(h, e, IndexEntry.withAccessed(e)));
          } else {
            assertTrue(index.remove(h, e));
          }
        });
    for (int i = 0; i < 2_000; i++) {
      long h = key(i);
      long expected = (Long.hashCode(canonical(h)) & 1) == 0 ? IndexEntry.withAccessed(entry(i)) : IndexEntry.NONE;
      assertEquals(expected, index.get(h), "key " + i);
    }
  }

  @Test
  void clearRemovesEverythingAndIndexStaysUsable() {
    fill(index, 3_000);
    index.clear();
    assertEquals(0, index.size());
    assertEquals(IndexEntry.NONE, index.get(key(7)));
    assertEquals(0, snapshot(index).size());
    index.put(key(7), entry(7));
    assertEquals(entry(7), index.get(key(7)));
    assertEquals(1, index.size());
  }

  @Test
  void matchesAReferenceModelUnderRandomOperations() {
    SplittableRandom random = new SplittableRandom(7);
    Map<Long, Long> model = new HashMap<>();
    for (int op = 0; op < 100_000; op++) {
      long h = key(random.nextInt(3_000));
      long e = entry(random.nextInt(1 << 16));
      long current = model.getOrDefault(h, IndexEntry.NONE);
      switch (random.nextInt(6)) {
        case 0, 1 -> {
          assertEquals(current, index.put(h, e));
          model.put(h, e);
        }
        case 2 -> assertEquals(current, index.get(h));
        case 3 -> {
          long expected = random.nextBoolean() ? current : e;
          boolean swapped = current != IndexEntry.NONE && expected == current;
          assertEquals(swapped, index.replace(h, expected, IndexEntry.withAccessed(e)));
          if (swapped) {
            model.put(h, IndexEntry.withAccessed(e));
          }
        }
        case 4 -> {
          long expected = random.nextBoolean() ? current : e;
          boolean removed = current != IndexEntry.NONE && expected == current;
          assertEquals(removed, index.remove(h, expected));
          if (removed) {
            model.remove(h);
          }
        }
        default -> {
          assertEquals(current, index.remove(h));
          model.remove(h);
        }
      }
    }
    assertEquals(model.size(), index.size());
    assertEquals(canonical(model), snapshot(index));
  }

  /**
   * 8 threads race compare-and-set increments on 32 shared keys while churning private keys (so
   * slots move and, for the heap index, stripes rehash): every key must end at its start value plus
   * the number of successful CASes on it. Tokens test {@code remove(hash, expected)}: a thread that
   * removes a token puts it back incremented, so each token ends at 1 + successful removes.
   */
  @Test
  void concurrentCasIncrementsAreNeverLost() throws Exception {
    int threads = 8;
    int sharedKeys = 32;
    int tokens = 4;
    int opsPerThread = 20_000;
    long tokenBase = 1_000_000;
    for (int k = 0; k < sharedKeys; k++) {
      index.put(key(k), 1);
    }
    for (int k = 0; k < tokens; k++) {
      index.put(key((int) tokenBase + k), 1);
    }
    List<Callable<long[]>> tasks = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      tasks.add(
          () -> {
            SplittableRandom random = new SplittableRandom(thread);
            long[] wins = new long[sharedKeys + tokens];
            for (int op = 0; op < opsPerThread; op++) {
              int k = random.nextInt(sharedKeys);
              long v = index.get(key(k));
              assertTrue(v > 0, "shared key vanished");
              if (index.replace(key(k), v, v + 1)) {
                wins[k]++;
              }
              if ((op & 7) == 0) {
                int tk = random.nextInt(tokens);
                long token = key((int) tokenBase + tk);
                long tv = index.get(token);
                if (tv != IndexEntry.NONE && index.remove(token, tv)) {
                  wins[sharedKeys + tk]++;
                  assertEquals(IndexEntry.NONE, index.put(token, tv + 1), "token held by two threads");
                }
              }
              long own = key(2_000_000 + thread * 4_096 + (op & 4_095));
              if ((op & 1) == 0) {
                index.put(own, op + 1);
              } else {
                index.remove(own);
              }
            }
            return wins;
          });
    }
    List<long[]> results = runTogether(tasks);
    long totalWins = 0;
    for (int k = 0; k < sharedKeys + tokens; k++) {
      long sum = 0;
      for (long[] wins : results) {
        sum += wins[k];
      }
      totalWins += sum;
      long h = k < sharedKeys ? key(k) : key((int) tokenBase + k - sharedKeys);
      assertEquals(1 + sum, index.get(h), "key " + k);
    }
    assertTrue(totalWins > 0);
  }
}
