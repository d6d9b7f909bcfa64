package io.hybridcache.bench.limits;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.BenchDirs;
import io.hybridcache.bench.BenchMain;
import io.hybridcache.bench.Sizes;
import io.hybridcache.bench.StatsJson;
import io.hybridcache.bench.TextTable;
import io.hybridcache.bench.ycsb.YcsbCommand;
import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.IndexType;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The disk's limits (fio) next to what the cache gets out of the same disk, as ratios.
 *
 * <p>fio, direct I/O, in {@code --dir}: 4 KiB random reads at queue depth 1 with 1 and with 4
 * jobs (time-based, on a test file of {@code --fio-size}), and 1 MiB sequential writes to a new
 * file. Cache ({@link CacheProbe}), same directory, direct I/O, 1 MiB DRAM tier: flash-hit gets
 * of 1 KiB values at 1 and 4 threads after a warm reopen, and insert bandwidth. The figures are
 * ratios to fio run in the same job because the disk here is shared and virtual.
 *
 * <p>With {@code --small-objects}, each pair also measures flash-hit gets of tiny objects (100 B values)
 * held by the small-object engine at 1 and 4 threads, each as a ratio to fio's random reads (1 or 4 jobs,
 * the same file) run again just before it, minutes after the pair's first fio figures: the shared disk
 * drifts that much (issue 27's target: 0.95 of fio's IOPS at 4 threads), with the engine's share of the
 * hits, its log/set split and its device reads per hit ({@link SmallObjectReads}). Beside every read
 * figure: CPU per read, fio's (user + system over its I/Os) and the cache's whole process per get.
 *
 * <p>The shared disk drifts between runs, so fio and the cache run in {@code --pairs} (3) interleaved
 * pairs (fio, cache, fio, cache, ...); each ratio is the median over the pairs, with its spread
 * ({@code ratio_*_min}, {@code _max}, {@code _pairs} in the JSON; the raw figures are the last pair's).
 *
 * <p>Run: {@code java -jar bench/target/hybridcache-bench.jar limits --quick} (3 s per figure,
 * small files; about two minutes) or without {@code --quick} (10 s per figure). fio is installed
 * with apt-get when missing and we are root; otherwise the command says how to install it.
 */
@Command(name = "limits", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Compares the cache's flash reads and inserts with the disk's limits measured by fio.",
        "fio: 4 KiB random read QD1 at 1 and 4 jobs, 1 MiB sequential write (direct I/O).",
        "Cache on the same disk: flash-hit gets at 1 and 4 threads, insert bandwidth; each as a ratio to fio.",
        "--small-objects adds flash-hit gets of tiny objects held by the small-object engine.",
        "The directory is wiped first; fio is apt-get installed when missing and we are root."})
