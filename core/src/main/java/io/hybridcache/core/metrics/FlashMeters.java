package io.hybridcache.core.metrics;

import io.micrometer.core.instrument.MeterRegistry;

/**
 * The figures of a hybrid cache that Micrometer's cache meters have no name for, under {@code
 * hybridcache.*}: bytes per tier, the flash tier's reads (device reads, pages, per hit), writes and
 * write amplification, reclaim, refused evictions by reason, segments by state and faults. One meter
 * per numeric {@link io.hybridcache.core.api.CacheStats} field that {@link HybridCacheMetrics}'s
 * {@code cache.*} meters do not already show, plus three ratios. Stateless.
 */
final class FlashMeters {
  private static final String BYTES = "bytes";

  private FlashMeters() {}

  static void bind(StatsMeters<?> m, MeterRegistry r) {
    m.gauge(r, "hybridcache.live", "Bytes a tier holds: DRAM as weighed, flash as live entries", BYTES,
        s -> s.dramWeightedBytes(), "tier", "dram");
    m.gauge(r, "hybridcache.live", "Bytes a tier holds: DRAM as weighed, flash as live entries", BYTES,
        s -> s.flashLiveBytes(), "tier", "flash");
    m.gauge(r, "hybridcache.flash.index.memory", "DRAM the flash index holds", BYTES, s -> s.indexMemoryBytes());

    m.counter(r, "hybridcache.flash.lookups", "Lookups that reached the flash index with a candidate entry",
        null, s -> s.flashLookups());
    m.counter(r, "hybridcache.flash.reads", "Device reads made by lookups", null, s -> s.deviceReads());
    m.counter(r, "hybridcache.flash.pages.read", "4 KiB pages read by those device reads", null,
        s -> s.devicePagesRead());
    m.counter(r, "hybridcache.index.checkpoints", "Compact-index checkpoints made durable", null,
        s -> s.checkpoints());
    m.counter(r, "hybridcache.index.checkpoint.failures", "Compact-index checkpoints that failed (retried)", null,
        s -> s.checkpointFailures());
    m.gauge(r, "hybridcache.index.cold.after.crash", "1 while a crash now would make the next open cold, else 0",
        null, s -> s.nextUncleanOpenCold() ? 1 : 0);
    m.counter(r, "hybridcache.flash.buffer.hits", "Flash hits served from an unflushed write buffer", null,
        s -> s.bufferHits());
    m.counter(r, "hybridcache.flash.corrupt.reads", "Flash reads rejected by the magic, CRC, segment or key check",
        null, s -> s.corruptReads());
    m.counter(r, "hybridcache.interrupted.reads", "Lookups that missed because the caller was interrupted mid-read",
        null, s -> s.interruptedReads());
    m.counter(r, "hybridcache.out.of.memory.misses", "Lookups that missed because no direct memory was left for a "
        + "read buffer", null, s -> s.outOfMemoryMisses());
    m.gauge(r, "hybridcache.flash.reads.per.hit", "Device reads per flash hit served from the device", null,
        s -> s.deviceReadsPerFlashHit());
    m.gauge(r, "hybridcache.flash.pages.per.hit", "Device pages read per flash hit served from the device", null,
        s -> s.pagesPerFlashHit());

    String engineEntries = "Entries of one flash engine: log (segments + index) or small (sets of 4 KiB pages)";
    m.gauge(r, "hybridcache.flash.engine.entries", engineEntries, null, s -> s.logEngineEntries(), "engine", "log");
    m.gauge(r, "hybridcache.flash.engine.entries", engineEntries, null, s -> s.smallObjects().entries(),
        "engine", "small");
    String perEntry = "DRAM one flash engine costs per entry it holds";
    m.gauge(r, "hybridcache.flash.engine.dram.per.entry", perEntry, BYTES, s -> s.logEngineDramBytesPerEntry(),
        "engine", "log");
    m.gauge(r, "hybridcache.flash.engine.dram.per.entry", perEntry, BYTES,
        s -> s.smallObjects().dramBytesPerEntry(), "engine", "small");
    m.counter(r, "hybridcache.small.bloom.false.positive.reads",
        "Set-page reads the Bloom filter allowed for a key the page did not hold", null,
        s -> s.smallObjects().bloomFalsePositiveReads());
    m.counter(r, "hybridcache.small.set.rewrites", "Set pages written by the small-object engine", null,
        s -> s.smallObjects().setRewrites());
    m.gauge(r, "hybridcache.small.objects.per.set.rewrite", "New objects per set-page rewrite", null,
        s -> s.smallObjects().objectsPerSetRewrite());
    m.gauge(r, "hybridcache.small.log.hit.share", "Share of the small-object engine's hits served by its log",
        null, s -> s.smallObjects().logHitShare());
    m.gauge(r, "hybridcache.small.write.amplification",
        "Bytes the small-object engine wrote per byte it admitted", null,
        s -> s.smallObjects().writeAmplification());
    m.counter(r, "hybridcache.small.faults", "Throwables out of the small-object engine (each empties it)", null,
        s -> s.smallObjects().faults());

    m.counter(r, "hybridcache.flash.admitted", "Bytes of DRAM evictions accepted for writing to flash", BYTES,
        s -> s.bytesAdmitted());
    m.counter(r, "hybridcache.flash.written", "Bytes written to the device: new entries (flush) or reclaim",
        BYTES, s -> s.flushBytesWritten(), "source", "flush");
    m.counter(r, "hybridcache.flash.written", "Bytes written to the device: new entries (flush) or reclaim",
        BYTES, s -> s.reclaimBytesWritten(), "source", "reclaim");
    m.gauge(r, "hybridcache.flash.write.amplification", "Bytes written to the device per byte admitted", null,
        s -> s.appWriteAmplification());
    m.counter(r, "hybridcache.flash.reclaim.reinserted", "Entries reclaim moved to a survivor segment", null,
        s -> s.reinserted());
    m.counter(r, "hybridcache.flash.reclaim.segments", "Segments emptied by reclaim", null,
        s -> s.reclaimedSegments());

    String rejected = "DRAM evictions that did not reach flash, by reason";
    m.counter(r, "hybridcache.flash.rejected", rejected, null, s -> s.admissionRejected(), "reason", "admission");
    m.counter(r, "hybridcache.flash.rejected", rejected, null, s -> s.queueRejected(), "reason", "queue");
    m.counter(r, "hybridcache.flash.rejected", rejected, null, s -> s.tooLargeRejected(), "reason", "too_large");
    m.counter(r, "hybridcache.flash.rejected", rejected, null, s -> s.degradedRejected(), "reason", "degraded");
    m.counter(r, "hybridcache.flash.rejected", rejected, null, s -> s.indexFullRejected(), "reason", "index_full");
    m.counter(r, "hybridcache.flash.rejected", rejected, null, s -> s.capRejected(), "reason", "cap");
    m.counter(r, "hybridcache.flash.cascade.waits",
        "flash writes that waited for room (a free write buffer or a segment slot)", null, s -> s.cascadeWaits());

    String segments = "Segment slots by state: free, active (accepting appends) or sealed";
    m.gauge(r, "hybridcache.flash.segments", segments, null, s -> s.freeSegments(), "state", "free");
    m.gauge(r, "hybridcache.flash.segments", segments, null, s -> s.activeSegments(), "state", "active");
    m.gauge(r, "hybridcache.flash.segments", segments, null, s -> s.sealedSegments(), "state", "sealed");

    m.gauge(r, "hybridcache.flash.degraded", "1 while the flash tier is out of service, else 0", null,
        s -> s.degraded() ? 1 : 0);
    m.counter(r, "hybridcache.flash.io.errors", "Device errors seen", null, s -> s.ioErrors());
    m.counter(r, "hybridcache.flash.writer.faults", "Throwables from one command of the flash writer", null,
        s -> s.writerFaults());
    m.counter(r, "hybridcache.flash.segments.dropped", "Segments dropped after a read error or at recovery", null,
        s -> s.segmentsDropped());
    m.counter(r, "hybridcache.flash.entries.dropped", "Flash entries that left the index with those segments",
        null, s -> s.entriesDropped());
    m.counter(r, "hybridcache.flash.index.drops", "Bulk invalidations that dropped the whole flash index", null,
        s -> s.flashIndexDrops());
  }
}
