package io.hybridcache.core.api;

/**
 * JMX view of a cache: one attribute per {@link CacheStats} field, named after it ({@code FlashHits} for
 * {@link CacheStats#flashHits()}, {@code Degraded} for {@link CacheStats#degraded()}), and one per
 * derived figure ({@code HitRatio}, {@code PagesPerFlashHit}...). Registered when {@link
 * CacheConfig#jmx()} is set as {@code io.hybridcache:type=HybridCache,name="NAME"}: NAME is {@link
 * CacheConfig#name()} quoted by {@link javax.management.ObjectName#quote(String)}, with {@code -1},
 * {@code -2}... appended if an open cache already holds the name. Every attribute is read from a fresh
 * stats snapshot.
 */
public interface HybridCacheMXBean {
  long getGets();
  long getDramHits();
  long getFlashHits();
  long getMisses();
  long getFlashLookups();
  long getDeviceReads();
  long getBufferHits();
  long getCorruptReads();
  long getPuts();
  long getRemoves();
  long getDramEntries();
  long getDramWeightedBytes();
  long getFlashEntries();
  long getFlashLiveBytes();
  long getIndexMemoryBytes();
  long getBytesAdmitted();
  long getFlushBytesWritten();
  long getReclaimBytesWritten();
  long getReinserted();
  long getReclaimEvicted();
  long getReclaimedSegments();
  long getAdmissionRejected();
  long getQueueRejected();
  long getCascadeWaits();
  long getTooLargeRejected();
  long getDegradedRejected();
  int getFreeSegments();
  int getActiveSegments();
  int getSealedSegments();
  long getIoErrors();
  boolean isDegraded();
  long getWriterFaults();
  long getSegmentsDropped();
  long getEntriesDropped();
  long getIndexFullRejected();
  /** {@link CacheStats#capRejected()}. */
  long getCapRejected();
  long getFlashIndexDrops();
  long getInterruptedReads();
  /** The newest fault with its cause, or "" if none since open. */
  String getLastFault();
  long getDevicePagesRead();
  long getCheckpoints();
  long getCheckpointFailures();
  long getOutOfMemoryMisses();

  /** See {@link CacheStats#nextUncleanOpenCold()}. */
  boolean isNextUncleanOpenCold();

  /** {@link CacheStats#refusedEvictions()}. */
  long getRefusedEvictions();
  double getHitRatioDram();
  double getHitRatioFlash();
  double getHitRatio();
  double getDeviceReadsPerFlashHit();
  double getPagesPerFlashHit();
  double getAppWriteAmplification();
  double getDramBytesPerFlashEntry();

  // Per flash engine (see CacheStats#smallObjects(); the figures above cover both engines)
  long getLogEngineEntries();
  long getLogEngineIndexMemoryBytes();
  double getLogEngineDramBytesPerEntry();
  boolean isSmallObjectEngineEnabled();
  long getSmallObjectEntries();
  double getSmallObjectDramBytesPerEntry();
  long getSmallObjectBloomFalsePositiveReads();
  long getSmallObjectSetRewrites();
  double getSmallObjectsPerSetRewrite();
  double getSmallObjectLogHitShare();
  double getSmallObjectWriteAmplification();
  long getSmallObjectFaults();
}
