package io.hybridcache.bench.smalldesign;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.BenchMain;
import io.hybridcache.bench.StatsJson;
import io.hybridcache.bench.TextTable;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The small-object design study of issue 36 (src/site/small-design.md): a deterministic event-count
 * simulator of three flash layouts for tiny objects, Kangaroo's log + sets (SOSP 2021, today's engine),
 * Nemo's FIFO of set groups (ASPLOS 2026) and the page log (this study's candidate), over synthetic 24 B
 * keys hashed with xxHash64, a look-aside get/put mix, uniform or Zipfian. No device and no clock: it counts
 * page writes, page reads and DRAM bits, so it says nothing about latency or throughput.
 *
 * <p>Figures per configuration: DRAM bits per flash object by part (filters, index, eviction state,
 * DRAM write buffers amortised), app WA (flash bytes written / key + value bytes inserted: a perfectly
 * full page of 31 objects of 124 B is 4096 / 3844 = 1.066), fill at flush (live objects per page written /
 * page capacity), objects moved per insert (re-inserted or migrated), device reads per flash hit and per
 * absent lookup (sampled), miss ratio of gets, and whether conservation held.
 */
@Command(name = "small-design", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Design study of small-object flash layouts (issue 36): Kangaroo log + sets, Nemo set groups, page log.",
        "An event-count simulation, no device I/O and no timing: DRAM bits per object by part, app WA, fill at",
        "flush, device reads per flash hit and per absent lookup, miss ratio. Prints a table; --json writes it."})