public final class LimitsCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--dir", paramLabel = "DIR", description = "scratch directory, wiped first (default: ${DEFAULT-VALUE})")
  Path dir = Path.of("target/limits");

  @Option(names = "--runtime", paramLabel = "SECONDS", description = "seconds per figure (default: 10; 3 with --quick)")
  Integer runtime;

  @Option(names = "--quick", description = "3 s per figure and smaller files")
  boolean quick;

  @Option(names = "--json", paramLabel = "FILE", description = "also write the figures as JSON to FILE")
  Path json;

  @Option(names = "--fio-size", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "random-read test file size (default: 1GiB; 256MiB with --quick)")
  Long fioSize;

  @Option(names = "--write-size", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "sequential-write file size, an upper bound next to --runtime (default: 4GiB; 1GiB with --quick)")
  Long writeSize;

  @Option(names = "--ioengine", paramLabel = "ENGINE", description = "fio ioengine, psync (pread per job, like the cache) or libaio (default: ${DEFAULT-VALUE})")
  String ioengine = "psync";

  @Option(names = "--fio", paramLabel = "PATH", description = "fio executable (default: ${DEFAULT-VALUE})")
  String fioExecutable = "fio";

  @Option(names = "--no-install", description = "do not apt-get install fio when it is missing")
  boolean noInstall;

  @Option(names = "--fio-only", description = "skip the cache measurements")
  boolean fioOnly;

  @Option(names = "--cache-only", description = "skip fio")
  boolean cacheOnly;

  @Option(names = "--entries", paramLabel = "N", description = "entries filled for the read test (default: 200000; 50000 with --quick)")
  Long entries;

  @Option(names = "--value-size", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "value bytes of the cache tests (default: 1KiB)")
  long valueSize = 1024;

  @Option(names = "--insert-value-size", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "value bytes of the insert bandwidth test (default: 16KiB; the test is repeated with --value-size values)")
  long insertValueSize = 16 * 1024;

  @Option(names = "--insert-threads", paramLabel = "N",
      description = "threads putting in the insert test (default: the machine's cores, at most 4: ${DEFAULT-VALUE})")
  int insertThreads = Math.min(4, Runtime.getRuntime().availableProcessors());

  @Option(names = "--segment", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "segment bytes of the cache tests (default: 16MiB)")
  long segment = 16 * CacheConfig.MIB;

  @Option(names = "--index", paramLabel = "heap|chronicle", converter = YcsbCommand.IndexConverter.class,
      description = "flash index of the cache tests (default: heap, the compact index, as the library; chronicle"
          + " runs in this JVM: give it Chronicle's flags, java <flags> -jar ..., which its error names)")
  IndexType index = IndexType.HEAP;

  @Option(names = "--pairs", paramLabel = "N", description = "fio-then-cache pairs; ratios are the median over the pairs,"
      + " with their spread (this shared disk drifts between runs) (default: ${DEFAULT-VALUE})")
  int pairs = 3;

  @Option(names = "--small-objects", description = "also measure flash-hit gets of tiny objects (--small-value-size)"
      + " held by the small-object engine, at 1 and 4 threads, as ratios to fio's 4 KiB random reads")
  boolean smallObjects;

  @Option(names = "--small-flash", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "flash of the tiny-object test; its keys follow from it (default: 256MiB; 160MiB with --quick;"
          + " the log engine's part, 1 - share, must stay a budget the cache takes)")
  Long smallFlash;

  @Option(names = "--small-value-size", paramLabel = "SIZE", converter = Sizes.Converter.class,
      description = "value bytes of the tiny-object test, 8 to 1KiB (default: ${DEFAULT-VALUE}; keys are 8 bytes)")
  long smallValueSize = SmallObjectReads.DEFAULT_VALUE_BYTES;

  @Option(names = "--small-object-share", paramLabel = "SHARE",
      description = "smallObjectShare of the tiny-object test's cache, in (0, 0.9] (default: ${DEFAULT-VALUE})")
  double smallObjectShare = SmallObjectReads.DEFAULT_SHARE;

  @Option(names = "--keep", description = "keep the test files and cache directories")
  boolean keep;

  /** How caches are opened; tests may swap it. */
  Function<CacheConfig, HybridCache> opener = HybridCache::open;

  @Override
  public Integer call() throws Exception {
    PrintStream err = System.err;
    if (fioOnly && cacheOnly) {
      throw new ParameterException(spec.commandLine(), "--fio-only and --cache-only exclude each other");
    }
    int secs = runtime != null ? runtime : quick ? 3 : 10;
    if (insertThreads < 1 || insertThreads > 64) {
      throw new ParameterException(spec.commandLine(), "--insert-threads must be in [1, 64], was " + insertThreads);
    }
    if (pairs < 1 || pairs > 99) {
      throw new ParameterException(spec.commandLine(), "--pairs must be in [1, 99], was " + pairs);
    }
    if (secs <= 0) {
      throw new ParameterException(spec.commandLine(), "--runtime must be > 0");
    }
    if (smallValueSize < CacheProbe.key(0).length || smallValueSize > SmallObjectReads.MAX_VALUE_BYTES) {
      throw new ParameterException(spec.commandLine(), "--small-value-size must be in [8, "
          + SmallObjectReads.MAX_VALUE_BYTES + "], was " + smallValueSize);
    }
    if (!(smallObjectShare > 0 && smallObjectShare <= CacheConfig.MAX_SMALL_OBJECT_SHARE)) {
      throw new ParameterException(spec.commandLine(), "--small-object-share must be in (0, "
          + CacheConfig.MAX_SMALL_OBJECT_SHARE + "], was " + smallObjectShare);
    }
    long readFile = fioSize != null ? fioSize : quick ? 256 * CacheConfig.MIB : CacheConfig.GIB;
    long writeFile = writeSize != null ? writeSize : quick ? CacheConfig.GIB : 4 * CacheConfig.GIB;
    long n = entries != null ? entries : quick ? 50_000 : 200_000;
    long readFlash = roundUp(Math.max(2 * n * (valueSize + 64), (CacheConfig.MIN_SEGMENTS + 4) * segment), segment);
    long insertFlash = quick ? 256 * CacheConfig.MIB : CacheConfig.GIB;
    insertFlash = roundUp(Math.max(insertFlash, (CacheConfig.MIN_SEGMENTS + 4) * segment), segment);
    SmallObjectReads.Sizing tiny = !smallObjects || fioOnly ? null : SmallObjectReads.size(
        smallFlash != null ? smallFlash : quick ? 160 * CacheConfig.MIB : 256 * CacheConfig.MIB, smallObjectShare,
        (int) smallValueSize);

    Path work = BenchDirs.prepare(dir);
    long needed = (cacheOnly ? 0 : readFile + writeFile) + (fioOnly ? 0 : readFlash + insertFlash)
        + (tiny == null ? 0 : tiny.flashBytes());
    long usable = Files.getFileStore(work).getUsableSpace();
    if (usable < needed + CacheConfig.GIB) {
      err.printf("limits: %s has %s free, the tests need about %s plus 1 GiB of headroom: use --quick or smaller sizes%n",
          work, Sizes.format(usable), Sizes.format(needed));
      return BenchMain.FAILED;
    }
    ObjectNode out = StatsJson.MAPPER.createObjectNode();
    out.put("runtime_s", secs);
    out.put("dir", work.toString());
    boolean ok = true;

    Fio.Result r1 = null;
    Fio.Result r4 = null;
    Fio.Result w = null;
    Fio.Result tf1 = null; // fio again just before each tiny-object figure: the device drifts over minutes
    Fio.Result tf4 = null;
    Fio fio = null;
    Path rf = work.resolve("fio-randread.dat");
    CacheProbe.ReadResult c1 = null;
    CacheProbe.ReadResult c4 = null;
    CacheProbe.ReadResult t1 = null;
    CacheProbe.ReadResult t4 = null;
    CacheProbe.InsertResult ins = null;
    CacheProbe.InsertResult insSmall = null;
    String cacheError = null;
    PairedRatios read1 = new PairedRatios();
    PairedRatios read4 = new PairedRatios();
    PairedRatios tinyRead1 = new PairedRatios();
    PairedRatios tinyRead4 = new PairedRatios();
    PairedRatios insert = new PairedRatios();
    PairedRatios insertSmall = new PairedRatios();
    for (int pair = 1; pair <= pairs && cacheError == null; pair++) {
      if (pairs > 1) {
        err.printf("limits: pair %d of %d (fio, then the cache)%n", pair, pairs);
      }
      if (!cacheOnly) {
        fio = new Fio(fioExecutable);
        String version = fio.ensure(!noInstall, err);
        if (version == null) {
          return BenchMain.ENVIRONMENT;
        }
        out.put("fio_version", version);
        out.put("fio_ioengine", ioengine);
        err.printf("limits: fio %s; random reads on %s (%s), runtime %d s per test%n", version, rf,
            Sizes.format(readFile), secs);
        r1 = fio.run(Fio.randRead(rf, readFile, 1, secs, ioengine), "read", err);
        r4 = fio.run(Fio.randRead(rf, readFile, 4, secs, ioengine), "read", err);
        Path wf = work.resolve("fio-seqwrite.dat");
        Files.deleteIfExists(wf);
        w = fio.run(Fio.seqWrite(wf, writeFile, secs, ioengine), "write", err);
        if (!keep) {
          if (tiny == null) { // else kept for the fio runs beside the tiny-object reads
            Files.deleteIfExists(rf);
          }
          Files.deleteIfExists(wf);
        }
        out.put("fio_randread_iops_1", r1.iops());
        out.put("fio_randread_iops_4", r4.iops());
        out.put("fio_seqwrite_mibs", w.mibPerSec());
        out.put("fio_randread_p50_us_1", r1.p50Us());
        out.put("fio_randread_p99_us_1", r1.p99Us());
        out.put("fio_randread_p50_us_4", r4.p50Us());
        out.put("fio_randread_p99_us_4", r4.p99Us());
        out.put("fio_randread_cpu_us_per_io_1", r1.cpuUsPerIo());
        out.put("fio_randread_cpu_us_per_io_4", r4.cpuUsPerIo());
      }

      if (!fioOnly) {
        CacheProbe probe = new CacheProbe(opener, err);
        Duration warm = Duration.ofMillis(quick ? 500 : 1000);
        Duration run = Duration.ofSeconds(secs);
        try {
          CacheConfig rc = config(work.resolve("cache-read"), readFlash, n);
          err.printf("limits: cache flash reads: %,d entries of %s, DRAM 1 MiB, flash %s, index %s%n", n,
              Sizes.format(valueSize), Sizes.format(readFlash), index.name().toLowerCase());
          try (HybridCache c = probe.fillAndReopen(rc, n, (int) valueSize)) {
            c1 = probe.read(c, n, (int) valueSize, 1, warm, run);
            err.printf("limits: 1 thread: %,.0f flash hits/s%n", c1.flashHitsPerSec());
            c4 = probe.read(c, n, (int) valueSize, 4, warm, run);
            err.printf("limits: 4 threads: %,.0f flash hits/s%n", c4.flashHitsPerSec());
          }
          if (tiny != null) {
            t1 = null;
            t4 = null;
            CacheConfig tc = SmallObjectReads.config(work.resolve("cache-small"), tiny, index);
            err.printf("limits: cache flash reads of tiny objects: %,d entries of %s (then %,d filler entries),"
                + " DRAM 1 MiB, flash %s, small-object share %s%n", tiny.readKeys(), Sizes.format(smallValueSize),
                tiny.fillerKeys(), Sizes.format(tiny.flashBytes()), smallObjectShare);
            try (HybridCache c = probe.fill(tc, tiny.readKeys(), tiny.fillerKeys(), (int) smallValueSize)) {
              err.println("limits: small-object engine after the fill: " + c.stats().smallObjects());
              tf1 = fio == null ? null : fio.run(Fio.randRead(rf, readFile, 1, secs, ioengine), "read", err);
              t1 = probe.read(c, tiny.readKeys(), (int) smallValueSize, 1, warm, run);
              err.printf("limits: tiny objects, 1 thread: %,.0f flash hits/s%n", t1.flashHitsPerSec());
              tf4 = fio == null ? null : fio.run(Fio.randRead(rf, readFile, 4, secs, ioengine), "read", err);
              t4 = probe.read(c, tiny.readKeys(), (int) smallValueSize, 4, warm, run);
              err.printf("limits: tiny objects, 4 threads: %,.0f flash hits/s%n", t4.flashHitsPerSec());
            }
            if (!keep) {
              BenchDirs.deleteContents(work.resolve("cache-small"));
            }
          }
          CacheConfig ic = config(work.resolve("cache-insert"), insertFlash, 0);
          err.printf("limits: cache inserts: %d thread(s), values of %s, DRAM 1 MiB, flash %s%n", insertThreads,
              Sizes.format(insertValueSize), Sizes.format(insertFlash));
          ins = probe.insert(ic, insertThreads, (int) insertValueSize, run);
          BenchDirs.deleteContents(work.resolve("cache-insert"));
          err.printf("limits: cache inserts again with values of %s%n", Sizes.format(valueSize));
          insSmall = probe.insert(ic, insertThreads, (int) valueSize, run);
          if (!ins.caughtUp()) {
            err.println("limits: warning: the flash tier's flushed bytes did not catch up with what it admitted");
          }
          if (ins.rejected() > ins.puts() / 100) {
            err.printf("limits: note: %,d of %,d puts were evicted from DRAM but not admitted to flash (no flash"
                + " room in time, or admission refused); cache_insert_mibs counts only what reached flash%n", ins.rejected(), ins.puts());
          }
        } catch (RuntimeException e) {
          cacheError = BenchMain.describe(e);
          err.println("limits: the cache measurements failed: " + cacheError);
          if (Boolean.getBoolean("hybridcache.bench.stacktrace")) {
            e.printStackTrace(err);
          }
          ok = false;
        } finally {
          if (!keep) {
            BenchDirs.deleteContents(work);
          }
        }
        putRead(out, "1", c1);
        putRead(out, "4", c4);
        if (tiny != null) {
          SmallObjectReads.putSizing(out, tiny);
          SmallObjectReads.putJson(out, "1", t1);
          SmallObjectReads.putJson(out, "4", t4);
          if (tf1 != null && tf4 != null) {
            out.put("fio_randread_iops_tiny_1", tf1.iops());
            out.put("fio_randread_iops_tiny_4", tf4.iops());
            out.put("fio_randread_cpu_us_per_io_tiny_1", tf1.cpuUsPerIo());
            out.put("fio_randread_cpu_us_per_io_tiny_4", tf4.cpuUsPerIo());
          }
        }
        if (ins != null) {
          out.put("cache_insert_mibs", ins.valueMiBs());
          out.put("cache_insert_put_mibs", ins.putMiBs());
          out.put("cache_insert_device_mibs", ins.deviceMiBs());
          out.put("cache_insert_seconds", ins.seconds());
          out.put("cache_insert_puts", ins.puts());
          out.put("cache_insert_rejected", ins.rejected());
          out.put("cache_insert_caught_up", ins.caughtUp());
          out.put("cache_insert_value_bytes", insertValueSize);
          out.put("cache_insert_threads", insertThreads);
          out.put("cache_insert_cpu_cores", ins.cpuCores());
          out.put("cache_insert_cpu_ns_per_put", ins.cpuNanosPerPut());
        }
        if (insSmall != null) {
          out.put("cache_insert_small_mibs", insSmall.valueMiBs());
          out.put("cache_insert_small_value_bytes", valueSize);
          out.put("cache_insert_small_rejected", insSmall.rejected());
          out.put("cache_insert_small_cpu_cores", insSmall.cpuCores());
          out.put("cache_insert_small_cpu_ns_per_put", insSmall.cpuNanosPerPut());
        } else {
          out.putNull("cache_insert_mibs");
        }
        if (cacheError != null) {
          out.put("cache_error", cacheError);
        }
      }
      read1.add(ratio(c1 == null ? null : c1.flashHitsPerSec(), r1 == null ? null : r1.iops()));
      read4.add(ratio(c4 == null ? null : c4.flashHitsPerSec(), r4 == null ? null : r4.iops()));
      tinyRead1.add(ratio(t1 == null ? null : t1.flashHitsPerSec(), tf1 == null ? null : tf1.iops()));
      tinyRead4.add(ratio(t4 == null ? null : t4.flashHitsPerSec(), tf4 == null ? null : tf4.iops()));
      insert.add(ratio(ins == null ? null : ins.valueMiBs(), w == null ? null : w.mibPerSec()));
      insertSmall.add(ratio(insSmall == null ? null : insSmall.valueMiBs(), w == null ? null : w.mibPerSec()));
    }
    Double ratio1 = read1.median();
    Double ratio4 = read4.median();
    Double ratioW = insert.median();
    read1.put(out, "ratio_flash_read_1");
    read4.put(out, "ratio_flash_read_4");
    insert.put(out, "ratio_insert");
    insertSmall.put(out, "ratio_insert_small");
    if (tiny != null) {
      tinyRead1.put(out, "ratio_flash_read_tiny_1");
      tinyRead4.put(out, "ratio_flash_read_tiny_4");
    }
    out.put("pairs", pairs);

    if (pairs > 1) {
      err.printf("limits: the fio and cache columns are the last pair's; cache/fio is the median of %d pairs"
          + " (spread: flash reads 1 thread %s, 4 threads %s, inserts %s, small inserts %s)%n", pairs,
          read1.spread(), read4.spread(), insert.spread(), insertSmall.spread());
      if (tiny != null) {
        err.printf("limits: spread of tiny-object flash reads: 1 thread %s, 4 threads %s%n", tinyRead1.spread(),
            tinyRead4.spread());
      }
    }
    TextTable t = new TextTable("figure", "fio", "cache", "cache/fio");
    t.row("4 KiB random read, 1 thread (IOPS; cache: flash hits/s)", r1 == null ? null : r1.iops(),
        c1 == null ? null : c1.flashHitsPerSec(), ratio1);
    t.row("4 KiB random read, 4 threads (IOPS; cache: flash hits/s)", r4 == null ? null : r4.iops(),
        c4 == null ? null : c4.flashHitsPerSec(), ratio4);
    t.row("read p50 / p99, 1 thread (us)", r1 == null ? null : pair(r1.p50Us(), r1.p99Us()),
        c1 == null ? null : pair(c1.p50Us(), c1.p99Us()), null);
    t.row("read p50 / p99, 4 threads (us)", r4 == null ? null : pair(r4.p50Us(), r4.p99Us()),
        c4 == null ? null : pair(c4.p50Us(), c4.p99Us()), null);
    t.row("device reads per flash hit, 1 / 4 threads", null,
        c1 == null || c4 == null ? null : pair(c1.deviceReadsPerFlashHit(), c4.deviceReadsPerFlashHit()), null);
    t.row("CPU per read, 1 / 4 threads (us; cache: whole process per get)",
        r1 == null || r4 == null ? null : pair(r1.cpuUsPerIo(), r4.cpuUsPerIo()),
        c1 == null || c4 == null ? null : pair(c1.cpuUsPerGet(), c4.cpuUsPerGet()), null);
    if (tiny != null) {
      tinyRows(t, tf1, tf4, t1, t4, tinyRead1.median(), tinyRead4.median());
    }
    t.row("1 MiB sequential write (MiB/s; cache: inserted " + Sizes.format(insertValueSize) + " value MiB/s)", w == null ? null : w.mibPerSec(),
        ins == null ? null : ins.valueMiBs(), ratioW);
    t.row("cache insert: device MiB/s written", null, ins == null ? null : ins.deviceMiBs(), null);
    t.row("cache insert with " + Sizes.format(valueSize) + " values (MiB/s)", w == null ? null : w.mibPerSec(),
        insSmall == null ? null : insSmall.valueMiBs(), insertSmall.median());
    t.row("cache insert CPU, " + Sizes.format(insertValueSize) + " / " + Sizes.format(valueSize)
        + " values (cores busy, of " + Runtime.getRuntime().availableProcessors() + ")", null,
        ins == null || insSmall == null ? null : pair(ins.cpuCores(), insSmall.cpuCores()), null);
    t.row("cache insert CPU per put, " + Sizes.format(insertValueSize) + " / " + Sizes.format(valueSize)
        + " values (ns)", null,
        ins == null || insSmall == null ? null : pair(ins.cpuNanosPerPut(), insSmall.cpuNanosPerPut()), null);
    t.print(System.out);
    System.out.flush();

    if (json != null) {
      err.println("limits: wrote " + StatsJson.writeFile(json, out));
    }
    return ok ? BenchMain.OK : BenchMain.FAILED;
  }

  /** The tiny-object test's rows: flash hits as ratios to fio, then which engine and pages served them. */
  private void tinyRows(TextTable t, Fio.Result r1, Fio.Result r4, CacheProbe.ReadResult t1,
      CacheProbe.ReadResult t4, Double ratio1, Double ratio4) {
    String tiny = "tiny objects (" + Sizes.format(smallValueSize) + " values, small-object engine)";
    t.row(tiny + ", 1 thread (IOPS; cache: flash hits/s)", r1 == null ? null : r1.iops(),
        t1 == null ? null : t1.flashHitsPerSec(), ratio1);
    t.row(tiny + ", 4 threads (IOPS; cache: flash hits/s)", r4 == null ? null : r4.iops(),
        t4 == null ? null : t4.flashHitsPerSec(), ratio4);
    if (t1 == null || t4 == null) {
      return;
    }
    t.row("tiny: read p50 / p99, 1 / 4 threads (us)",
        r1 == null || r4 == null ? null : pair(r1.p50Us(), r1.p99Us()) + ", " + pair(r4.p50Us(), r4.p99Us()),
        pair(t1.p50Us(), t1.p99Us()) + ", " + pair(t4.p50Us(), t4.p99Us()), null);
    t.row("tiny: CPU per read, 1 / 4 threads (us; cache: whole process per get)",
        r1 == null || r4 == null ? null : pair(r1.cpuUsPerIo(), r4.cpuUsPerIo()),
        pair(t1.cpuUsPerGet(), t4.cpuUsPerGet()), null);
    t.row("tiny: device reads per flash hit, 1 / 4 threads", null,
        pair(t1.deviceReadsPerFlashHit(), t4.deviceReadsPerFlashHit()), null);
    t.row("tiny: small engine's share of flash hits, 1 / 4 threads", null,
        pair(t1.small().smallHitShare(), t4.small().smallHitShare()), null);
    t.row("tiny: of its hits, from set pages / from its log (4 threads)", null,
        pair(t4.small().setHitShare(), t4.small().logHitShare()), null);
    t.row("tiny: its device reads per hit, 1 / 4 threads", null,
        pair(t1.small().deviceReadsPerHit(), t4.small().deviceReadsPerHit()), null);
    t.row("tiny: miss share / DRAM-hit share (4 threads)", null, pair(t4.missShare(), t4.dramHitShare()), null);
  }

  private CacheConfig config(Path cacheDir, long flash, long expected) {
    CacheConfig.Builder b = CacheConfig.builder(cacheDir)
        .name("limits")
        .dramBytes(CacheConfig.MIB)
        .flashBytes(flash)
        .segmentBytes((int) segment)
        .directIo(true)
        .indexType(index)
        .jmx(false);
    if (expected > 0) {
      b.expectedEntries(expected + expected / 4);
    }
    return b.build();
  }

  /** Writes one read result under keys ending in {@code _<threads>} (a suffix such as "tiny_4" too). */
  static void putRead(ObjectNode out, String threads, CacheProbe.ReadResult r) {
    if (r == null) {
      out.putNull("cache_flash_read_iops_" + threads);
      return;
    }
    out.put("cache_flash_read_iops_" + threads, r.flashHitsPerSec());
    out.put("cache_gets_per_sec_" + threads, r.getsPerSec());
    out.put("cache_read_p50_us_" + threads, r.p50Us());
    out.put("cache_read_p99_us_" + threads, r.p99Us());
    out.put("cache_dram_hit_share_" + threads, r.dramHitShare());
    out.put("cache_miss_share_" + threads, r.missShare());
    out.put("device_reads_per_flash_hit_" + threads, r.deviceReadsPerFlashHit());
    out.put("pages_per_flash_hit_" + threads, r.pagesPerFlashHit());
    out.put("cache_cpu_us_per_get_" + threads, r.cpuUsPerGet());
  }

  private static Double ratio(Double a, Double b) {
    return a == null || b == null || b == 0 ? null : a / b;
  }

  private static String pair(double a, double b) {
    return TextTable.cell(a) + " / " + TextTable.cell(b);
  }

  private static long roundUp(long v, long unit) {
    return (v + unit - 1) / unit * unit;
  }
}
