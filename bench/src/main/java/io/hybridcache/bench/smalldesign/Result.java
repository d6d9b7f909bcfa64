package io.hybridcache.bench.smalldesign;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.StatsJson;

/**
 * The figures of one design point (see {@link SmallDesignCommand} for their definitions). A derived row
 * ({@link #filtersOnFlash}) is marked so in its label and JSON.
 */
record Result(String label, Simulation.Config config, long objectsOnFlash, long objectsInBuffers,
    double filterBits, double indexBits, double evictionBits, double bufferBits, double appWa,
    double fillAtFlush, double movedPerInsert, double readsPerHit, double readsPerAbsent, double missRatio,
    double bufferHitShare, long sampledHits, long sampledAbsent, boolean conserved, boolean derived) {

  static Result of(Simulation.Config c, Geometry geo, Design d, Counters phase, Simulation.Tally t) {
    long onFlash = d.residentOnFlash();
    long resident = d.resident();
    Dram dram = d.dram();
    double per = Math.max(1, onFlash);
    Counters all = d.counters;
    boolean conserved = all.inserted == resident + all.superseded + all.evicted + all.dropped;
    double flushedPages = Math.max(1, phase.pageWrites);
    return new Result(d.label(), c, onFlash, resident - onFlash, dram.filterBits() / per, dram.indexBits() / per,
        dram.evictionBits() / per, dram.bufferBits() / per,
        (double) phase.pageWrites * Geometry.PAGE_BYTES / Math.max(1, phase.inserted * (double) geo.objectBytes()),
        phase.objectsInWrittenPages / (flushedPages * geo.perPage()),
        phase.moved / Math.max(1.0, phase.inserted),
        t.hitReads / Math.max(1.0, t.sampledHits), t.absentReads / Math.max(1.0, t.sampledAbsent),
        t.misses / Math.max(1.0, t.gets), t.bufferHits / Math.max(1.0, t.gets - t.misses),
        t.sampledHits, t.sampledAbsent, conserved, false);
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
    return new Result(label + " filters on flash (derived)", config, objectsOnFlash, objectsInBuffers, 0,
        indexBits, evictionBits, bufferBits, appWa, fillAtFlush, movedPerInsert, readsPerHit + 1,
        readsPerAbsent + 1, missRatio, bufferHitShare, sampledHits, sampledAbsent, conserved, true);
  }

  ObjectNode toJson() {
    ObjectNode n = StatsJson.MAPPER.createObjectNode();
    n.put("label", label).put("design", config.design()).put("distribution", config.distribution().name().toLowerCase())
        .put("derived", derived);
    if (config.design().equals("kangaroo")) {
      n.put("log_share", config.logShare());
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
        .put("sampled_absent_lookups", sampledAbsent).put("conservation_holds", conserved);
    return n;
  }
}
