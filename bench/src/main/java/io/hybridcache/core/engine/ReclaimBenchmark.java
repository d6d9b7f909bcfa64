package io.hybridcache.core.engine;

import io.hybridcache.bench.BenchDirs;
import io.hybridcache.bench.jmh.Fixtures;
import io.hybridcache.core.api.VictimPolicy;
import io.hybridcache.core.device.Device;
import io.hybridcache.core.device.DeviceCounters;
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
 * Reclaim of one sealed segment ({@link Reclaimer#reclaim}), one call per iteration (single shot),
 * milliseconds.
 *
 * <p>Workload: before each iteration, a fresh segment table, writer and {@link HeapIndex} over the same
 * O_DIRECT device (4 slot files of 16 MiB in a scratch directory under {@code target/jmh-data}, see
 * {@link Fixtures#DIR_PROPERTY}; deleted at teardown); one segment filled with entries of keys
 * {@code user0..} and 1 KiB values (about 15,400 entries), indexed, sealed and wholly on the device
 * with its summary. Then a random {@code garbage} share of its entries is unlinked from the index (as
 * updates and removals do) and a {@code hot} share of the remaining live ones gets its accessed bit (as a
 * flash hit does). The measured call reclaims the segment as the flash writer does when free slots run
 * low: hot entries are verified and reinserted into a SURVIVOR segment (appends through the write
 * buffer, flushed with O_DIRECT when it fills), the other live ones are unlinked, the slot is freed;
 * reinsert-everything (live bytes under {@code reinsertAllBelowLiveRatio}) is off. Which way the victim
 * is read depends on the share to move:
 * <ul>
 *   <li>at most 25% of the entries (garbage 0.5 / hot 0.1, garbage 0.9 / hot 0.1 or 1.0): its summary
 *       (16 bytes per entry, read from the tail), then one device read per reinserted entry;
 *   <li>more (garbage 0.5 / hot 1.0): a sequential read of the whole segment in 4 MiB chunks.
 * </ul>
 * After each iteration the outcome is checked (victim released, every hot entry reinserted, every other
 * live entry unlinked; the iteration fails otherwise), and the device reads per reclaim are printed at
 * the end.
 *
 * <p>The benchmark assembles the flash tier's public parts (FileDevice, SegmentTable, SegmentWriter,
 * HeapIndex, Reclaimer) as {@code FlashTier} does; no engine and no hook into it.
 *
 * <p>Run: {@code java -jar bench/target/hybridcache-bench.jar jmh -f 1 -wi 3 -i 10 ReclaimBenchmark}
 * ({@code -w}/{@code -r} do not apply: each iteration is one call).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 5)
@Measurement(iterations = 20)
public class ReclaimBenchmark {
  private static final int SEGMENT_BYTES = WriteBufferBenchmark.SEGMENT_BYTES;
  private static final int SLOTS = 4;
  private static final int VALUE_BYTES = 1024;
  /** More keys than one segment holds. */
  private static final int KEYS = 1 << 15;

  @Param({"0.5", "0.9"})
  public double garbage;

  @Param({"0.1", "1.0"})
  public double hot;

  private Path dir;
  private Device device;
  private byte[][] keys;
  private long[] hashes;
  private byte[] value;

  // one iteration's victim
  private SegmentRig rig;
  private HeapIndex index;
  private Reclaimer reclaimer;
  private Segment victim;
  private int live;
  private int hotEntries;
  private DeviceCounters.Snapshot before;

  // totals over the trial
  private int reclaims;
  private long entries;
  private long reads;
  private long bytesRead;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    Fixtures.setUpOrTearDown(this::open, this::tearDown);
  }

  private void open() throws IOException {
    dir = Fixtures.scratchDir("reclaim");
    device = SegmentRig.fileDevice(dir, SLOTS, SEGMENT_BYTES);
    keys = Fixtures.keys(KEYS);
    hashes = EngineFixtures.hashes(keys);
    value = Fixtures.value(VALUE_BYTES);
  }

  @Setup(Level.Iteration)
  public void fillVictim() throws IOException {
    rig = new SegmentRig(device, WriteBufferBenchmark.BUFFER_BYTES, false);
    index = new HeapIndex(KEYS);
    long[] packed = new long[KEYS];
    long first = IndexEntry.NONE;
    int n = 0;
    while (true) {
      long p = rig.append(hashes[n], keys[n], value);
      if (first == IndexEntry.NONE) {
        first = IndexEntry.segmentTag(p);
      } else if (IndexEntry.segmentTag(p) != first) {
        break; // entry n opened the next segment, which sealed the victim
      }
      index.put(hashes[n], p);
      packed[n++] = p;
    }
    rig.writer.awaitFlushes(); // the victim's last buffer and summary are on the device
    victim = rig.table.get(first);
    int[] order = Fixtures.permutation(n);
    int unlinked = (int) Math.round(garbage * n);
    live = n - unlinked;
    hotEntries = (int) Math.round(hot * live);
    for (int j = 0; j < n; j++) {
      int k = order[j];
      if (j < unlinked) {
        index.remove(hashes[k]);
        victim.addGarbage(IndexEntry.sizeBytes(packed[k]));
      } else if (j < unlinked + hotEntries) {
        index.replace(hashes[k], packed[k], IndexEntry.withAccessed(packed[k]));
      }
    }
    reclaimer = new Reclaimer(device, rig.table, index, rig.writer, rig.counters, VictimPolicy.greedy(), 0.0,
        Double.POSITIVE_INFINITY, (long) SLOTS * SEGMENT_BYTES, false, rig::sequence, System::currentTimeMillis);
    entries += n;
    before = device.counters().snapshot();
  }

  @Benchmark
  public Segment reclaim() throws IOException {
    reclaimer.reclaim(victim);
    return victim;
  }

  /** Fails the iteration unless reclaim did what the javadoc says. */
  @TearDown(Level.Iteration)
  public void check() throws IOException {
    DeviceCounters.Snapshot d = device.counters().snapshot().minus(before);
    reads += d.reads();
    bytesRead += d.bytesRead();
    reclaims++;
    long moved = rig.counters.reinserted.sum();
    long evicted = rig.counters.reclaimEvicted.sum();
    rig.close();
    if (rig.table.get(victim.id()) != null || moved != hotEntries || evicted != live - hotEntries) {
      throw new IllegalStateException("reclaim of a segment with " + live + " live entries, " + hotEntries
          + " hot: reinserted " + moved + ", evicted " + evicted + ", victim "
          + (rig.table.get(victim.id()) == null ? "released" : "still there"));
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    if (reclaims > 0) {
      System.out.printf("%ngarbage %.1f, hot %.1f: per reclaim %d entries, %d device reads, %d KiB read%n",
          garbage, hot, entries / reclaims, reads / reclaims, bytesRead / reclaims / 1024);
    }
    try {
      if (device != null) {
        device.close();
      }
    } finally {
      if (dir != null) {
        BenchDirs.deleteTree(dir);
      }
    }
  }
}
