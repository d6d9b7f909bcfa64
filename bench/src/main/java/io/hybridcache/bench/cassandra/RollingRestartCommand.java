package io.hybridcache.bench.cassandra;

import com.datastax.oss.driver.api.core.CqlSession;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.BenchMain;
import io.hybridcache.bench.Sizes;
import io.hybridcache.bench.StatsJson;
import io.hybridcache.bench.TextTable;
import io.hybridcache.bench.limits.Fio;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Issue 39's experiment: a 3-node Cassandra 5.0.9 cluster (RF 3, QUORUM reads and writes, the
 * transactional mix) whose nodes restart one after another while the client runs throughout, once
 * with {@code nodetool drain} + stop and once with kill -9, per row cache provider:
 * <ul>
 *   <li>{@code hybrid}: hybridcache with {@code start=warm} at every restart;
 *   <li>{@code ohc-saved}: Cassandra's OHCProvider with saved row caches ({@code row_cache_save_period}
 *       30 s, every key saved), which Cassandra reloads by reading each partition from its SSTables;
 *   <li>{@code ohc}: OHCProvider without saved caches, Cassandra's default.
 * </ul>
 * Every node has its own emulated HDD for its SSTables ({@link EmulatedHdd}: loop device with direct
 * I/O, blkio throttle, memory cgroup holding heap, off-heap and page cache), the same row cache DRAM
 * X for every provider, and hybridcache's flash tier on this machine's disk. Per provider: a fresh
 * cluster, the load and a warm-up (unthrottled: the caches end in the same state, flash fills faster),
 * then the throttle on and the page cache dropped, 2 x the steady window, the drain round and the kill
 * round, each node restarted after the previous one is Up/Normal again and settled.
 *
 * <p>Reported per provider and round: the steady throughput before the round, the operations lost
 * below it from the first stop to the end of the round, and per restart the start-up time (launch
 * to CQL open: saved-cache load included; JSON {@code startup_s}) and the time from launch until a
 * surviving node sees it Up/Normal in a new incarnation ({@link RingWatch}, polled over JMX every
 * second, each read bounded by {@link NodeJmx}'s timeout; only a poll begun after the launch decides;
 * {@code startup_to_up_normal_s}), the restarted node's row cache hit ratio before its stop,
 * the seconds until it is back within 5 points, and its SSTable reads per second (its disk's reads)
 * before and after, the round's worst read p99 over 10 s windows and its failed reads beside it (a
 * round starts on a window's start and owns the windows up to the next round's: each failed read is
 * in one round's figure); plus
 * 10 s windows of throughput (a PNG), of the read p99 of the reads that returned and of the reads that
 * failed (JSON), and the
 * {@link RollingClient read-your-writes checker}'s stale reads and, apart, its missing rows: the command
 * fails on one of either with hybridcache (another provider's are reported; {@link #failures}).
 */
@Command(name = "cassandra-rolling",
    description = {"Issue 39: a rolling restart of a 3-node Cassandra 5.0.9 cluster (RF 3, QUORUM) under load,",
        "drain + stop, then kill -9, per row cache provider (hybrid start=warm, OHC with and without saved caches);",
        "SSTables on emulated HDDs (root, cgroup v1). A read-your-writes checker runs throughout."},
    mixinStandardHelpOptions = true)
public final class RollingRestartCommand implements Callable<Integer> {
  private static final Path IT_DIR = Path.of("target", "cassandra-it");
  private static final String[] ADDRESSES = {"127.0.0.1", "127.0.0.2", "127.0.0.3"};
  private static final String[] TOKENS = {"-9223372036854775808", "-3074457345618258603", "3074457345618258602"};
  private static final String CLUSTER = "bench-rolling";
  private static final int SAMPLE_MILLIS = 2000;
  private static final Pattern UN = Pattern.compile("^UN\\s", Pattern.MULTILINE);

  @Spec
  CommandSpec spec;

  @Option(names = "--providers", split = ",", description = "row cache providers, in order (default: hybrid,ohc-saved,ohc)")
  List<String> providers = List.of("hybrid", "ohc-saved", "ohc");

  @Option(names = "--repetitions", description = "runs of every provider, alternating (default: ${DEFAULT-VALUE})")
  int repetitions = 1;

  @Option(names = "--records", description = "partitions of 10 x 100 B (default: ${DEFAULT-VALUE}, ~330 MB a node,"
      + " about the page cache the node's memory cgroup leaves)")
  long records = 300_000;

  @Option(names = "--row-cache", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "row_cache_size X of every provider (default: 8MiB)")
  long rowCache = 8L << 20;

  @Option(names = "--flash", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "hybridcache's flash tier per node, on this machine's disk (default: 192MiB, about 60%% of the data"
          + " set)")
  long flash = 192L << 20;

  @Option(names = "--heap", description = "each node's heap (default: ${DEFAULT-VALUE})")
  String heap = "512M";

  @Option(names = "--node-memory", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "each node's memory cgroup: heap, off-heap, page cache (default: 1152MiB)")
  long nodeMemory = 1152L << 20;

  @Option(names = "--threads", description = "client threads (default: ${DEFAULT-VALUE})")
  int threads = 16;

  @Option(names = "--warmup-seconds", description = "unthrottled warm-up (default: ${DEFAULT-VALUE}); then 2 x --steady-seconds"
      + " throttled before the first round")
  int warmupSeconds = 150;

  @Option(names = "--steady-seconds", description = "seconds before a round that define its steady throughput"
      + " (default: ${DEFAULT-VALUE})")
  int steadySeconds = 20;

  @Option(names = "--settle-seconds", description = "seconds a restarted node serves before the next stop"
      + " (default: ${DEFAULT-VALUE})")
  int settleSeconds = 40;

  @Option(names = "--read-iops", description = "each emulated HDD's read IOPS (default: ${DEFAULT-VALUE})")
  long readIops = 200;

  @Option(names = "--rounds", split = ",", description = "restart rounds, in order (default: drain,kill)")
  List<String> rounds = List.of("drain", "kill");

  @Option(names = "--json", description = "also write the figures here")
  Path json;

  @Option(names = "--chart", description = "the throughput plot (default: target/cassandra-rolling.png)")
  Path chart = Path.of("target", "cassandra-rolling.png");

  private final Path script = Path.of("src/it/cassandra.sh");

  /** One restart's figures. */
  record Restart(String round, int node, double stopAt, double upAt, double startupSeconds, double upNormalSeconds,
                 double hitBefore,
                 double recoverySeconds, double hitAfter, double diskReadsBefore, double diskReadsAfter,
                 double requestsBefore, double requestsAfter) {}

  /** One round's figures. */
  record Round(String round, double firstStop, double end, double steadyOps, long lostOps) {}

  /** One provider's run. */
  record Run(String provider, int repetition, List<Round> rounds, List<Restart> restarts, long[] opsPerSecond,
             double[] readP99PerWindow, long[] failedReadsPerWindow, long reads, long errors, long stale,
             List<RollingClient.StaleRead> staleReads,
             long missing, List<RollingClient.MissingRead> missingReads) {}

  @Override
  public Integer call() throws Exception {
    PrintStream err = System.err;
    validate();
    List<String> missing = EmulatedHdd.missing();
    if (!missing.isEmpty()) {
      err.println("cassandra-rolling: cannot run here; it needs:");
      missing.forEach(m -> err.println("  - " + m));
      return BenchMain.ENVIRONMENT;
    }
    int perRun = warmupSeconds + rounds.size() * (3 * (60 + settleSeconds) + steadySeconds) + 300;
    Progress progress = new Progress(err, repetitions * providers.size(), perRun);
    err.printf(Locale.ROOT, "cassandra-rolling: 3 nodes, RF 3, QUORUM, %,d records, row cache X = %s, flash %s a node"
            + " (hybrid), heap %s, node memory %s, HDD %d read IOPS a node; providers %s x %d; rounds %s; %d s warm-up,"
            + " %d s settle per restart (about %d min a run)%n",
        records, Sizes.format(rowCache), Sizes.format(flash), heap, Sizes.format(nodeMemory), readIops,
        String.join(",", providers), repetitions, String.join(",", rounds), warmupSeconds, settleSeconds, perRun / 60);
    Fio.Result fioBefore = fio(err);
    node(List.of("lib"), null);
    List<Run> runs = new ArrayList<>();
    Cleanup cleanup = new Cleanup(err);
    Thread hook = new Thread(cleanup::runAll, "cassandra-rolling-cleanup");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      for (int rep = 1; rep <= repetitions; rep++) {
        for (String provider : providers) {
          progress.runStarts();
          runs.add(runCluster(provider, rep, cleanup, progress, err));
          progress.runDone();
        }
      }
    } finally {
      cleanup.runAll();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException ignored) {
        // shutting down
      }
    }
    Fio.Result fioAfter = fio(err);
    return report(runs, fioBefore, fioAfter, err);
  }

  private void validate() {
    for (String p : providers) {
      if (!List.of("hybrid", "ohc-saved", "ohc").contains(p)) {
        throw usage("--providers: " + p + " is not one of hybrid, ohc-saved, ohc");
      }
    }
    for (String r : rounds) {
      if (!List.of("drain", "kill").contains(r)) {
        throw usage("--rounds: " + r + " is not one of drain, kill");
      }
    }
    if (records < 1000 || records > Integer.MAX_VALUE) {
      throw usage("--records must be in 1000.." + Integer.MAX_VALUE + ", was " + records);
    }
    if (rowCache < (1L << 20) || flash < CassandraCommand.MIN_FLASH) {
      throw usage("--row-cache must be at least 1MiB and --flash at least " + Sizes.format(CassandraCommand.MIN_FLASH)
          + ", were " + Sizes.format(rowCache) + " and " + Sizes.format(flash));
    }
    if (nodeMemory < Sizes.parse(heap) + (512L << 20)) {
      throw usage("--node-memory must be at least --heap + 512MiB, was " + Sizes.format(nodeMemory) + " with heap " + heap);
    }
    if (repetitions < 1 || threads < 1 || warmupSeconds < steadySeconds || steadySeconds < 10 || settleSeconds < 10
        || readIops < 1) {
      throw usage("--repetitions, --threads, --read-iops >= 1; --steady-seconds and --settle-seconds >= 10;"
          + " --warmup-seconds >= --steady-seconds; were " + repetitions + ", " + threads + ", " + readIops + ", "
          + steadySeconds + ", " + settleSeconds + ", " + warmupSeconds);
    }
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  private static String name(int i) {
    return "roll" + (i + 1);
  }

  private static int jmxPort(int i) {
    return 17199 + 100 * i;
  }

  /** One provider: a fresh cluster, load, warm-up, the rounds; everything taken down at the end. */
  private Run runCluster(String provider, int rep, Cleanup cleanup, Progress progress, PrintStream err)
      throws Exception {
    int mark = cleanup.mark();
    try {
      String tag = provider + " #" + rep;
      progress.phase(tag + ": three emulated disks and nodes");
      EmulatedHdd[] disks = new EmulatedHdd[3];
      List<Map<String, String>> envs = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        Path image = IT_DIR.resolve("rolling").resolve(name(i) + ".img").toAbsolutePath();
        if (Files.exists(image)) { // never deleted unseen: it may still be attached to a loop device
          throw new IllegalStateException(image + " exists: this run creates and deletes its images itself; remove"
              + " it (after `losetup -a` shows it detached)");
        }
        EmulatedHdd.createImage(image, Math.max(4L << 30, records * CassandraCommand.RECORD_BYTES * 3));
        cleanup.add("delete " + image, () -> Files.deleteIfExists(image));
        EmulatedHdd disk = EmulatedHdd.attach(image, IT_DIR.resolve("rolling-mnt").resolve(name(i)), true, err);
        cleanup.add("take down " + image, disk::close);
        List<Path> groups = disk.createCgroups("hybridcache-rolling-" + ProcessHandle.current().pid() + "-" + name(i),
            nodeMemory);
        disk.throttle(EmulatedHdd.Throttle.NONE);
        disks[i] = disk;
        Map<String, String> env = new LinkedHashMap<>();
        env.put("HC_DATA_DIR", disk.mountPoint().toString());
        env.put("HC_CLUSTER", CLUSTER);
        env.put("HC_CGROUPS", String.join(" ", groups.stream().map(Path::toString).toList()));
        env.put("HC_FLASH_SIZE", (flash >> 20) + "MiB");
        env.put("HC_SEGMENT_SIZE", (CassandraCommand.SEGMENT_BYTES >> 20) + "MiB");
        env.put("HC_MEMTABLE_MIB", "128");
        env.put("HC_ROW_CACHE_SAVE_PERIOD", provider.equals("ohc-saved") ? "30s" : "0s");
        env.put("HC_ROW_CACHE_KEYS_TO_SAVE", "2147483647");
        env.put("HC_START", "warm"); // from the first start: a run that started cold does not close at the drain's end
        envs.add(env);
      }
      String seeds = ADDRESSES[0] + ":17000";
      for (int i = 0; i < 3; i++) {
        int n = i;
        // registered first: a start that fails (no CQL port in time) leaves the JVM running on the mount, and
        // only its pid file, written at launch, lets the stop find it
        cleanup.add("stop " + name(n), () -> node(List.of("stop", name(n)), null));
        node(List.of("start", name(i), ADDRESSES[i], provider.startsWith("ohc") ? "ohc" : "hybrid",
            Long.toString(rowCache >> 20), heap, seeds, TOKENS[i]), envs.get(i));
      }
      awaitAllUp(-1, err);
      try (CqlSession s = CqlDB.connect(String.join(",", List.of(ADDRESSES).stream().map(a -> a + ":19042").toList()),
          "datacenter1", null, Duration.ofSeconds(60))) {
        s.execute("CREATE KEYSPACE IF NOT EXISTS ycsb WITH replication = {'class': 'SimpleStrategy',"
            + " 'replication_factor': 3}");
        s.execute(CqlDB.createTableCql("ycsb", "usertable", RollingClient.FIELDS,
            "compaction = {'class': 'SizeTieredCompactionStrategy', 'enabled': 'false'}"));
        int maxSeconds = warmupSeconds + rounds.size() * 3 * (600 + settleSeconds) + 3600;
        RollingClient client = new RollingClient(s, records, threads, maxSeconds, err);
        progress.phase(tag + ": loading " + records + " records at QUORUM (unthrottled)");
        client.load(64);
        for (int i = 0; i < 3; i++) {
          node(List.of("nodetool", name(i), "flush", "ycsb", "usertable"), null);
        }
        List<List<RollingReport.Sample>> samples = List.of(new CopyOnWriteArrayList<>(), new CopyOnWriteArrayList<>(),
            new CopyOnWriteArrayList<>());
        client.start();
        Thread sampler = sampler(client, disks, samples);
        try {
          // the warm-up unthrottled (the caches end in the same state, flash fills several times faster), then
          // the throttle on and the page cache dropped, and the steady window before the first round throttled
          progress.phase(tag + ": warm-up, " + warmupSeconds + " s (unthrottled)");
          report(tag + " warm-up", warmupSeconds, client, samples, err);
          EmulatedHdd.dropPageCache();
          for (EmulatedHdd d : disks) {
            d.throttle(new EmulatedHdd.Throttle(readIops, 0, 150L << 20, 0));
          }
          progress.phase(tag + ": throttled, " + 2 * steadySeconds + " s to the first round");
          report(tag + " throttled", 2 * steadySeconds, client, samples, err); // the page cache refills, then steady
          List<Round> done = new ArrayList<>();
          List<Restart> restarts = new ArrayList<>();
          // one steady figure a run, before its first round: the window before a later round follows the last
          // restart of the one before it, not a steady state, and would make rounds and providers incomparable
          double steadyEnd = client.secondsSinceStart();
          double steady = RollingReport.steady(client.opsPerSecond(), (int) steadyEnd - steadySeconds, (int) steadyEnd);
          for (String round : rounds) {
            // on a 10 s window's start (the wait, at most 10 s, settles the last restart further): the round owns
            // whole windows, from its first stop to the next round's start (RollingReport.failedReads)
            double first = client.awaitWindowStart();
            for (int i = 0; i < 3; i++) {
              progress.phase(tag + ": " + round + " round, " + name(i));
              restarts.add(restart(provider, round, i, client, samples.get(i), envs.get(i), err));
            }
            double end = client.secondsSinceStart();
            long lost = RollingReport.lost(client.opsPerSecond(), steady, (int) first, (int) end);
            err.printf(Locale.ROOT, "cassandra-rolling: %s %s round: steady %.0f ops/s, %,d operations lost (%.1f s of"
                + " steady throughput), stale reads so far %d, missing %d%n", tag, round, steady, lost, lost / steady,
                client.staleReads(), client.missingReads());
            done.add(new Round(round, first, end, steady, lost));
          }
          return new Run(provider, rep, done, restarts, client.opsPerSecond(), client.readP99PerWindow(),
              client.failedReadsPerWindow(), client.reads(),
              client.errors(), client.staleReads(), client.firstStaleReads(), client.missingReads(),
              client.firstMissingReads());
        } finally {
          client.close();
          sampler.interrupt();
          sampler.join(10_000);
          if (client.lastError() != null) {
            err.println("cassandra-rolling: " + tag + ": " + client.errors() + " failed operations, the last: "
                + client.lastError());
          }
        }
      }
    } finally {
      cleanup.unwindTo(mark);
    }
  }

  /** Lets the client run for {@code seconds}, printing throughput and hit ratios every 30 s. */
  private static void report(String what, int seconds, RollingClient client, List<List<RollingReport.Sample>> samples,
                             PrintStream err) throws InterruptedException {
    for (int waited = 0; waited < seconds; waited += 30) {
      int step = Math.min(30, seconds - waited);
      Thread.sleep(step * 1000L);
      double t = client.secondsSinceStart();
      long[] ops = client.opsPerSecond();
      err.printf(Locale.ROOT, "cassandra-rolling: %s %.0f s: %.0f ops/s, row cache hit ratios %s, stale reads %d%n",
          what, t, RollingReport.steady(ops, ops.length - step, ops.length), hitRatios(samples, t - step, t),
          client.staleReads());
    }
  }

  private static final String TABLE_METRIC = "org.apache.cassandra.metrics:type=Table,keyspace=ycsb,scope=usertable,name=";

  /**
   * Every 2 s: each node's row cache hits and requests of the table (JMX; NaN while down; requests = hits, misses
   * and hits out of range) and its disk's completed reads.
   */
  private static Thread sampler(RollingClient client, EmulatedHdd[] disks, List<List<RollingReport.Sample>> samples) {
    Thread t = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        for (int i = 0; i < 3; i++) {
          NodeJmx jmx = new NodeJmx("127.0.0.1", jmxPort(i));
          // the table's own row cache counters: the cache's Hits count an in-flight read's sentinel as a hit,
          // which the read path then treats as a miss ("Row cache miss (race)")
          double hits = jmx.read(TABLE_METRIC + "RowCacheHit", "Count")[0];
          double requests = hits + jmx.read(TABLE_METRIC + "RowCacheMiss", "Count")[0]
              + jmx.read(TABLE_METRIC + "RowCacheHitOutOfRange", "Count")[0];
          long reads;
          try {
            reads = disks[i].stat().readsCompleted();
          } catch (IOException e) {
            reads = -1;
          }
          samples.get(i).add(new RollingReport.Sample(client.secondsSinceStart(), hits, requests, reads));
        }
        try {
          Thread.sleep(SAMPLE_MILLIS);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "cassandra-rolling-sampler");
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static String hitRatios(List<List<RollingReport.Sample>> samples, double from, double to) {
    List<String> r = new ArrayList<>();
    for (List<RollingReport.Sample> s : samples) {
      r.add(String.format(Locale.ROOT, "%.3f (%.0f req/s)", RollingReport.hitRatio(s, from, to),
          RollingReport.requestsPerSecond(s, from, to)));
    }
    return String.join(" / ", r);
  }

  /** Stops node i (drain + stop, or kill -9), starts it again, waits for the ring, lets it settle. */
  private Restart restart(String provider, String round, int i, RollingClient client, List<RollingReport.Sample> samples,
                          Map<String, String> env, PrintStream err) throws Exception {
    double stopAt = client.secondsSinceStart();
    double hitBefore = RollingReport.hitRatio(samples, stopAt - RollingReport.BEFORE_SECONDS, stopAt);
    double diskBefore = RollingReport.diskReadsPerSecond(samples, stopAt - RollingReport.BEFORE_SECONDS, stopAt);
    double requestsBefore = RollingReport.requestsPerSecond(samples, stopAt - RollingReport.BEFORE_SECONDS, stopAt);
    Launch launch = stopAndStart(provider, round, i, client, env, err);
    double startup = launch.toCql();
    double upNormal = launch.toUpNormal();
    double upAt = launch.cqlAt();
    awaitAllUp(i, err);
    Thread.sleep(settleSeconds * 1000L);
    double end = client.secondsSinceStart();
    double recovery = RollingReport.recoverySeconds(samples, upAt, end, hitBefore);
    double hitAfter = RollingReport.hitRatio(samples, end - RollingReport.BEFORE_SECONDS, end);
    double diskAfter = RollingReport.diskReadsPerSecond(samples, upAt, end);
    double requestsAfter = RollingReport.requestsPerSecond(samples, end - RollingReport.BEFORE_SECONDS, end);
    String log = Files.readString(IT_DIR.resolve("nodes").resolve(name(i)).resolve("logs").resolve("system.log"),
        StandardCharsets.UTF_8);
    String start = provider.equals("hybrid") ? lastStart(log) : "";
    err.printf(Locale.ROOT, "cassandra-rolling: %s %s %s: start-up %.1f s to CQL open, %.1f s to Up/Normal on a"
            + " survivor, hit ratio %.3f before (%.0f row cache requests/s), back within %.0f points after %s, %.3f"
            + " at the end (%.0f requests/s); disk reads %.0f/s"
            + " before, %.0f/s after; stale reads so far %d%s%n",
        provider, round, name(i), startup, upNormal, hitBefore, requestsBefore, RollingReport.TOLERANCE * 100,
        Double.isNaN(recovery) ? "never (within " + settleSeconds + " s)" : String.format(Locale.ROOT, "%.1f s", recovery),
        hitAfter, requestsAfter, diskBefore, diskAfter, client.staleReads(), start);
    return new Restart(round, i + 1, stopAt, upAt, startup, upNormal, hitBefore, recovery, hitAfter, diskBefore,
        diskAfter, requestsBefore, requestsAfter);
  }

  /** A restart's start: seconds from launch to CQL open and to Up/Normal on a survivor; CQL open on the client clock. */
  private record Launch(double toCql, double toUpNormal, double cqlAt) {}

  /**
   * Stops node i (drain + stop, or kill -9) and starts it again, watching from before the stop how a survivor sees
   * it (so that the old incarnation is not taken for the new one); returns once CQL is open and a survivor has seen
   * it Up/Normal (or 180 s have passed since CQL opened: NaN).
   */
  private Launch stopAndStart(String provider, String round, int i, RollingClient client, Map<String, String> env,
                              PrintStream err) throws InterruptedException {
    PollFaults faults = new PollFaults();
    RingWatch.Observation before = observe(i, faults, RollingRestartCommand::survivorJmx);
    CompletableFuture<Double> upNormalAt = new CompletableFuture<>();
    RingWatch watch = new RingWatch(before == null ? -1 : before.generation());
    Thread watcher = watcher(i, watch, client, upNormalAt, faults);
    try {
      if (round.equals("drain")) {
        node(List.of("nodetool", name(i), "drain"), null);
        node(List.of("stop", name(i)), null);
      } else {
        node(List.of("kill", name(i)), null);
      }
      double launchAt = client.secondsSinceStart();
      watch.launched(); // after launchAt: a decision comes from a poll begun after it, never earlier
      long t0 = System.nanoTime();
      node(List.of("restart", name(i), Long.toString(rowCache >> 20), provider.equals("hybrid") ? "warm" : "cold",
          heap), env);
      double toCql = (System.nanoTime() - t0) / 1e9;
      double cqlAt = client.secondsSinceStart();
      return new Launch(toCql, awaitUpNormal(upNormalAt, i, faults, err) - launchAt, cqlAt);
    } finally {
      watcher.interrupt();
      watcher.join(10_000);
      faults.report(name(i), err);
    }
  }

  private static final Pattern START_LINE = Pattern.compile("hybridcache row cache: DRAM [^\\n]*?\\((start=[^,]*), settings");

  /** The provider's last start line's verdict, e.g. ", start=warm: flash tier kept"; empty if not found. */
  private static String lastStart(String log) {
    Matcher m = START_LINE.matcher(log);
    String last = null;
    while (m.find()) {
      last = m.group(1);
    }
    return last == null ? "" : ", " + last;
  }

  private static final String STORAGE_SERVICE = "org.apache.cassandra.db:type=StorageService";
  private static final String FAILURE_DETECTOR = "org.apache.cassandra.net:type=FailureDetector";
  private static final int RING_POLL_MILLIS = 1000;
  private static final int UP_NORMAL_TIMEOUT_SECONDS = 180;

  private static NodeJmx survivorJmx(int node) {
    return new NodeJmx("127.0.0.1", jmxPort(node));
  }

  /**
   * What the first surviving node (not {@code restarted}; {@code jmxOf} reaches node j) that answers over JMX sees
   * of node {@code restarted}: {@code nodetool status}'s sources (StorageService's live, joining, leaving and
   * moving nodes) and its gossip generation (unknown, -1, if that second read fails); null if no survivor
   * answered. Every failed JMX read is counted in {@code faults}, and the poll as answered or not.
   */
  static RingWatch.Observation observe(int restarted, PollFaults faults, IntFunction<NodeJmx> jmxOf) {
    for (int j = 0; j < 3; j++) {
      if (j == restarted) {
        continue;
      }
      NodeJmx jmx = jmxOf.apply(j);
      NodeJmx.Answer ring = jmx.query(STORAGE_SERVICE, "LiveNodes", "JoiningNodes", "LeavingNodes", "MovingNodes");
      Object[] r = ring.values();
      if (!ring.answered() || !java.util.Arrays.stream(r).allMatch(o -> o instanceof List<?>)) {
        faults.failed(ring.answered()
            ? new IllegalStateException(name(j) + "'s StorageService answered " + java.util.Arrays.toString(r))
            : ring.failure());
        continue;
      }
      NodeJmx.Answer states = jmx.query(FAILURE_DETECTOR, "AllEndpointStates");
      if (!states.answered()) {
        faults.failed(states.failure());
      }
      RingWatch.Observation o = RingWatch.Observation.of(ADDRESSES[restarted], strings(r[0]), strings(r[1]),
          strings(r[2]), strings(r[3]), states.values()[0] instanceof String s ? s : null);
      faults.polled(true);
      return o;
    }
    faults.polled(false);
    return null;
  }

  private static List<String> strings(Object list) {
    return ((List<?>) list).stream().map(String::valueOf).toList();
  }

  /**
   * Polls the survivors every {@link #RING_POLL_MILLIS} until {@code watch} sees node {@code restarted} Up/Normal
   * in a new incarnation (only a poll begun after {@link RingWatch#launched} decides), then completes {@code at}
   * with the client's clock. A failed JMX read is counted in {@code faults}; so is a poll that throws (anything,
   * an {@code Error} included), as no answer. Started before the stop, so that the old incarnation is seen.
   */
  private static Thread watcher(int restarted, RingWatch watch, RollingClient client, CompletableFuture<Double> at,
                                PollFaults faults) {
    Thread t = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        try {
          if (watch.poll(() -> observe(restarted, faults, RollingRestartCommand::survivorJmx))) {
            at.complete(client.secondsSinceStart());
            return;
          }
        } catch (Throwable e) { // no answer this time: counted, reported after the restart; the watch goes on
          faults.failed(e);
          faults.polled(false);
        }
        try {
          Thread.sleep(RING_POLL_MILLIS);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "cassandra-rolling-ring-" + name(restarted));
    t.setDaemon(true);
    t.start();
    return t;
  }

  /**
   * The ring watch's JMX reads that failed (a survivor down or not answering within its timeout, or a poll that
   * threw), counted with the last kept, and its polls, answered by a survivor or not: reported once the restart
   * is over, and in the message when no survivor showed the node Up/Normal in time. Thread-safe.
   */
  static final class PollFaults {
    private final java.util.concurrent.atomic.AtomicLong count = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong polls = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong answered = new java.util.concurrent.atomic.AtomicLong();
    private volatile Throwable last;

    void failed(Throwable e) {
      count.incrementAndGet();
      last = e;
    }

    /** One poll of the survivors, {@code answered} if one of them answered it. */
    void polled(boolean answered) {
      polls.incrementAndGet();
      if (answered) {
        this.answered.incrementAndGet();
      }
    }

    /** Failed JMX reads. */
    long count() {
      return count.get();
    }

    /** One line on {@code err} if a read failed (none: nothing). */
    void report(String node, PrintStream err) {
      long n = count.get();
      if (n > 0) {
        err.println("cassandra-rolling: the ring watch of " + node + ": " + n + " JMX read(s) of the survivors failed"
            + " (a poll none of them answered counts as no answer); " + answered() + "; the last: " + last);
      }
    }

    /** Why no Up/Normal was seen of {@code node} in {@code seconds}: the survivors did not answer, or not so. */
    String timeout(String node, int seconds) {
      String why = answered.get() == 0
          ? "no survivor answered over JMX (" + polls.get() + " polls, " + count.get() + " failed reads, the last: "
              + last + "): its state is unknown"
          : answered() + ", and none showed it Up/Normal in a new incarnation";
      return "no survivor showed " + node + " Up/Normal in a new incarnation within " + seconds
          + " s of its CQL port opening: " + why;
    }

    private String answered() {
      return "a survivor answered " + answered.get() + " of " + polls.get() + " polls";
    }
  }

  /**
   * When a survivor saw the node Up/Normal (client clock), waiting at most 180 s after CQL open; NaN if never,
   * saying whether the survivors answered ({@code faults}).
   */
  private static double awaitUpNormal(CompletableFuture<Double> at, int restarted, PollFaults faults, PrintStream err)
      throws InterruptedException {
    try {
      return at.get(UP_NORMAL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      err.println("cassandra-rolling: " + faults.timeout(name(restarted), UP_NORMAL_TIMEOUT_SECONDS));
      return Double.NaN;
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  /**
   * Waits (at most 180 s) until a node other than {@code restarted} (-1: any) sees three nodes Up/Normal: the
   * first one that answers decides.
   */
  private void awaitAllUp(int restarted, PrintStream err) throws InterruptedException {
    long deadline = System.nanoTime() + 180_000_000_000L;
    while (System.nanoTime() < deadline) {
      for (int i = 0; i < 3; i++) {
        if (i == restarted) {
          continue;
        }
        try {
          String status = String.join("\n", NodeScript.run(script, List.of("nodetool", name(i), "status"), null, true));
          int up = 0;
          Matcher m = UN.matcher(status);
          while (m.find()) {
            up++;
          }
          if (up == 3) {
            return;
          }
          break;
        } catch (IllegalStateException e) {
          // that node is down (the one restarting): ask the next
        }
      }
      Thread.sleep(2000);
    }
    throw new IllegalStateException("the cluster did not show three nodes Up/Normal within 180 s");
  }

  private Fio.Result fio(PrintStream err) throws IOException, InterruptedException {
    Fio fio = new Fio("fio");
    if (fio.ensure(true, err) == null) {
      return null;
    }
    Path file = IT_DIR.resolve("rolling-fio.dat").toAbsolutePath();
    Files.createDirectories(file.getParent());
    try {
      return fio.run(Fio.randRead(file, 1L << 30, 4, 10, "psync"), "read", err);
    } finally {
      Files.deleteIfExists(file);
    }
  }

  private Integer report(List<Run> runs, Fio.Result before, Fio.Result after, PrintStream err) throws IOException {
    TextTable t = new TextTable("provider", "rep", "round", "steady ops/s", "ops lost", "= s of steady",
        "start-up s (CQL)", "Up/Normal s", "hit before", "back within 5 pts (s)", "disk reads/s before -> after",
        "worst read p99 ms", "failed reads", "stale", "missing", "errors");
    for (Run r : runs) {
      for (Round round : r.rounds()) {
        List<Restart> rs = r.restarts().stream().filter(x -> x.round().equals(round.round())).toList();
        t.row(r.provider(), Integer.toString(r.repetition()), round.round(), fixed(round.steadyOps(), 0),
            String.format(Locale.ROOT, "%,d", round.lostOps()), fixed(round.lostOps() / round.steadyOps(), 1),
            join(rs, x -> fixed(x.startupSeconds(), 1)), join(rs, x -> fixed(x.upNormalSeconds(), 1)),
            join(rs, x -> fixed(x.hitBefore(), 2)),
            join(rs, x -> Double.isNaN(x.recoverySeconds()) ? "never" : fixed(x.recoverySeconds(), 0)),
            join(rs, x -> fixed(x.diskReadsBefore(), 0) + "->" + fixed(x.diskReadsAfter(), 0)),
            fixed(RollingReport.worstP99(r.readP99PerWindow(), round.firstStop(), round.end()) / 1000, 0),
            Long.toString(RollingReport.failedReads(r.failedReadsPerWindow(), round.firstStop(), round.end())),
            Long.toString(r.stale()), Long.toString(r.missing()), Long.toString(r.errors()));
      }
    }
    t.print(System.out);
    if (before != null && after != null) {
      System.out.printf(Locale.ROOT, "fio 4 KiB random reads, 4 jobs QD1, this machine's disk (the flash tier's):"
          + " %.0f IOPS before, %.0f after; each node's SSTable disk throttled to %d read IOPS%n", before.iops(),
          after.iops(), readIops);
    }
    Path png = RollingChart.write(chart, runs);
    err.println("cassandra-rolling: wrote " + png);
    if (json != null) {
      StatsJson.MAPPER.writerWithDefaultPrettyPrinter().writeValue(json.toFile(), toJson(runs, before, after));
      err.println("cassandra-rolling: wrote " + json.toAbsolutePath());
    }
    for (Run r : runs) {
      if (r.stale() > 0) {
        err.println("cassandra-rolling: " + r.provider() + " #" + r.repetition() + ": " + r.stale()
            + " stale reads at QUORUM; the first: " + r.staleReads().stream().limit(5).toList());
      }
      if (r.missing() > 0) {
        err.println("cassandra-rolling: " + r.provider() + " #" + r.repetition() + ": " + r.missing()
            + " reads found no row at QUORUM; the first: " + r.missingReads().stream().limit(5).toList());
      }
    }
    List<String> failures = failures(runs);
    failures.forEach(f -> err.println("cassandra-rolling: FAIL: " + f));
    return failures.isEmpty() ? BenchMain.OK : BenchMain.FAILED;
  }

  /**
   * Why the command fails, empty if it does not: a stale read or a missing row (a partition the load
   * wrote and QUORUM acknowledged before the client started, which nothing deletes) served with
   * hybridcache; a peer's are reported, not failed. A run whose client read nothing checked nothing.
   */
  static List<String> failures(List<Run> runs) {
    List<String> f = new ArrayList<>();
    for (Run r : runs) {
      String tag = r.provider() + " #" + r.repetition();
      if (r.provider().equals("hybrid") && r.stale() > 0) {
        f.add(tag + ": hybridcache served " + r.stale() + " stale reads");
      }
      if (r.provider().equals("hybrid") && r.missing() > 0) {
        f.add(tag + ": " + r.missing() + " reads found no row with hybridcache (lost partitions)");
      }
      if (r.reads() == 0) {
        f.add(tag + ": the client read nothing");
      }
    }
    return f;
  }

  private static String join(List<Restart> rs, java.util.function.Function<Restart, String> f) {
    return String.join(" / ", rs.stream().map(f).toList());
  }

  private static String fixed(double v, int digits) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%." + digits + "f", v);
  }

  private ObjectNode toJson(List<Run> runs, Fio.Result before, Fio.Result after) {
    ObjectNode root = StatsJson.MAPPER.createObjectNode();
    root.put("records", records).put("row_cache_bytes", rowCache).put("flash_bytes", flash).put("read_iops", readIops)
        .put("threads", threads).put("settle_seconds", settleSeconds);
    if (before != null && after != null) {
      root.put("fio_randread4_iops_before", before.iops()).put("fio_randread4_iops_after", after.iops());
    }
    ArrayNode arr = root.putArray("runs");
    for (Run r : runs) {
      ObjectNode o = arr.addObject();
      o.put("provider", r.provider()).put("repetition", r.repetition()).put("reads", r.reads())
          .put("errors", r.errors()).put("stale_reads", r.stale()).put("missing_reads", r.missing());
      ArrayNode rounds = o.putArray("rounds");
      for (Round x : r.rounds()) {
        rounds.addObject().put("round", x.round()).put("first_stop_s", x.firstStop()).put("end_s", x.end())
            .put("steady_ops", x.steadyOps()).put("lost_ops", x.lostOps())
            .put("worst_read_p99_us", RollingReport.worstP99(r.readP99PerWindow(), x.firstStop(), x.end()))
            .put("read_failures", RollingReport.failedReads(r.failedReadsPerWindow(), x.firstStop(), x.end()));
      }
      ArrayNode restarts = o.putArray("restarts");
      for (Restart x : r.restarts()) {
        restarts.addObject().put("round", x.round()).put("node", x.node()).put("stop_s", x.stopAt())
            .put("up_s", x.upAt()).put("startup_s", x.startupSeconds())
            .put("startup_to_up_normal_s", x.upNormalSeconds()).put("hit_before", x.hitBefore())
            .put("recovery_s", x.recoverySeconds()).put("hit_after", x.hitAfter())
            .put("disk_reads_before", x.diskReadsBefore()).put("disk_reads_after", x.diskReadsAfter())
            .put("row_cache_requests_per_s_before", x.requestsBefore())
            .put("row_cache_requests_per_s_after", x.requestsAfter());
      }
      ArrayNode ops = o.putArray("ops_per_second");
      for (long v : r.opsPerSecond()) {
        ops.add(v);
      }
      ArrayNode p99 = o.putArray("read_p99_us_per_10s");
      for (double v : r.readP99PerWindow()) {
        p99.add(v);
      }
      ArrayNode failed = o.putArray("read_failures_per_10s"); // beside the p99, which only reads that returned make
      for (long v : r.failedReadsPerWindow()) {
        failed.add(v);
      }
    }
    return root;
  }

  private List<String> node(List<String> args, Map<String, String> env) {
    return NodeScript.run(script, args, env, false);
  }
}