public final class SmallDesignCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--objects", paramLabel = "N", description = "flash objects the tier is sized for: they fill --fill of its slots (default: ${DEFAULT-VALUE})")
  int objects = 2_000_000;

  @Option(names = "--universe", paramLabel = "F", description = "keys drawn from = F x objects (default: ${DEFAULT-VALUE})")
  double universe = 2.0;

  @Option(names = "--fill", paramLabel = "F", description = "share of the slots the objects fill, (0, 1] (default: ${DEFAULT-VALUE})")
  double fill = 0.9;

  @Option(names = "--header-bytes", paramLabel = "B", description = "flash overhead per object (default: ${DEFAULT-VALUE}, the engine's)")
  int headerBytes = 7;

  @Option(names = "--value-bytes", paramLabel = "B", description = "value size (default: ${DEFAULT-VALUE}); keys are 24 B")
  int valueBytes = 100;

  @Option(names = "--get-ratio", paramLabel = "R", description = "share of requests that are gets (a miss inserts), [0, 1] (default: ${DEFAULT-VALUE})")
  double getRatio = 0.5;

  @Option(names = "--distributions", split = ",", paramLabel = "D", description = "uniform, zipf (default: uniform,zipf)")
  List<String> distributions = new ArrayList<>(List.of("uniform", "zipf"));

  @Option(names = "--zipf", paramLabel = "S", description = "Zipf exponent (default: ${DEFAULT-VALUE})")
  double zipf = 0.9;

  @Option(names = "--warmup", paramLabel = "X", description = "warm-up requests = X x objects (default: ${DEFAULT-VALUE})")
  double warmup = 3;

  @Option(names = "--requests", paramLabel = "X", description = "measured requests = X x objects (default: ${DEFAULT-VALUE})")
  double requests = 1;

  @Option(names = "--read-sample", paramLabel = "K", description = "count the device reads of every K-th request (default: ${DEFAULT-VALUE})")
  int readSample = 64;

  @Option(names = "--seed", paramLabel = "S", description = "random seed (default: ${DEFAULT-VALUE})")
  long seed = 36;

  @Option(names = "--designs", split = ",", paramLabel = "D", description = "kangaroo, nemo, pagelog (default: all three)")
  List<String> designs = new ArrayList<>(List.of("kangaroo", "nemo", "pagelog"));

  @Option(names = "--log-shares", split = ",", paramLabel = "L", description = "Kangaroo: log shares of flash, (0, 1) (default: 0.1,0.25,0.4)")
  List<Double> logShares = new ArrayList<>(List.of(0.1, 0.25, 0.4));

  @Option(names = "--kangaroo-bits", split = ",", paramLabel = "B", description = "Kangaroo: Bloom bits per set slot, a row each (default: 5.16, the engine's 160 per 31)")
  List<Double> kangarooBits = new ArrayList<>(List.of(160.0 / 31));

  @Option(names = "--thresholds", split = ",", paramLabel = "T", description = "Kangaroo: log objects of a set that move it, a row each (default: 2, the engine's); a high one fills the sets slowly and needs a long --warmup (threshold 10 at L = 0.1: about 80)")
  List<Integer> thresholds = new ArrayList<>(List.of(2));

  @Option(names = "--log-index-bits", paramLabel = "B", description = "Kangaroo: DRAM bits per log object (default: ${DEFAULT-VALUE}, measured by SmallLogSteadyStateTest)")
  double logIndexBits = 26;

  @Option(names = "--groups", split = ",", paramLabel = "G", description = "Nemo, page log: places a key can be in (groups) (default: 256,1024)")
  List<Integer> groups = new ArrayList<>(List.of(256, 1024));

  @Option(names = "--bits", split = ",", paramLabel = "B", description = "Nemo, page log: filter bits per object (Rice: parameter + 2) (default: 16)")
  List<Double> bits = new ArrayList<>(List.of(16.0));

  @Option(names = "--filters", split = ",", paramLabel = "F", description = "Nemo, page log: bloom, rice (default: bloom,rice)")
  List<String> filters = new ArrayList<>(List.of("bloom", "rice"));

  @Option(names = "--no-reinsert", description = "Nemo, page log: no hot re-insertion (and no hot bits)")
  boolean noReinsert;

  @Option(names = "--sweep", description = "a wider grid: groups 64..4096, bits 8..20, log shares 0.05..0.5")
  boolean sweep;

  @Option(names = "--json", paramLabel = "FILE", description = "also write settings and rows as JSON to FILE")
  Path json;

  @Override
  public Integer call() throws Exception {
    validate();
    if (sweep) {
      groups = List.of(64, 256, 1024, 4096);
      bits = List.of(8.0, 12.0, 16.0, 20.0);
      logShares = List.of(0.05, 0.1, 0.25, 0.4, 0.5);
    }
    Simulation.Settings s = new Simulation.Settings(objects, universe, Keys.KEY_BYTES, valueBytes, headerBytes, fill,
        getRatio, zipf, warmup, requests, readSample, seed, thresholds.get(0), logIndexBits, !noReinsert);
    Geometry geo = s.geometry();
    PrintStream err = System.err;
    err.printf(Locale.ROOT, "small-design: %,d objects of %d B (+%d B header), %d per page, %,d pages (%s), %,d keys%n",
        objects, geo.objectBytes(), headerBytes, geo.perPage(), geo.pages(),
        io.hybridcache.bench.Sizes.format(geo.flashBytes()), geo.universe());
    Keys keys = new Keys(geo.universe());
    List<Point> configs = configs();
    List<Result> rows = new ArrayList<>();
    for (int i = 0; i < configs.size(); i++) {
      Point c = configs.get(i);
      long t0 = System.nanoTime();
      Result r = Simulation.run(s.withThreshold(c.threshold()), c.config(), geo, keys, err);
      String name = r.label() + " " + c.config().distribution().name().toLowerCase(Locale.ROOT);
      err.printf(Locale.ROOT, "small-design: [%d/%d] %s done in %.1f s%n", i + 1, configs.size(), name,
          (System.nanoTime() - t0) / 1e9);
      if (!r.steadyState()) {
        err.printf(Locale.ROOT, "small-design: WARNING: %s is not at steady state: its objects on flash (Kangaroo: in its sets) grew by"
            + " %.1f%% per N measured requests (at most %.0f%%): raise --warmup%n", name, 100 * r.fillGrowthPerN(),
            100 * Result.STEADY_GROWTH_PER_N);
      }
      if (!r.conserved()) {
        err.println("small-design: conservation failed for " + r.label() + ": the model is broken");
        return BenchMain.FAILED;
      }
      rows.add(r);
      if (c.config().design().equals("nemo")) {
        rows.add(r.filtersOnFlash());
      }
    }
    print(System.out, rows);
    if (json != null) {
      err.println("small-design: wrote " + StatsJson.writeFile(json, toJson(s, geo, rows)));
    }
    return BenchMain.OK;
  }

  private void validate() {
    require(objects >= 1000, "--objects must be >= 1000, was " + objects);
    require(universe >= 1, "--universe must be >= 1, was " + universe);
    require(fill > 0 && fill <= 1, "--fill must be in (0, 1], was " + fill);
    require(headerBytes >= 0 && valueBytes >= 0, "--header-bytes and --value-bytes must be >= 0, were "
        + headerBytes + " and " + valueBytes);
    require(getRatio >= 0 && getRatio <= 1, "--get-ratio must be in [0, 1], was " + getRatio);
    require(zipf > 0, "--zipf must be > 0, was " + zipf);
    require(warmup >= 0 && requests > 0, "--warmup must be >= 0 and --requests > 0, were " + warmup + " and " + requests);
    require(readSample >= 1, "--read-sample must be >= 1, was " + readSample);
    for (String d : distributions) {
      require(d.equals("uniform") || d.equals("zipf"), "--distributions: uniform or zipf, was " + d);
    }
    for (String d : designs) {
      require(List.of("kangaroo", "nemo", "pagelog").contains(d), "--designs: kangaroo, nemo or pagelog, was " + d);
    }
    for (String f : filters) {
      require(f.equals("bloom") || f.equals("rice"), "--filters: bloom or rice, was " + f);
    }
    for (double l : logShares) {
      require(l > 0 && l < 1, "--log-shares must be in (0, 1), was " + l);
    }
    for (double b : bits) {
      require(b > 0 && b <= 26, "--bits must be in (0, 26], was " + b);
    }
    for (int g : groups) {
      require(g >= 2, "--groups must be >= 2, was " + g);
    }
    for (int t : thresholds) {
      require(t >= 1, "--thresholds must be >= 1, was " + t);
    }
    for (double b : kangarooBits) {
      require(b > 0, "--kangaroo-bits must be > 0, was " + b);
    }
  }

  private void require(boolean ok, String message) {
    if (!ok) {
      throw new ParameterException(spec.commandLine(), message);
    }
  }

  /** A design point and the Kangaroo move threshold it runs with (the first one for the other designs). */
  private record Point(Simulation.Config config, int threshold) {}

  private List<Point> configs() {
    List<Point> out = new ArrayList<>();
    for (String dist : distributions) {
      Workload.Distribution d = Workload.Distribution.valueOf(dist.toUpperCase(Locale.ROOT));
      for (String design : designs) {
        if (design.equals("kangaroo")) {
          for (double l : logShares) {
            for (int t : thresholds) {
              for (double b : kangarooBits) {
                out.add(new Point(new Simulation.Config(design, d, 0, b, l, "bloom"), t));
              }
            }
          }
          continue;
        }
        for (int g : groups) {
          for (double b : bits) {
            for (String f : filters) {
              out.add(new Point(new Simulation.Config(design, d, g, b, 0, f), thresholds.get(0)));
            }
          }
        }
      }
    }
    return out;
  }

  static void print(PrintStream out, List<Result> rows) {
    TextTable t = new TextTable("design", "dist", "b", "filt bits", "index", "evict", "buffer", "DRAM B/obj",
        "app WA", "fill", "moved/ins", "reads/hit", "reads/absent", "miss ratio");
    for (Result r : rows) {
      t.row(r.label(), r.config().distribution().name().toLowerCase(), r.config().bits(), r.filterBits(),
          r.indexBits(), r.evictionBits(), r.bufferBits(), r.totalBits() / 8, r.appWa(), r.fillAtFlush(),
          r.movedPerInsert(), r.readsPerHit(), r.readsPerAbsent(), r.missRatio());
    }
    out.println();
    out.println("Small-object designs (DRAM in bits per flash object, except DRAM B/obj)");
    t.print(out);
    out.flush();
  }

  private ObjectNode toJson(Simulation.Settings s, Geometry geo, List<Result> rows) {
    ObjectNode n = StatsJson.MAPPER.createObjectNode();
    ObjectNode st = n.putObject("settings");
    st.put("objects", s.objects()).put("universe_keys", geo.universe()).put("key_bytes", s.keyBytes())
        .put("value_bytes", s.valueBytes()).put("header_bytes", s.headerBytes()).put("objects_per_page", geo.perPage())
        .put("pages", geo.pages()).put("flash_bytes", geo.flashBytes()).put("fill", s.fill())
        .put("get_ratio", s.getRatio()).put("zipf", s.zipfExponent()).put("warmup", s.warmup())
        .put("requests", s.requests()).put("read_sample", s.readSample()).put("seed", s.seed())
        .putPOJO("thresholds", thresholds).put("log_index_bits", s.logIndexBits()).put("reinsert", s.reinsert());
    ArrayNode a = n.putArray("results");
    rows.forEach(r -> a.add(r.toJson()));
    return n;
  }
}
