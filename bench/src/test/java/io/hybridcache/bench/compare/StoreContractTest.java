package io.hybridcache.bench.compare;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every store of the comparison against the {@link KvStore} contract, on real files: round trip,
 * overwrite, delete, many threads, and a data set four times the DRAM budget (a disk-backed store
 * must return every value, our hybrid cache most, a DRAM-only one may miss; none returns a wrong value).
 */
class StoreContractTest {
  /** Enough for ours' default write buffers (8 MiB) and index beside a DRAM tier, as the comparison charges them. */
  private static final long BUDGET = 24L << 20;
  @TempDir
  Path dir;

  /** The stores a plain JVM runs: every one but those that open Chronicle Map. */
  static Stream<StoreType> plainStores() {
    return Stream.of(StoreType.values()).filter(t -> !t.opensChronicle());
  }

  /** The stores that open Chronicle Map: run in the test JVM with its flags (tag "chronicle"). */
  static Stream<StoreType> chronicleStores() {
    return Stream.of(StoreType.values()).filter(StoreType::opensChronicle);
  }

  /** The whole contract for the stores that open Chronicle Map, in the test JVM with its flags. */
  @ParameterizedTest
  @MethodSource("chronicleStores")
  @Tag("chronicle")
  void theContractOnChronicle(StoreType type) throws Exception {
    roundTripOverwriteDeleteOf(type);
    fourTimesTheBudgetNeverReturnsAWrongValueOf(type);
    manyThreadsReadTheirOwnLastWriteOf(type);
  }

  private KvStore open(StoreType type) {
    return type.open(new StoreSettings(dir.resolve(type.cliName()), BUDGET, 512L << 20, 120_000, 1_100));
  }

  private static byte[] value(String key, int version, int length) {
    byte[] v = new byte[length];
    byte[] k = (key + "#" + version).getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < length; i++) {
      v[i] = k[i % k.length];
    }
    return v;
  }

  @ParameterizedTest
  @MethodSource("plainStores")
  void roundTripOverwriteDelete(StoreType type) throws Exception {
    roundTripOverwriteDeleteOf(type);
  }

  private void roundTripOverwriteDeleteOf(StoreType type) throws Exception {
    try (KvStore s = open(type)) {
      assertNull(s.get("user1"));
      s.put("user1", value("user1", 1, 1_000));
      assertArrayEquals(value("user1", 1, 1_000), s.get("user1"));
      s.put("user1", value("user1", 2, 700));
      assertArrayEquals(value("user1", 2, 700), s.get("user1"));
      assertTrue(s.delete("user1"));
      assertNull(s.get("user1"));
      assertFalse(s.describe().isBlank());
    }
  }

  @ParameterizedTest
  @MethodSource("plainStores")
  void fourTimesTheBudgetNeverReturnsAWrongValue(StoreType type) throws Exception {
    fourTimesTheBudgetNeverReturnsAWrongValueOf(type);
  }

  private void fourTimesTheBudgetNeverReturnsAWrongValueOf(StoreType type) throws Exception {
    int n = (int) (4 * BUDGET / 1_000);
    try (KvStore s = open(type)) {
      for (int i = 0; i < n; i++) {
        s.put("user" + i, value("user" + i, 1, 1_000));
      }
      int found = 0;
      for (int i = 0; i < n; i++) {
        byte[] v = s.get("user" + i);
        if (v != null) {
          assertArrayEquals(value("user" + i, 1, 1_000), v, "user" + i);
          found++;
        }
      }
      if (type.keepsEverything()) {
        assertEquals(n, found, "a disk-backed store must keep every record");
      } else if (type.diskBacked()) {
        // DRAM holds under a quarter of them: more than half found means flash holds the rest
        assertTrue(found > n / 2, "a hybrid cache keeps most records on flash, found " + found + " of " + n);
      } else {
        assertTrue(found < n, "a DRAM-only store cannot hold 4x its budget, found " + found + " of " + n);
      }
    }
  }

  @ParameterizedTest
  @MethodSource("plainStores")
  void manyThreadsReadTheirOwnLastWrite(StoreType type) throws Exception {
    manyThreadsReadTheirOwnLastWriteOf(type);
  }

  private void manyThreadsReadTheirOwnLastWriteOf(StoreType type) throws Exception {
    int threads = 8;
    int keys = 200;
    CyclicBarrier start = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (KvStore s = open(type)) {
      List<Future<Integer>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int id = t;
        done.add(pool.submit(() -> {
          start.await();
          int checked = 0;
          for (int round = 0; round < 5; round++) {
            for (int i = 0; i < keys; i++) {
              String k = "t" + id + "-" + i;
              s.put(k, value(k, round, 300 + i));
              byte[] v = s.get(k);
              // a cache may already have evicted it; what it returns must be this round's value
              if (v != null && !Arrays.equals(value(k, round, 300 + i), v)) {
                throw new AssertionError(type + ": " + k + " read an older or foreign value");
              }
              checked++;
            }
          }
          return checked;
        }));
      }
      for (Future<Integer> f : done) {
        assertEquals(5 * keys, f.get());
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
