package io.hybridcache.core.engine;

import io.hybridcache.bench.BenchDirs;
import io.hybridcache.bench.jmh.Fixtures;
import io.hybridcache.core.device.Device;
import io.hybridcache.core.device.MemoryDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
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
 * The flash tier's append path, single-threaded (the flash writer thread's work per DRAM eviction),
 * average time per entry.
 *
 * <p>Workload: entries of keys {@code user0..user65535} (5-10 bytes, in turn) and {@code valueBytes}
 * (default 1 KiB) random bytes.
 * <ul>
 *   <li>{@code append}: {@link SegmentWriter#append} into 16 MiB segments through 1 MiB write buffers
 *       (the defaults' buffer size): the 40-byte entry header, copy of key and value into the buffer,
 *       CRC32C over them, zero padding to 16 bytes, the segment summary record and the packed index
 *       value; and, amortised, every 1 MiB the hand-off of the full buffer to the flusher thread (the
 *       append waits if the previous buffer's write has not finished: double buffering), every 16 MiB
 *       sealing (summary write) and opening a segment (header write). With {@code device=MEMORY} a
 *       buffer write is a memory copy; with {@code device=FILE} it is an O_DIRECT write to one of 4
 *       preallocated slot files in a scratch directory under {@code target/jmh-data} (see
 *       {@link Fixtures#DIR_PROPERTY}), deleted at teardown, so the figure includes the device's write
 *       bandwidth once appends outrun it. A new segment reuses the oldest sealed segment's slot (no
 *       reclaim: see {@link ReclaimBenchmark}).
 *   <li>{@code encode}: {@link EntryFormat#write} alone into a reused buffer: header, copy and CRC32C,
 *       no buffer management and no flush.
 * </ul>
 *
 * <p>Run: {@code java -jar bench/target/hybridcache-bench.jar jmh -f 1 -wi 2 -i 3 -w 1s -r 1s WriteBufferBenchmark}
 * (add {@code -p valueBytes=100,1024,16384} for other sizes).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class WriteBufferBenchmark {
  static final int SEGMENT_BYTES = 16 << 20;
  static final int BUFFER_BYTES = 1 << 20;
  private static final int SLOTS = 4;
  private static final int KEYS = 1 << 16;

  /** Where the segments live. */
  public enum Medium {
    /** A {@link MemoryDevice}: a buffer write is a copy on the flusher thread, no I/O. */
    MEMORY,
    /** Slot files read and written with O_DIRECT. */
    FILE
  }

  /** Keys and the value, shared by both benchmarks. */
  @State(Scope.Benchmark)
  public static class Entries {
    @Param("1024")
    public int valueBytes;

    byte[][] keys;
    long[] hashes;
    byte[] value;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
      keys = Fixtures.keys(KEYS);
      hashes = EngineFixtures.hashes(keys);
      value = Fixtures.value(valueBytes);
    }

    int next() {
      int i = next;
      next = (i + 1) & (KEYS - 1);
      return i;
    }
  }

  /** A segment writer over the chosen device. */
  @State(Scope.Benchmark)
  public static class Log {
    @Param({"MEMORY", "FILE"})
    public Medium device;

    private Path dir;
    private Device dev;
    SegmentRig rig;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
      Fixtures.setUpOrTearDown(this::open, this::tearDown);
    }

    private void open() throws IOException {
      if (device == Medium.FILE) {
        dir = Fixtures.scratchDir("writebuffer");
        dev = SegmentRig.fileDevice(dir, SLOTS, SEGMENT_BYTES);
      } else {
        dev = new MemoryDevice(SLOTS, SEGMENT_BYTES);
      }
      rig = new SegmentRig(dev, BUFFER_BYTES, true);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
      try {
        if (rig != null) {
          rig.close();
        }
        if (dev != null) {
          dev.close();
        }
      } finally {
        if (dir != null) {
          BenchDirs.deleteTree(dir);
        }
      }
    }
  }

  /** A buffer with room for one entry. */
  @State(Scope.Benchmark)
  public static class Buffer {
    ByteBuffer buf;

    @Setup(Level.Trial)
    public void setUp(Entries e) {
      buf = Device.allocateAligned(EntryFormat.entryBytes(16, e.valueBytes));
    }
  }

  @Benchmark
  public long append(Entries e, Log log) throws IOException {
    int i = e.next();
    long packed = log.rig.append(e.hashes[i], e.keys[i], e.value);
    if (packed == IndexEntry.NONE) {
      throw new IllegalStateException("no segment slot for an append");
    }
    return packed;
  }

  @Benchmark
  public ByteBuffer encode(Entries e, Buffer b) {
    int i = e.next();
    ByteBuffer buf = b.buf.clear();
    EntryFormat.write(buf, 1, 0, i, 0, e.keys[i], e.value);
    return buf;
  }
}
