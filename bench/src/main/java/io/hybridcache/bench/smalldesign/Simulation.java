package io.hybridcache.bench.smalldesign;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Runs one design over one workload: a warm-up of {@code warmup x objects} requests, then
 * {@code requests x objects} measured ones, of which every {@code readSample}-th lookup also has its device
 * reads counted (walking the design's filters is the only costly step). Figures are over the measured
 * phase only; DRAM and residency are taken at its end. Deterministic for a seed; single-threaded.
 *
 * <p>Steady state is checked, not assumed: {@link Design#fillingObjects} is counted at the end of the
 * warm-up and of the measured phase, and a design still filling (a Kangaroo with a high move threshold
 * fills its sets slowly: threshold 10 at a log share of 0.1 takes about 80 N requests) reports their growth
 * per N requests ({@link Result#fillGrowthPerN}), which {@link Result#steadyState} bounds.
 */
final class Simulation {
  /** What every configuration of one run shares. */
  record Settings(int objects, double universeFactor, int keyBytes, int valueBytes, int headerBytes, double fill,
      double getRatio, double zipfExponent, double warmup, double requests, int readSample, long seed,
      int threshold, double logIndexBits, boolean reinsert) {
    Geometry geometry() {
      return Geometry.of(objects, universeFactor, keyBytes, valueBytes, headerBytes, fill);
    }

    /** These settings with Kangaroo's move threshold {@code t}. */
    Settings withThreshold(int t) {
      return new Settings(objects, universeFactor, keyBytes, valueBytes, headerBytes, fill, getRatio, zipfExponent,
          warmup, requests, readSample, seed, t, logIndexBits, reinsert);
    }
  }

  /** One design point: design kangaroo (uses logShare), nemo or pagelog (use groups and filter); bits = b. */
  record Config(String design, Workload.Distribution distribution, int groups, double bits, double logShare,
      String filter) {}

  private Simulation() {}

  static Design newDesign(Settings s, Config c, Geometry geo, Keys keys) {
    return switch (c.design()) {
      case "kangaroo" -> new KangarooDesign(geo, keys, c.logShare(), s.threshold(), c.bits(), s.logIndexBits());
      case "nemo" -> new NemoDesign(geo, keys, c.groups(), c.filter(), c.bits(), s.reinsert());
      case "pagelog" -> new PageLogDesign(geo, keys, c.groups(), c.filter(), c.bits(), s.reinsert());
      default -> throw new IllegalArgumentException("design must be kangaroo, nemo or pagelog, was " + c.design());
    };
  }

  static Result run(Settings s, Config c, Geometry geo, Keys keys, PrintStream progress) {
    return run(s, c, geo, keys, newDesign(s, c, geo, keys), progress);
  }

  /** Runs {@code d} (built for {@code c}) through the workload; {@code progress} may be null. */
  static Result run(Settings s, Config c, Geometry geo, Keys keys, Design d, PrintStream progress) {
    Workload w = new Workload(c.distribution(), geo.universe(), s.zipfExponent(), s.getRatio(), s.seed());
    long warm = Math.round(s.warmup() * s.objects());
    long total = warm + Math.round(s.requests() * s.objects());
    Tally t = new Tally();
    Counters before = null;
    long fillBefore = 0;
    long step = Math.max(1, total / 4);
    for (long i = 0; i < total; i++) {
      if (i == warm) {
        before = d.counters.copy();
        fillBefore = d.fillingObjects();
        t = new Tally();
      }
      if (i > 0 && i % step == 0 && progress != null) {
        progress.printf(Locale.ROOT, "small-design:   %s %s: %d%%%n", d.label(), c.distribution(), 100 * i / total);
      }
      request(d, w, t, i % s.readSample() == 0);
    }
    if (before == null) {
      before = d.counters.copy();
    }
    double measuredN = (double) (total - warm) / s.objects();
    return Result.of(c, geo, d, d.counters.minus(before), t, fillBefore, measuredN);
  }

  private static void request(Design d, Workload w, Tally t, boolean countReads) {
    int key = w.nextKey();
    if (!w.nextIsGet()) {
      t.puts++;
      d.insert(key);
      return;
    }
    t.gets++;
    int reads = countReads ? d.reads(key) : 0;
    int l = d.loc[key];
    if (d.lookup(key)) {
      if (Design.inBuffer(l)) {
        t.bufferHits++;
      } else {
        t.flashHits++;
        if (countReads) {
          t.sampledHits++;
          t.hitReads += reads;
        }
      }
      return;
    }
    t.misses++;
    if (countReads) {
      t.sampledAbsent++;
      t.absentReads += reads;
    }
    d.insert(key);
  }

  /** Request counts of a phase. */
  static final class Tally {
    long gets;
    long puts;
    long misses;
    long bufferHits;
    long flashHits;
    long sampledHits;
    long hitReads;
    long sampledAbsent;
    long absentReads;
  }
}
