package io.hybridcache.bench.cassandra;

import io.hybridcache.bench.Spread;
import com.datastax.oss.driver.api.core.CqlSession;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.BenchMain;
import io.hybridcache.bench.ChildJvm;
import io.hybridcache.bench.MemoryCgroup;
import io.hybridcache.bench.Sizes;
import io.hybridcache.bench.StatsJson;
import io.hybridcache.bench.TextTable;
import io.hybridcache.bench.ycsb.YcsbOutput;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The CaSSanDra paper's row cache experiment (section VI-A) at this machine's scale: a real
 * Cassandra node (started by {@code src/it/cassandra.sh}), the same data, with Cassandra's default
 * {@code OHCProvider} and a DRAM budget X, and with hybridcache and the same X plus a flash tier.
 * Phases per provider, all YCSB over {@link CqlDB} in child JVMs with the "latest" request
 * distribution: load; fragmentation (10% reads, 90% updates of one field, a memtable flush after
 * each slice, compaction off, so a partition's columns spread over several SSTables); warm-up (99%
 * reads); transactional (95% reads, 5% updates) for a fixed time, which is what is measured.
 *
 * <p>Where the SSTables live ({@code --sstable-disk}):
 * <ul>
 *   <li>{@code ssd} (default; no root): on this machine's disk. Both nodes run side by side (OHC on
 *       127.0.0.1, hybridcache on 127.0.0.2), each loads its own copy, warms up for a fixed
 *       number of operations, and the measured phase alternates between them in slices
 *       ({@code --rounds}), so the load other work puts on this shared machine falls on both alike.
 *   <li>{@code hdd} (root, cgroup v1): on an emulated 7,200 rpm disk ({@link EmulatedHdd}: loop
 *       device with direct I/O, ext4, blkio throttle, memory cgroup), as in the paper, whose row
 *       cache ran over SSTables on HDDs. The data set is built once (load and fragmentation,
 *       unthrottled: they are not measured) into a base image, with compaction off; then runs
 *       alternate in pairs (OHC, hybridcache, OHC, ...; {@code --pairs}), each alone on the
 *       machine, on a fresh copy of that image after the page cache is dropped, warming up until
 *       the row cache is warm ({@link WarmupRule}) and measured with the throttle on; the headline
 *       is the median over the pairs of hybridcache's throughput / OHC's ({@link PairSummary}).
 * </ul>
 *
 * <p>Run from the repository root: {@code java -jar bench/target/hybridcache-bench.jar cassandra}
 * (about 8 minutes with the defaults; the first run also builds the node's lib/ from Maven), or as
 * root {@code ... cassandra --sstable-disk hdd} (1M records, 3 pairs, estimated at 30-35 minutes).
 * Prints, and with {@code --json} writes, per provider: {@code provider}, {@code sstable_disk},
 * {@code throughput_ops}, {@code read_p50_us}, {@code read_p99_us}, {@code row_cache_hit_ratio}
 * (from {@code nodetool info} over the transactional phase), {@code cpu_ms_per_op} (the node's
 * utime + stime over the phase), {@code warmup_seconds}, {@code warmup_hit_ratio} and, with
 * {@code hdd}, {@code sstable_reads_per_op} (reads completed by the emulated disk's loop device),
 * {@code device_reads_per_miss} and {@code page_cache_served_share} (how many misses the node's
 * page cache answered).
 */
@Command(name = "cassandra",
    description = {"The CaSSanDra paper's experiment on one real Cassandra 5.0.9 node: OHCProvider with DRAM X",
        "versus hybridcache with the same X plus flash; YCSB load, fragmentation, warm-up, then 95%% reads.",
        "--sstable-disk hdd (root) puts the SSTables on an emulated 7,200 rpm disk, as in the paper."},
    mixinStandardHelpOptions = true)
public final class CassandraCommand implements Callable<Integer> {
  private static final Pattern ROW_CACHE = Pattern.compile(
      "Row Cache\\s*:\\s*entries (\\d+), size ([^,]+), capacity ([^,]+), (\\d+) hits, (\\d+) requests");
  /** Bytes of one YCSB record of 10 x 100 B as Cassandra stores it, roughly (for sizes and logs). */
  static final long RECORD_BYTES = 1100;
  private static final Path IT_DIR = Path.of("target", "cassandra-it");
  private static final String HDD_ADDRESS = "127.0.0.1";
  private static final String HDD_CLUSTER = "bench-hdd";
  /** The flash tier's segment size on the nodes (HC_SEGMENT_SIZE). */
  static final long SEGMENT_BYTES = 16L << 20;
  /** The smallest --flash: the engine needs 4 segments plus reclaim's free ones; 8 leaves room. */
  static final long MIN_FLASH = 8 * SEGMENT_BYTES;
  /** The JMX port src/it/cassandra.sh gives the node on 127.0.0.1. */
  private static final int JMX_PORT = 17199;

  /** Where the node's SSTables live. */
  enum SstableDisk { ssd, hdd }

  @Spec
  CommandSpec spec;

  @Option(names = "--sstable-disk", description = "where the SSTables live: ssd = this machine's disk, both nodes side"
      + " by side (default); hdd = an emulated 7,200 rpm disk, providers one after the other (root, cgroup v1: a loop"
      + " device, ext4, blkio throttle, memory cgroup)")
  SstableDisk sstableDisk = SstableDisk.ssd;

  @Option(names = "--records", description = "YCSB records (10 fields x 100 B) (default: 60000; hdd: 1000000,"
      + " ~1 GiB, about 3.5 x the page cache the node's memory cgroup leaves)")
  Long records;

  @Option(names = "--row-cache", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "DRAM budget X of both providers: row_cache_size (default: 8MiB)")
  long rowCache = 8L << 20;

  @Option(names = "--flash", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "hybridcache's flash tier budget, on this machine's disk in either mode (default: 1GiB; hdd:"
          + " 384MiB, about a third of the data set, as 1GiB was of the former 3M records)")
  Long flash;

  @Option(names = "--threads", description = "YCSB client threads (default: ${DEFAULT-VALUE})")
  int threads = 16;

  @Option(names = "--fragment-ops", description = "fragmentation operations, 90%% updates (default: records / 2; hdd:"
      + " records / 4)")
  Long fragmentOps;

  @Option(names = "--flushes", description = "memtable flushes during fragmentation (default: ${DEFAULT-VALUE})")
  int flushes = 4;

  @Option(names = "--warmup-ops", description = "ssd: warm-up operations, 99%% reads (default: records)")
  Long warmupOps;

  @Option(names = "--seconds", description = "length of the measured transactional phase per provider (default: 60;"
      + " hdd: 60 per run, in each of the pairs)")
  Integer seconds;

  @Option(names = "--rounds", description = "the measured phase runs in this many slices per provider (p50 and p99 are"
      + " the slices' medians); ssd: alternating between the providers (default: ${DEFAULT-VALUE})")
  int rounds = 3;

  @Option(names = "--heap", description = "Cassandra's heap (default: 1G; hdd: 512M)")
  String heap;

  @Option(names = "--node-memory", paramLabel = "SIZE", description = "memory cgroup limit of each node: heap, off-heap"
      + " and the page cache of its SSTables, so the data set is not all in RAM, as in the paper; at least heap +"
      + " 512MiB (default: none; hdd: 1152M: ~850 MB for a node with a 512M heap, ~300 MB of page cache)")
  String nodeMemory;

  @Option(names = "--hdd-image", paramLabel = "PATH", description = "hdd: the emulated disk's image file, created by"
      + " this run and deleted at its end (never an existing file); the per-provider copy is PATH.PROVIDER (default:"
      + " ${DEFAULT-VALUE})")
  Path hddImage = IT_DIR.resolve("hdd.img");

  @Option(names = "--hdd-image-size", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "hdd: size of the (sparse) image: SSTables, commitlog and room to flush (default: 3 x the data"
          + " set, at least 2GiB)")
  Long hddImageSize;

  @Option(names = "--hdd-read-iops", description = "hdd: read requests per second: a 7,200 rpm disk's random reads"
      + " (default: 180)")
  Long hddReadIops;

  @Option(names = "--hdd-write-iops", description = "hdd: write requests per second (default: 180)")
  Long hddWriteIops;

  @Option(names = "--hdd-read-bps", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "hdd: read bandwidth per second: a 7,200 rpm disk's sequential rate (default: 150MiB)")
  Long hddReadBps;

  @Option(names = "--hdd-write-bps", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "hdd: write bandwidth per second (default: 150MiB)")
  Long hddWriteBps;

  @Option(names = "--pairs", description = "hdd: measured pairs (ohc, hybrid, ohc, hybrid, ...), each run on a fresh"
      + " copy of the one data set; medians and ranges over them (default: 3)")
  Integer pairs;

  @Option(names = "--warmup-window", description = "hdd: seconds per warm-up window; the hit ratio is measured over"
      + " each (default: 30)")
  Integer warmupWindow;

  @Option(names = "--warmup-max", description = "hdd: the safety cap on a warm-up, seconds (default: 240)")
  Integer warmupMax;

  @Option(names = "--warmup-min-gain", description = "hdd: the warm-up stops when the row cache hit ratio rose less"
      + " than this over the last --warmup-plateau-windows windows, or, once the flash tier is full, over the last"
      + " window (default: 0.01 = one point)")
  Double warmupMinGain;

  @Option(names = "--warmup-plateau-windows", description = "hdd: windows the plateau is measured over (default: 3)")
  Integer warmupPlateauWindows;

  @Option(names = "--cold-page-cache", description = "hdd: drop the page cache before each measured phase too (default:"
      + " only before each node starts, so the warm-up fills page cache and row cache alike for both providers)")
  boolean coldPageCache;

  @Option(names = "--throttled-warmup", description = "hdd: throttle the warm-up too (default: the throttle is lifted"
      + " while warming up: the cache ends in the same state, the flash tier fills 5-10x faster)")
  boolean throttledWarmup;

  @Option(names = "--providers", split = ",", description = "providers, in order (default: ohc,hybrid)")
  List<String> providers = List.of("ohc", "hybrid");

  @Option(names = "--script", description = "node script (default: ${DEFAULT-VALUE}, relative to the repository root)")
  Path script = Path.of("src/it/cassandra.sh");

  @Option(names = "--workload", description = "YCSB base workload file (default: ${DEFAULT-VALUE})")
  Path workload = Path.of("src/workloads/workloadb");

  @Option(names = "--json", paramLabel = "FILE", description = "also write the results as JSON")
  Path json;

  /** How a provider's warm-up went: its length, the hit ratio of its last window and why it stopped. */
  record Warmup(double seconds, double hitRatio, String stop, List<Double> windows, String why) {}

  /**
   * Cassandra's own count of the SSTables it read over the measured phase, from the table's
   * SSTables-per-read histogram (JMX): {@code reads} = the reads it counted (its count's growth; row
   * cache hits count too, with 0 SSTables), {@code perRead} = its mean at the end (the histogram
   * decays, so this is the mean of the last minutes, mostly the measured phase). Their product is
   * the SSTables read. NaN where JMX did not answer.
   */
  record SstableReads(double reads, double perRead) {
    static final SstableReads UNKNOWN = new SstableReads(Double.NaN, Double.NaN);

    double sstablesRead() {
      return reads * perRead;
    }
  }

  /** What the emulated disk and the node's memory cgroup counted over the measured phase (hdd only). */
  record DiskFigures(long reads, long readBytes, long writes, long cgroupReads, long memoryPeakBytes,
                     long rssBytes, long pageCacheBytes, long oomKills) {}

  /** One provider's measured figures. */
  record Result(String provider, int pair, double throughputOps, double readP50Us, double readP99Us,
                double hitRatio, long ops, long reads, long readErrors, long misses, String rowCacheLine, double cpuMs,
                Warmup warmup, DiskFigures disk, SstableReads sstables) {
    double cpuMsPerOp() {
      return ops == 0 || cpuMs < 0 ? Double.NaN : cpuMs / ops;
    }

    double sstableReadsPerOp() {
      return disk == null || ops == 0 ? Double.NaN : (double) disk.reads() / ops;
    }

    /** Reads the emulated disk completed per row cache miss: below 1 where the page cache served misses. */
    double deviceReadsPerMiss() {
      return disk == null || misses <= 0 ? Double.NaN : (double) disk.reads() / misses;
    }

    /**
     * The share of Cassandra's SSTable reads that did not reach the disk (the page cache served them):
     * 1 - device reads / SSTables read, at least 0. An estimate: it counts one device read per SSTable
     * read that missed the page cache (a key cache hit and one data chunk), so it is a lower bound.
     */
    double pageCacheServedShare() {
      double read = sstables == null ? Double.NaN : sstables.sstablesRead();
      return disk == null || !(read > 0) ? Double.NaN : Math.max(0, 1 - disk.reads() / read);
    }
  }

  /** The measured phase's slices of one provider and the node's counters around them. */
  private static final class Measured {
    final List<YcsbOutput> slices = new ArrayList<>();
    final int pair;
    long[] rowCacheBefore;
    double cpuMs;
    SstableReads sstables = SstableReads.UNKNOWN;

    Measured(int pair) {
      this.pair = pair;
    }
  }

  boolean hdd() {
    return sstableDisk == SstableDisk.hdd;
  }

  long records() {
    return records != null ? records : hdd() ? 1_000_000 : 60_000;
  }

  int seconds() {
    return seconds != null ? seconds : 60;
  }

  long flash() {
    return flash != null ? flash : hdd() ? 384L << 20 : 1L << 30;
  }

  int pairs() {
    return pairs != null ? pairs : hdd() ? 3 : 1;
  }

  String heap() {
    return heap != null ? heap : hdd() ? "512M" : "1G";
  }

  String nodeMemory() {
    return nodeMemory != null ? nodeMemory : hdd() ? "1152M" : null;
  }

  long imageBytes() {
    return hddImageSize != null ? hddImageSize : Math.max(2L << 30, 3 * records() * RECORD_BYTES);
  }

  EmulatedHdd.Throttle throttle() {
    return new EmulatedHdd.Throttle(hddReadIops != null ? hddReadIops : 180, hddWriteIops != null ? hddWriteIops : 180,
        hddReadBps != null ? hddReadBps : 150L << 20, hddWriteBps != null ? hddWriteBps : 150L << 20);
  }

  WarmupRule warmupRule() {
    return new WarmupRule(warmupMinGain != null ? warmupMinGain : 0.01,
        warmupPlateauWindows != null ? warmupPlateauWindows : 3, warmupMax());
  }

  int warmupMax() {
    return warmupMax != null ? warmupMax : 240;
  }

  int warmupWindow() {
    return warmupWindow != null ? warmupWindow : 30;
  }

  /** Checks the options alone (no file, no root); throws a usage error naming the bad one. */
  void validate() {
    for (String p : providers) {
      if (!p.equals("ohc") && !p.equals("hybrid")) {
        throw usage("--providers: ohc or hybrid, was " + p);
      }
    }
    if (providers.size() != new java.util.HashSet<>(providers).size() || providers.size() > 2) {
      throw usage("--providers: each of ohc and hybrid at most once");
    }
    if (rowCache < (1L << 20) || records() <= 0 || threads <= 0 || seconds() <= 0 || flushes <= 0 || rounds <= 0) {
      throw usage("--row-cache >= 1MiB; --records, --threads, --seconds, --flushes, --rounds > 0");
    }
    if (providers.contains("hybrid") && flash() < MIN_FLASH) {
      throw usage("--flash " + Sizes.format(flash()) + " is too small: the node's flash tier needs at least "
          + Sizes.format(MIN_FLASH) + " (8 segments of " + (SEGMENT_BYTES >> 20) + " MiB)");
    }
    long heapBytes = size("--heap", heap());
    if (nodeMemory() != null && size("--node-memory", nodeMemory()) < heapBytes + (512L << 20)) {
      throw usage("--node-memory " + nodeMemory() + " leaves less than 512 MiB beside the heap (" + heap() + "): the"
          + " kernel would kill the node for its cgroup");
    }
    if (!hdd()) {
      List<String> hddOnly = new ArrayList<>();
      addIf(hddOnly, hddImageSize != null, "--hdd-image-size");
      addIf(hddOnly, hddReadIops != null, "--hdd-read-iops");
      addIf(hddOnly, hddWriteIops != null, "--hdd-write-iops");
      addIf(hddOnly, hddReadBps != null, "--hdd-read-bps");
      addIf(hddOnly, hddWriteBps != null, "--hdd-write-bps");
      addIf(hddOnly, warmupWindow != null, "--warmup-window");
      addIf(hddOnly, warmupMax != null, "--warmup-max");
      addIf(hddOnly, warmupMinGain != null, "--warmup-min-gain");
      addIf(hddOnly, throttledWarmup, "--throttled-warmup");
      addIf(hddOnly, pairs != null, "--pairs");
      addIf(hddOnly, warmupPlateauWindows != null, "--warmup-plateau-windows");
      addIf(hddOnly, coldPageCache, "--cold-page-cache");
      if (!hddOnly.isEmpty()) {
        throw usage(String.join(", ", hddOnly) + ": only with --sstable-disk hdd");
      }
      return;
    }
    if (warmupOps != null) {
      throw usage("--warmup-ops: only with --sstable-disk ssd; hdd warms up until the hit ratio stops rising"
          + " (--warmup-window, --warmup-max, --warmup-min-gain)");
    }
    EmulatedHdd.Throttle t = throttle();
    if (t.readIops() <= 0 || t.writeIops() <= 0 || t.readBps() < 4096 || t.writeBps() < 4096) {
      throw usage("--hdd-read-iops and --hdd-write-iops > 0, --hdd-read-bps and --hdd-write-bps >= 4KiB");
    }
    if (imageBytes() < (1L << 30)) {
      throw usage("--hdd-image-size >= 1GiB (SSTables, commitlog segments of 32 MiB, room to flush)");
    }
    if (warmupWindow() < 5) {
      throw usage("--warmup-window >= 5 seconds");
    }
    if (pairs() < 1) {
      throw usage("--pairs >= 1, was " + pairs());
    }
    try {
      warmupRule();
    } catch (IllegalArgumentException e) {
      throw usage("--warmup-min-gain in [0, 1), --warmup-plateau-windows >= 1, --warmup-max > 0: " + e.getMessage());
    }
  }

  private static void addIf(List<String> list, boolean condition, String option) {
    if (condition) {
      list.add(option);
    }
  }

  private long size(String option, String text) {
    try {
      return Sizes.parse(text);
    } catch (IllegalArgumentException e) {
      throw usage(option + ": " + e.getMessage());
    }
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  @Override
  public Integer call() throws Exception {
    validate();
    if (!Files.isRegularFile(script) || !Files.isRegularFile(workload)) {
      throw usage("run from the repository root: " + script + " or " + workload + " not found");
    }
    return hdd() ? runHdd(System.err) : runSsd(System.err);
  }

  // --- ssd: both nodes side by side on this machine's disk (the first version of the experiment) ---

  private Integer runSsd(PrintStream err) throws Exception {
    err.printf(Locale.ROOT, "cassandra: SSTables on this machine's disk; %,d records (~%s of partitions), row cache X ="
            + " %s, flash %s, %d threads, %d s measured per provider in %d alternating slices%n",
        records(), Sizes.format(records() * RECORD_BYTES), Sizes.format(rowCache), Sizes.format(flash()), threads,
        seconds(), rounds);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> node(List.of("stop-all"), null)));
    Map<String, String> address = new LinkedHashMap<>();
    for (String provider : providers) {
      address.put(provider, "127.0.0." + (address.size() + 1));
    }
    try {
      Map<String, Warmup> warmups = new LinkedHashMap<>();
      for (String provider : providers) {
        warmups.put(provider, prepareSsd(provider, address.get(provider), err));
      }
      // The measured phase alternates between the nodes in slices, so load from elsewhere on this
      // shared machine falls on both alike.
      Map<String, Measured> measured = new LinkedHashMap<>();
      for (String provider : providers) {
        Measured m = new Measured(1);
        m.rowCacheBefore = rowCacheFigures(name(provider));
        measured.put(provider, m);
      }
      int slice = Math.max(1, seconds() / rounds);
      for (int round = 1; round <= rounds; round++) {
        for (String provider : providers) {
          Measured m = measured.get(provider);
          long cpu0 = nodeCpuMillis(provider);
          m.slices.add(ycsb(provider, address.get(provider), "transactional-" + round, false, transactionalMix(),
              Integer.MAX_VALUE / 2, slice, err));
          m.cpuMs = cpu0 < 0 || m.cpuMs < 0 ? -1 : m.cpuMs + nodeCpuMillis(provider) - cpu0;
        }
      }
      List<Result> results = new ArrayList<>();
      for (String provider : providers) {
        results.add(result(provider, measured.get(provider), warmups.get(provider), null, err));
      }
      return report(results, err);
    } finally {
      for (String provider : providers) {
        node(List.of("stop", name(provider)), null);
      }
    }
  }

  /** Starts the provider's node and runs load, fragmentation and a fixed warm-up against it. */
  private Warmup prepareSsd(String provider, String address, PrintStream err) throws Exception {
    Map<String, String> env = nodeEnv();
    env.put("HC_CLUSTER", name(provider));
    if (nodeMemory() != null) {
      env.put("HC_NODE_MEMORY", nodeMemory());
    }
    err.println("cassandra: === " + provider + " on " + address + " ===");
    startNode(provider, address, provider, env);
    loadAndFragment(provider, address, err);
    long[] before = rowCacheFigures(name(provider));
    long t0 = System.nanoTime();
    ycsb(provider, address, "warmup", false, warmupMix(), warmupOps != null ? warmupOps : records(), 0, err);
    double ratio = WarmupRule.windowRatio(before, rowCacheFigures(name(provider)));
    return new Warmup((System.nanoTime() - t0) / 1e9, ratio, "ops", List.of(ratio), "a fixed number of operations");
  }

  // --- hdd: an emulated 7,200 rpm disk, one provider at a time ---

  private Integer runHdd(PrintStream err) throws Exception {
    List<String> missing = EmulatedHdd.missing();
    if (!missing.isEmpty()) {
      err.println("cassandra: --sstable-disk hdd cannot run here; it needs:");
      missing.forEach(m -> err.println("  - " + m));
      err.println("Run it as root on a Linux machine with cgroup v1 (blkio and memory controllers), or run"
          + " `cassandra --sstable-disk ssd` (the SSTables on this machine's disk; no root, nothing mounted).");
      return BenchMain.ENVIRONMENT;
    }
    Path image = hddImage.toAbsolutePath();
    for (Path p : List.of(image, runImage(image, "ohc"), runImage(image, "hybrid"))) {
      if (Files.exists(p)) {
        throw usage(p + " exists: this run creates and deletes its images itself; remove it or choose another"
            + " --hdd-image");
      }
    }
    long dataBytes = records() * RECORD_BYTES;
    Files.createDirectories(image.getParent());
    long free = Files.getFileStore(image.getParent()).getUsableSpace();
    if (free < 3 * dataBytes) { // the base image and one copy, both sparse, hold the data set twice
      err.printf(Locale.ROOT, "cassandra: %s has %s free; the base image and one provider's copy need about %s (2 x the"
          + " data set, plus room): free space or choose another --hdd-image%n", image.getParent(), Sizes.format(free),
          Sizes.format(3 * dataBytes));
      return BenchMain.ENVIRONMENT;
    }
    long memory = Sizes.parse(nodeMemory());
    EmulatedHdd.Throttle t = throttle();
    err.printf(Locale.ROOT, "cassandra: SSTables on an emulated HDD (%d read / %d write IOPS, %s / %s per second,"
            + " image %s); %,d records (~%s of partitions, %.1f x the node's memory cgroup of %s), row cache X = %s,"
            + " flash %s (this machine's disk), heap %s, %d threads; %d pairs (%s), each run on a fresh copy of the"
            + " data set: warm-up in %d s windows until the hit ratio stops rising (at most %d s), then %d s measured%n",
        t.readIops(), t.writeIops(), Sizes.format(t.readBps()), Sizes.format(t.writeBps()),
        Sizes.format(imageBytes()), records(), Sizes.format(dataBytes), (double) dataBytes / memory,
        Sizes.format(memory), Sizes.format(rowCache), Sizes.format(flash()), heap(), threads, pairs(),
        String.join(", ", providers), warmupWindow(), warmupMax(), seconds());
    if (dataBytes < 2 * (memory - Sizes.parse(heap()))) {
      err.println("cassandra: WARNING: the data set is less than twice the memory the node's cgroup leaves beside its"
          + " heap: much of it may sit in the page cache (raise --records or lower --node-memory)");
    }
    Cleanup cleanup = new Cleanup(err);
    Thread hook = new Thread(cleanup::runAll, "cassandra-hdd-cleanup");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      long t0 = System.nanoTime();
      // expected length of one run before any has finished: copy and start, the warm-up cap, the measured phase
      Progress progress = new Progress(err, pairs() * providers.size(), 60 + warmupMax() + seconds());
      progress.phase("building the data set (the estimate covers the runs after it)");
      buildBaseImage(image, cleanup, err);
      List<Result> results = new ArrayList<>();
      for (int pair = 1; pair <= pairs(); pair++) {
        for (String provider : providers) {
          progress.runStarts();
          results.add(measureOnHdd(provider, pair, image, cleanup, progress, err));
          progress.runDone();
        }
      }
      err.printf(Locale.ROOT, "cassandra: all %d runs done in %s (data set build included)%n", results.size(),
          Progress.clock((System.nanoTime() - t0) / 1e9));
      return report(results, err);
    } finally {
      cleanup.runAll();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException ignored) {
        // shutting down: the hook runs (and finds nothing left)
      }
    }
  }

  private static Path runImage(Path image, String provider) {
    return image.resolveSibling(image.getFileName() + "." + provider);
  }

  private static Path mountPoint() {
    return IT_DIR.resolve("hdd-mnt").toAbsolutePath();
  }

  /**
   * Load and fragmentation once, into the base image, with neither throttle nor memory cgroup (they
   * are not measured), then a drain so the image holds only SSTables. The table has compaction off
   * (its schema), so every run starts from these SSTables as they are: the same compaction state for
   * every provider and pair. The image stays until the end of the run (deleted by {@code cleanup}).
   */
  private void buildBaseImage(Path image, Cleanup cleanup, PrintStream err) throws Exception {
    EmulatedHdd.createImage(image, imageBytes());
    cleanup.add("delete " + image, () -> Files.deleteIfExists(image));
    int mark = cleanup.mark();
    try {
      long t0 = System.nanoTime();
      err.println("cassandra: === building the data set on the emulated disk (unthrottled, not measured) ===");
      EmulatedHdd disk = EmulatedHdd.attach(image, mountPoint(), true, err);
      cleanup.add("take down " + image, disk::close);
      KernelCounters.BlockStat stat0 = disk.stat(); // a loop device's counters outlive its detach: deltas only
      String name = "build";
      Map<String, String> env = nodeEnv();
      env.put("HC_DATA_DIR", disk.mountPoint().toString());
      env.put("HC_CLUSTER", HDD_CLUSTER);
      startNode(name, HDD_ADDRESS, "ohc", env);
      cleanup.add("stop " + name(name), () -> node(List.of("stop", name(name)), null));
      loadAndFragment(name, HDD_ADDRESS, err);
      node(List.of("nodetool", name(name), "drain"), null);
      KernelCounters.BlockStat s = disk.stat().minus(stat0);
      err.printf(Locale.ROOT, "cassandra: data set built in %.0f s (%s written to the emulated disk)%n",
          (System.nanoTime() - t0) / 1e9, Sizes.format(s.sectorsWritten() * 512));
    } finally {
      cleanup.unwindTo(mark);
    }
  }

  /**
   * One provider alone on the machine: a fresh copy of the base image, the page cache dropped, the
   * node in the blkio and memory cgroups with autocompaction off, a warm-up until the hit ratio
   * stops rising, then the measured phase throttled.
   */
  private Result measureOnHdd(String provider, int pair, Path base, Cleanup cleanup, Progress progress,
                              PrintStream err) throws Exception {
    int mark = cleanup.mark();
    try {
      progress.phase("pair " + pair + "/" + pairs() + ", " + provider + ": copying the data set");
      Path image = runImage(base, provider);
      cleanup.add("delete " + image, () -> Files.deleteIfExists(image));
      long t0 = System.nanoTime();
      EmulatedHdd.run(List.of("cp", "--sparse=always", base.toString(), image.toString()), 3600);
      EmulatedHdd.run(List.of("sync", image.toString()), 3600);
      err.printf(Locale.ROOT, "cassandra: copied the base image for %s in %.0f s%n", provider,
          (System.nanoTime() - t0) / 1e9);
      EmulatedHdd disk = EmulatedHdd.attach(image, mountPoint(), false, err);
      cleanup.add("take down " + image, disk::close);
      List<Path> groups = disk.createCgroups("hybridcache-hdd-" + ProcessHandle.current().pid() + "-" + provider,
          Sizes.parse(nodeMemory()));
      EmulatedHdd.Throttle throttle = throttle();
      disk.throttle(throttledWarmup ? throttle : EmulatedHdd.Throttle.NONE);
      Map<String, String> env = nodeEnv();
      env.put("HC_DATA_DIR", disk.mountPoint().toString());
      env.put("HC_CLUSTER", HDD_CLUSTER);
      env.put("HC_CGROUPS", String.join(" ", groups.stream().map(Path::toString).toList()));
      EmulatedHdd.dropPageCache(); // every run starts with nothing of the data set in memory
      progress.phase("pair " + pair + "/" + pairs() + ", " + provider + ": starting the node");
      startNode(provider, HDD_ADDRESS, provider, env);
      cleanup.add("stop " + name(provider), () -> node(List.of("stop", name(provider)), null));
      // off in the table's schema already; this also keeps a memtable flush from starting one
      node(List.of("nodetool", name(provider), "disableautocompaction", "ycsb", "usertable"), null);

      Warmup warmup = warmUntilPlateau(provider, pair, progress, err);
      disk.throttle(throttle);
      if (coldPageCache) {
        EmulatedHdd.dropPageCache();
      }
      progress.phase("pair " + pair + "/" + pairs() + ", " + provider + ": measured phase, " + seconds() + " s");
      Measured m = new Measured(pair);
      m.rowCacheBefore = rowCacheFigures(name(provider));
      NodeJmx jmx = new NodeJmx(HDD_ADDRESS, JMX_PORT);
      double[] sstables0 = jmx.read(NodeJmx.sstablesPerRead("ycsb", "usertable"), "Count");
      KernelCounters.BlockStat stat0 = disk.stat();
      long[] served0 = disk.ioServiced();
      long cpu0 = nodeCpuMillis(provider);
      int slice = Math.max(1, seconds() / rounds);
      for (int round = 1; round <= rounds; round++) {
        m.slices.add(ycsb(provider, HDD_ADDRESS, "transactional-" + pair + "-" + round, false, transactionalMix(),
            Integer.MAX_VALUE / 2, slice, err));
      }
      long cpu1 = nodeCpuMillis(provider);
      m.cpuMs = cpu0 < 0 || cpu1 < 0 ? -1 : cpu1 - cpu0;
      KernelCounters.BlockStat io = disk.stat().minus(stat0);
      long[] served = disk.ioServiced();
      double[] sstables1 = jmx.read(NodeJmx.sstablesPerRead("ycsb", "usertable"), "Count", "Mean");
      m.sstables = new SstableReads(sstables1[0] - sstables0[0], sstables1[1]);
      MemoryCgroup memory = disk.memoryGroup();
      DiskFigures figures = new DiskFigures(io.readsCompleted(), io.sectorsRead() * 512, io.writesCompleted(),
          served[0] - served0[0], memory.peakBytes(), memory.anonymousBytes(), memory.pageCacheBytes(),
          memory.oomKills());
      return result(provider, m, warmup, figures, err);
    } finally {
      cleanup.unwindTo(mark);
    }
  }

  /**
   * Warm-up windows of 99% reads until {@link WarmupRule} says the hit ratio has stopped rising (or
   * the flash tier is full and it stopped rising, or the safety cap).
   */
  private Warmup warmUntilPlateau(String provider, int pair, Progress progress, PrintStream err) throws Exception {
    WarmupRule rule = warmupRule();
    NodeJmx jmx = new NodeJmx(HDD_ADDRESS, JMX_PORT);
    long t0 = System.nanoTime();
    long[] before = rowCacheFigures(name(provider));
    WarmupRule.Stop stop = null;
    Boolean flashFull = null;
    for (int window = 1; stop == null; window++) {
      progress.phase("pair " + pair + "/" + pairs() + ", " + provider + ": warm-up window " + window);
      ycsb(provider, HDD_ADDRESS, "warmup-" + pair + "-" + window, false, warmupMix(), Integer.MAX_VALUE / 2,
          warmupWindow(), err);
      long[] after = rowCacheFigures(name(provider));
      double ratio = WarmupRule.windowRatio(before, after);
      double elapsed = (System.nanoTime() - t0) / 1e9;
      flashFull = provider.equals("hybrid") ? flashFull(jmx) : null;
      stop = rule.afterWindow(ratio, elapsed, flashFull);
      err.printf(Locale.ROOT, "cassandra: %s warm-up window %d: row cache hit ratio %.3f (%,d requests), %.0f s%s%s%n",
          provider, window, ratio, after[1] - before[1], elapsed,
          flashFull == null ? "" : flashFull ? ", flash tier full" : ", flash tier filling",
          stop == null ? "" : ": " + why(stop, rule));
      before = after;
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    return new Warmup(seconds, rule.lastRatio(), stop.name().toLowerCase(Locale.ROOT), rule.ratios(), why(stop, rule));
  }

  /** Whether the hybrid row cache's flash tier is full (reclaim has begun); null if JMX did not say. */
  private static Boolean flashFull(NodeJmx jmx) {
    double[] v = jmx.read(NodeJmx.HYBRID_CACHE, "ReclaimedSegments", "FreeSegments");
    if (Double.isNaN(v[0])) {
      return null;
    }
    return v[0] > 0 || v[1] == 0;
  }

  private String why(WarmupRule.Stop stop, WarmupRule rule) {
    int k = warmupPlateauWindows != null ? warmupPlateauWindows : 3;
    return switch (stop) {
      case PLATEAU -> String.format(Locale.ROOT, "plateau: the hit ratio rose less than %.3f over the last %d"
          + " window(s)", warmupMinGain != null ? warmupMinGain : 0.01, k);
      case FLASH_FULL -> String.format(Locale.ROOT, "flash tier full and the last window gained %+.3f", rule.lastGain());
      case MAX_TIME -> String.format(Locale.ROOT, "safety cap of %d s reached while still rising (last window %+.3f)",
          warmupMax(), rule.lastGain());
    };
  }

  // --- shared by both set-ups ---

  private static String name(String provider) {
    return "bench-" + provider;
  }

  private static Map<String, String> transactionalMix() {
    return Map.of("readproportion", "0.95", "updateproportion", "0.05");
  }

  private static Map<String, String> warmupMix() {
    return Map.of("readproportion", "0.99", "updateproportion", "0.01");
  }

  private Map<String, String> nodeEnv() {
    return new LinkedHashMap<>(Map.of("HC_FLASH_SIZE", (flash() >> 20) + "MiB", "HC_SEGMENT_SIZE", (SEGMENT_BYTES >> 20) + "MiB",
        "HC_MEMTABLE_MIB", "128"));
  }

  private void startNode(String name, String address, String provider, Map<String, String> env) {
    node(List.of("start", name(name), address, provider, Long.toString(rowCache >> 20), heap()), env);
  }

  /** Creates the table (compaction off), loads the records and fragments them over several SSTables. */
  private void loadAndFragment(String name, String address, PrintStream err) throws Exception {
    try (CqlSession s = CqlDB.connect(address + ":19042", "datacenter1", null, Duration.ofSeconds(60))) {
      s.execute("CREATE KEYSPACE IF NOT EXISTS ycsb WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
      // compaction off: the fragmentation phase leaves each hot partition spread over several SSTables
      s.execute(CqlDB.createTableCql("ycsb", "usertable", 10,
          "compaction = {'class': 'SizeTieredCompactionStrategy', 'enabled': 'false'}"));
    }
    ycsb(name, address, "load", true, Map.of(), records(), 0, err);
    long frag = fragmentOps != null ? fragmentOps : hdd() ? records() / 4 : records() / 2;
    for (int i = 0; i < flushes; i++) {
      ycsb(name, address, "fragment-" + (i + 1), false, Map.of("readproportion", "0.1", "updateproportion", "0.9"),
          frag / flushes, 0, err);
      node(List.of("nodetool", name(name), "flush", "ycsb", "usertable"), null);
    }
  }

  /** CPU time (user + system) of the provider's node so far, in ms; -1 if its process is not found. */
  private static long nodeCpuMillis(String provider) {
    try {
      long pid = Long.parseLong(Files.readString(IT_DIR.resolve("nodes").resolve(name(provider)).resolve("pid")).trim());
      return KernelCounters.cpuMillis(pid);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * One provider's figures over its slices: throughput = all operations / all run time; read p50 and
   * p99 = the median of the slices' values; hit ratio from nodetool's row cache counters.
   */
  private Result result(String provider, Measured m, Warmup warmup, DiskFigures disk, PrintStream err) {
    long[] after = rowCacheFigures(name(provider));
    String line = node(List.of("nodetool", name(provider), "info"), null).stream()
        .filter(l -> l.startsWith("Row Cache")).findFirst().orElse("");
    double ops = 0;
    double ms = 0;
    long reads = 0;
    long readErrors = 0;
    List<Double> p50 = new ArrayList<>();
    List<Double> p99 = new ArrayList<>();
    for (YcsbOutput o : m.slices) {
      ops += o.totalOperations();
      ms += o.runtimeMs();
      reads += o.returns("READ", "OK");
      readErrors += o.returns("READ", "ERROR") + o.returns("READ", "NOT_FOUND");
      p50.add(o.percentileUs("READ", "50th"));
      p99.add(o.percentileUs("READ", "99th"));
    }
    long misses = (after[1] - m.rowCacheBefore[1]) - (after[0] - m.rowCacheBefore[0]);
    Result r = new Result(provider, m.pair, ms == 0 ? 0 : ops * 1000 / ms, Spread.of(p50).median(),
        Spread.of(p99).median(), WarmupRule.windowRatio(m.rowCacheBefore, after), (long) ops, reads, readErrors, misses,
        line, m.cpuMs, warmup, disk, m.sstables);
    err.printf(Locale.ROOT, "cassandra: %s (pair %d): %.0f ops/s, read p50 %.0f us, p99 %.0f us, row cache hit ratio"
            + " %.3f, %.3f CPU ms/op, %s SSTable reads/op, warm-up %.0f s ending at %.3f (%s) (%s)%n",
        provider, r.pair(), r.throughputOps(), r.readP50Us(), r.readP99Us(), r.hitRatio(), r.cpuMsPerOp(),
        disk == null ? "n/a" : String.format(Locale.ROOT, "%.3f", r.sstableReadsPerOp()), warmup.seconds(),
        warmup.hitRatio(), warmup.why(), line.replaceAll("\\s+", " "));
    if (disk != null) {
      err.printf(Locale.ROOT, "cassandra: %s: emulated disk %,d reads (%s), %,d writes; %,d row cache misses: %.3f"
              + " device reads per miss; Cassandra read about %,.0f SSTables (%,.0f reads x %.2f on average): about"
              + " %.0f%% of them served by the page cache; node memory peak %s, at the end %s anonymous and %s page"
              + " cache, OOM kills %d%n", provider, disk.reads(), Sizes.format(disk.readBytes()), disk.writes(), misses,
          r.deviceReadsPerMiss(), m.sstables.sstablesRead(), m.sstables.reads(), m.sstables.perRead(),
          100 * r.pageCacheServedShare(),
          Sizes.format(disk.memoryPeakBytes()), Sizes.format(disk.rssBytes()), Sizes.format(disk.pageCacheBytes()),
          disk.oomKills());
    }
    return r;
  }

  private Integer report(List<Result> results, PrintStream err) throws IOException {
    print(System.out, results);
    if (json != null) {
      StatsJson.MAPPER.writerWithDefaultPrettyPrinter().writeValue(json.toFile(), toJson(results));
      err.println("cassandra: wrote " + json.toAbsolutePath());
    }
    boolean ok = results.stream().allMatch(r -> r.readErrors() == 0 && r.reads() > 0);
    return ok ? BenchMain.OK : BenchMain.FAILED;
  }

  /** {hits, requests} of the row cache line of nodetool info. */
  private long[] rowCacheFigures(String name) {
    for (String l : node(List.of("nodetool", name, "info"), null)) {
      Matcher m = ROW_CACHE.matcher(l);
      if (m.find()) {
        return new long[] {Long.parseLong(m.group(4)), Long.parseLong(m.group(5))};
      }
    }
    throw new IllegalStateException("nodetool info printed no row cache line");
  }

  /** Runs one YCSB phase in a child JVM against the node; fails on any errored operation. */
  private YcsbOutput ycsb(String provider, String address, String phase, boolean load, Map<String, String> mix,
                          long ops, int maxSeconds, PrintStream err) throws Exception {
    List<String> args = new ArrayList<>(List.of(load ? "-load" : "-t", "-db", CqlDB.class.getName(), "-P",
        workload.toString(), "-threads", Integer.toString(threads), "-s"));
    Map<String, String> p = new LinkedHashMap<>();
    p.put("recordcount", Long.toString(records()));
    p.put("operationcount", Long.toString(ops));
    p.put("requestdistribution", "latest");
    p.put("measurementtype", "hdrhistogram");
    p.put("hdrhistogram.percentiles", "50,95,99");
    p.put("status.interval", "10");
    p.put(CqlDB.HOSTS, address + ":19042");
    if (maxSeconds > 0) {
      p.put("maxexecutiontime", Integer.toString(maxSeconds));
    }
    p.putAll(mix);
    p.forEach((k, v) -> args.addAll(List.of("-p", k + "=" + v)));
    List<String> cmd = ChildJvm.javaCommand(List.of("-Xmx512m"), "site.ycsb.Client", args);
    Path out = IT_DIR.resolve("ycsb-" + provider + "-" + phase + ".out");
    Files.createDirectories(out.getParent());
    long t0 = System.nanoTime();
    ChildJvm.Result r = ChildJvm.run(cmd, "[" + provider + " " + phase + "] ", err, null, out);
    YcsbOutput o = YcsbOutput.parse(r.stdout());
    err.printf(Locale.ROOT, "cassandra: %s %s: %.0f s, %.0f ops/s%n", provider, phase, (System.nanoTime() - t0) / 1e9,
        o.hasOverall() ? o.throughput() : 0);
    if (r.exitCode() != 0 || !o.hasOverall() || o.returns("ERROR") > 0) {
      throw new IllegalStateException("YCSB " + phase + " against " + provider + " failed (exit " + r.exitCode() + ", "
          + o.returns("ERROR") + " errors); see " + out + " and the node's log under target/cassandra-it/nodes/"
          + name(provider) + (nodeMemory() == null ? "" : " (with a memory cgroup the kernel may have OOM-killed the"
          + " node: see dmesg; leave heap + 512 MiB at least)"));
    }
    return o;
  }

  /** Runs the node script; returns its stdout lines. */
  private List<String> node(List<String> args, Map<String, String> env) {
    return NodeScript.run(script, args, env, false);
  }

  private void print(PrintStream out, List<Result> results) {
    TextTable t = new TextTable("provider", "pair", "throughput (ops/s)", "read p50 (us)", "read p99 (us)",
        "row cache hit ratio", "SSTable reads/op", "device reads/miss", "page cache share", "CPU ms/op",
        "warm-up (s)", "warm-up stop");
    for (Result r : results) {
      t.row(r.provider(), r.pair(), Math.round(r.throughputOps()), Math.round(r.readP50Us()),
          Math.round(r.readP99Us()), fixed(r.hitRatio()), fixed(r.sstableReadsPerOp()), fixed(r.deviceReadsPerMiss()),
          fixed(r.pageCacheServedShare()), fixed(r.cpuMsPerOp()), Math.round(r.warmup().seconds()), r.warmup().stop());
    }
    t.print(out);
    PairSummary summary = new PairSummary(results);
    TextTable s = new TextTable("figure", "provider", "median", "min", "max", "runs");
    for (String figure : PairSummary.FIGURES.keySet()) {
      for (String provider : summary.providers()) {
        Spread sp = summary.spread(provider, figure);
        s.row(figure, provider, fixed(sp.median()), fixed(sp.min()), fixed(sp.max()), sp.n());
      }
    }
    out.println();
    s.print(out);
    Spread ratio = summary.throughputRatio();
    if (ratio.n() > 0) {
      out.printf(Locale.ROOT, "hybrid / ohc throughput: median %.2fx over %d pair(s) (min %.2fx, max %.2fx; goal 1.85x),"
              + " read p99 median %.0f -> %.0f us (goal: lower)%n", ratio.median(), ratio.n(), ratio.min(), ratio.max(),
          summary.spread("ohc", "read_p99_us").median(), summary.spread("hybrid", "read_p99_us").median());
    }
  }

  private static String fixed(double v) {
    return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.3f", v);
  }

  private static void putNumber(ObjectNode o, String key, double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      o.putNull(key);
    } else {
      o.put(key, v);
    }
  }

  private ObjectNode toJson(List<Result> results) {
    ObjectNode n = StatsJson.MAPPER.createObjectNode();
    PairSummary summary = new PairSummary(results);
    Spread ratio = summary.throughputRatio();
    // the headline first: the median over the pairs of hybridcache's throughput / OHC's
    putNumber(n, "throughput_ratio", ratio.median());
    putNumber(n, "throughput_ratio_min", ratio.min());
    putNumber(n, "throughput_ratio_max", ratio.max());
    ArrayNode ratios = n.putArray("pair_throughput_ratios");
    summary.throughputRatios().forEach(ratios::add);
    if (ratio.n() > 0) {
      n.put("throughput_gain", ratio.median() - 1);
      n.put("goal_met", ratio.median() >= 1.85
          && summary.spread("hybrid", "read_p99_us").median() < summary.spread("ohc", "read_p99_us").median());
    }
    ObjectNode setup = n.putObject("setup");
    setup.put("sstable_disk", sstableDisk.name());
    setup.put("records", records());
    setup.put("row_cache_bytes", rowCache);
    setup.put("flash_bytes", flash());
    setup.put("threads", threads);
    setup.put("transactional_seconds", seconds());
    setup.put("pairs", pairs());
    setup.put("heap", heap());
    setup.put("node_memory", nodeMemory() == null ? "unlimited" : nodeMemory());
    setup.put("providers_concurrent", !hdd());
    if (hdd()) {
      EmulatedHdd.Throttle t = throttle();
      setup.put("hdd_read_iops", t.readIops());
      setup.put("hdd_write_iops", t.writeIops());
      setup.put("hdd_read_bps", t.readBps());
      setup.put("hdd_write_bps", t.writeBps());
      setup.put("hdd_image_bytes", imageBytes());
      setup.put("hdd_read_ahead_kb", EmulatedHdd.READ_AHEAD_KB);
      setup.put("warmup_throttled", throttledWarmup);
      setup.put("warmup_window_seconds", warmupWindow());
      setup.put("warmup_max_seconds", warmupMax());
      setup.put("page_cache_dropped_before_measure", coldPageCache);
    }
    ObjectNode sum = n.putObject("summary");
    for (String provider : summary.providers()) {
      ObjectNode p = sum.putObject(provider);
      for (String figure : PairSummary.FIGURES.keySet()) {
        Spread sp = summary.spread(provider, figure);
        ObjectNode f = p.putObject(figure);
        putNumber(f, "median", sp.median());
        putNumber(f, "min", sp.min());
        putNumber(f, "max", sp.max());
        f.put("runs", sp.n());
      }
    }
    ArrayNode a = n.putArray("results");
    for (Result r : results) {
      ObjectNode o = a.addObject();
      o.put("provider", r.provider());
      o.put("pair", r.pair());
      o.put("sstable_disk", sstableDisk.name());
      PairSummary.FIGURES.forEach((name, f) -> putNumber(o, name, f.applyAsDouble(r)));
      putNumber(o, "warmup_hit_ratio", r.warmup().hitRatio());
      o.put("warmup_stop", r.warmup().stop());
      o.put("warmup_stop_reason", r.warmup().why());
      ArrayNode w = o.putArray("warmup_window_hit_ratios");
      r.warmup().windows().forEach(w::add);
      o.put("operations", r.ops());
      o.put("row_cache_misses", r.misses());
      if (r.disk() != null) {
        DiskFigures d = r.disk();
        putNumber(o, "sstable_read_bytes_per_op", r.ops() == 0 ? Double.NaN : (double) d.readBytes() / r.ops());
        o.put("sstable_disk_reads", d.reads());
        o.put("sstable_disk_writes", d.writes());
        o.put("blkio_reads_serviced", d.cgroupReads());
        putNumber(o, "cassandra_sstables_read", r.sstables().sstablesRead());
        putNumber(o, "cassandra_reads_counted", r.sstables().reads());
        putNumber(o, "cassandra_sstables_per_read", r.sstables().perRead());
        o.put("node_memory_peak_bytes", d.memoryPeakBytes());
        o.put("node_anonymous_bytes", d.rssBytes());
        o.put("node_page_cache_bytes", d.pageCacheBytes());
        o.put("node_oom_kills", d.oomKills());
      }
      o.put("nodetool_row_cache", r.rowCacheLine().replaceAll("\\s+", " "));
    }
    return n;
  }
}
