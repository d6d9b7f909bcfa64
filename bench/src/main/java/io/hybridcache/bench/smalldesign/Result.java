package io.hybridcache.bench.smalldesign;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.StatsJson;

/**
 * The figures of one design point (see {@link SmallDesignCommand} for their definitions). A derived row
 * ({@link #filtersOnFlash}) is marked so in its label and JSON. {@code threshold} is Kangaroo's move
 * threshold (0 for the other designs); {@code fillGrowthPerN} the relative growth of {@link Design#fillingObjects}
 * over the measured phase per N requests (see {@link #steadyState}).
 */
record Result(String label, Simulation.Config config, int threshold, long objectsOnFlash, long objectsInBuffers,
    double filterBits, double indexBits, double evictionBits, double bufferBits, double appWa,
    double fillAtFlush, double movedPerInsert, double readsPerHit, double readsPerAbsent, double missRatio,
    double bufferHitShare, long sampledHits, long sampledAbsent, boolean conserved, boolean derived,
    double fillGrowthPerN) {
  /** Largest growth of the objects on flash per N measured requests of a row at steady state. */
  static final double STEADY_GROWTH_PER_N = 0.02;

  /**
   * {@code fillBefore} is {@link Design#fillingObjects} at the end of the warm-up, {@code measuredN} the measured
   * requests in units of N.
   */
  static Result of(Simulation.Config c, Geometry geo, Design d, Counters phase, Simulation.Tally t,
      long fillBefore, double measuredN) {
    long onFlash = d.residentOnFlash();
    long resident = d.resident();
    Dram dram = d.dram();
    double per = Math.max(1, onFlash);
    Counters all = d.counters;
    boolean conserved = all.inserted == resident + all.superseded + all.evicted + all.dropped;
    double flushedPages = Math.max(1, phase.pageWrites);
    int threshold = d instanceof KangarooDesign k ? k.threshold() : 0;
    long fill = d.fillingObjects();
    double growth = (fill - fillBefore) / (Math.max(1.0, fill) * measuredN);
    return new Result(d.label(), c, threshold, onFlash, resident - onFlash, dram.filterBits() / per, dram.indexBits() / per,
        dram.evictionBits() / per, dram.bufferBits() / per,
        (double) phase.pageWrites * Geometry.PAGE_BYTES / Math.max(1, phase.inserted * (double) geo.objectBytes()),
        phase.objectsInWrittenPages / (flushedPages * geo.perPage()),
        phase.moved / Math.max(1.0, phase.inserted),
        t.hitReads / Math.max(1.0, t.sampledHits), t.absentReads / Math.max(1.0, t.sampledAbsent),
        t.misses / Math.max(1.0, t.gets), t.bufferHits / Math.max(1.0, t.gets - t.misses),
        t.sampledHits, t.sampledAbsent, conserved, false, growth);
  }

  /** Whether {@link Design#fillingObjects} grew by at most {@value #STEADY_GROWTH_PER_N} of them per N measured requests. */
  boolean steadyState() {
    return Math.abs(fillGrowthPerN) <= STEADY_GROWTH_PER_N;
  }

  double totalBits() {
    return filterBits + indexBits + evictionBits + bufferBits;
  }

  /**
   * Nemo with its filters on flash (its packed per-set filters: one page read covers a set across groups),
   * derived from this row, not simulated: no filter DRAM, one more device read per flash lookup. The worst
   * case of Nemo's split (it keeps a hot part of the filters in DRAM).
   */
  Result filtersOnFlash() {
    return new Result(label + " filters on flash (derived)", config, threshold, objectsOnFlash, objectsInBuffers, 0,
        indexBits, evictionBits, bufferBits, appWa, fillAtFlush, movedPerInsert, readsPerHit + 1,
        readsPerAbsent + 1, missRatio, bufferHitShare, sampledHits, sampledAbsent, conserved, true,
        fillGrowthPerN);
  }

  ObjectNode toJson() {
    ObjectNode n = StatsJson.MAPPER.createObjectNode();
    n.put("label", label).put("design", config.design()).put("distribution", config.distribution().name().toLowerCase())
        .put("derived", derived);
    if (config.design().equals("kangaroo")) {
      n.put("log_share", config.logShare()).put("threshold", threshold);
    } else {
      n.put("groups", config.groups()).put("filter", config.filter());
    }
    n.put("bits_parameter", config.bits()).put("objects_on_flash", objectsOnFlash)
        .put("objects_in_dram_buffers", objectsInBuffers);
    ObjectNode dram = n.putObject("dram_bits_per_flash_object");
    dram.put("filters", filterBits).put("index", indexBits).put("eviction", evictionBits)
        .put("buffer_amortised", bufferBits).put("total", totalBits());
    n.put("dram_bytes_per_flash_object", totalBits() / 8).put("app_wa", appWa).put("fill_at_flush", fillAtFlush)
        .put("moved_per_insert", movedPerInsert).put("reads_per_flash_hit", readsPerHit)
        .put("reads_per_absent_lookup", readsPerAbsent).put("miss_ratio", missRatio)
        .put("dram_buffer_hit_share", bufferHitShare).put("sampled_flash_hits", sampledHits)
        .put("sampled_absent_lookups", sampledAbsent).put("conservation_holds", conserved)
        .put("fill_growth_per_n", fillGrowthPerN).put("steady_state", steadyState());
    return n;
  }
}
