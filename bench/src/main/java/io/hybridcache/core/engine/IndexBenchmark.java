package io.hybridcache.core.engine;

import io.hybridcache.bench.BenchDirs;
import io.hybridcache.bench.jmh.Fixtures;
import io.hybridcache.core.api.IndexType;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The flash tier's hash index ({@link Index}: 64-bit key hash to packed {@link IndexEntry}), one
 * implementation per {@code index} ({@link IndexType#HEAP} striped primitive arrays,
 * {@link IndexType#CHRONICLE} Chronicle Map persisted to a file), single-threaded, average time per call.
 *
 * <p>Workload: an index pre-filled with {@code entries} (default 1,000,000) mappings from the
 * {@link KeyHash} of keys {@code user0..} to packed entries of 1 KiB values
 * (about 1 GiB of flash); each call takes the next key of a random permutation of them.
 * <ul>
 *   <li>{@code get}: lookup of a present key (a flash-tier lookup after a DRAM miss).
 *   <li>{@code getAbsent}: lookup of a key never inserted (a lookup that misses both tiers).
 *   <li>{@code put}: overwrite of a present key (installing a flash write of a key already on flash;
 *       the number of mappings stays constant).
 *   <li>{@code replace}: compare-and-set that flips the entry's accessed bit (what a flash hit does on
 *       its first read, and what reclaim's move does with another location); always succeeds.
 *   <li>{@code churn}: removal of the oldest key and insertion of a new one, so the number of mappings
 *       stays constant (what a stream of new keys does in steady state: reclaim removes the entries of
 *       the segment it evicts, the flash install inserts new ones). Keys cycle through twice
 *       {@code entries} hashes.
 * </ul>
 * The Chronicle map lives in a scratch directory under {@code target/jmh-data} (see
 * {@link Fixtures#DIR_PROPERTY}), deleted at teardown.
 *
 * <p>Run: {@code java -jar bench/target/hybridcache-bench.jar jmh -f 1 -wi 2 -i 3 -w 1s -r 1s IndexBenchmark}
 * (add {@code -p index=HEAP} for one implementation, {@code -p entries=100000} for a smaller index).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class IndexBenchmark {
  private static final int ABSENT_KEYS = 1 << 16;
  private static final int VALUE_BYTES = 1024;

  @Param({"HEAP", "CHRONICLE"})
  public IndexType index;

  @Param("1000000")
  public int entries;

  private Path dir;
  private Index map;
  private long[] hashes; // in random order
  private long[] values; // values[i] is what hashes[i] maps to now
  private long[] absent;
  private long[] churnHashes; // [entries, 2 * entries): the keys churn inserts first
  private int churnNext;
  private int next;
  private int nextAbsent;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    Fixtures.setUpOrTearDown(this::fill, this::tearDown);
  }

  private void fill() throws IOException {
    int[] order = Fixtures.permutation(entries);
    hashes = new long[entries];
    values = new long[entries];
    for (int i = 0; i < entries; i++) {
      int k = order[i];
      hashes[i] = KeyHash.of(Fixtures.key(k));
      values[i] = packed(k);
    }
    churnHashes = new long[2 * entries];
    System.arraycopy(hashes, 0, churnHashes, 0, entries);
    for (int i = 0; i < entries; i++) {
      churnHashes[entries + i] = KeyHash.of(Fixtures.key(entries + i));
    }
    absent = new long[ABSENT_KEYS];
    for (int i = 0; i < ABSENT_KEYS; i++) {
      absent[i] = KeyHash.of(Fixtures.key(-1 - i));
    }
    if (index == IndexType.CHRONICLE) {
      dir = Fixtures.scratchDir("index");
      map = ChronicleIndex.open(dir.resolve("index.dat"), entries, false);
    } else {
      map = new HeapIndex(entries);
    }
    for (int i = 0; i < entries; i++) {
      map.put(hashes[i], values[i]);
    }
    if (map.size() != entries) {
      throw new IllegalStateException(index + " index holds " + map.size() + " of " + entries + " mappings");
    }
  }

  /** Where entry {@code k} of {@value #VALUE_BYTES}-byte values would sit in 64 MiB segments. */
  private static long packed(int k) {
    int perSegment = (64 << 20) / 1088; // header 40 + key ~10 + value 1024, 16-byte aligned
    long offset = 4096 + (long) (k % perSegment) * 1088;
    return IndexEntry.pack(SegmentAddress.of(1 + k / perSegment, offset), 40 + 10 + VALUE_BYTES);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    try {
      if (map != null) {
        map.close();
      }
    } finally {
      if (dir != null) {
        BenchDirs.deleteTree(dir);
      }
    }
  }

  private int nextIndex() {
    int i = next;
    next = i + 1 == entries ? 0 : i + 1;
    return i;
  }

  @Benchmark
  public long get() {
    return map.get(hashes[nextIndex()]);
  }

  @Benchmark
  public long getAbsent() {
    int i = nextAbsent;
    nextAbsent = (i + 1) & (ABSENT_KEYS - 1);
    return map.get(absent[i]);
  }

  @Benchmark
  public long put() {
    int i = nextIndex();
    return map.put(hashes[i], values[i]);
  }

  @Benchmark
  public boolean replace() {
    int i = nextIndex();
    long cur = values[i];
    long flipped = cur ^ 1L; // the accessed bit
    if (!map.replace(hashes[i], cur, flipped)) {
      throw new IllegalStateException("replace of a present key with its current value failed");
    }
    values[i] = flipped;
    return true;
  }

  /** Removes the oldest of the {@code entries} present churn keys and inserts the next one. */
  @Benchmark
  public long churn() {
    int i = churnNext;
    int n = churnHashes.length;
    churnNext = i + 1 == n ? 0 : i + 1;
    int j = i + entries;
    if (j >= n) {
      j -= n;
    }
    long removed = map.remove(churnHashes[i]); // NONE only for the rare key sharing another's identity
    return removed ^ map.put(churnHashes[j], values[i % entries]);
  }
}
