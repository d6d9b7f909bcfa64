package io.hybridcache.core.api;

/**
 * JMX view of a cache, registered as {@code io.hybridcache:type=HybridCache,name=NAME}. Every attribute
 * is read from a fresh stats snapshot.
 */
public interface HybridCacheMXBean {
  long getGets();
  long getDramHits();
  long getFlashHits();
  long getMisses();
  double getHitRatioDram();
  double getHitRatioFlash();
  double getDeviceReadsPerFlashHit();
  long getDramBytes();
  long getFlashEntries();
  long getFlashLiveBytes();
  double getDramBytesPerFlashEntry();
  long getBytesAdmitted();
  long getFlushBytesWritten();
  long getReclaimBytesWritten();
  double getAppWriteAmplification();
  long getQueueRejected();
  long getAdmissionRejected();
  int getFreeSegments();
  int getActiveSegments();
  int getSealedSegments();
  long getIoErrors();
  boolean isDegraded();
  long getWriterFaults();
  long getSegmentsDropped();
  long getEntriesDropped();
  long getIndexFullRejected();
  long getFlashIndexDrops();
  long getInterruptedReads();
  /** The newest fault with its cause, or "" if none since open. */
  String getLastFault();
  long getDevicePagesRead();
  double getPagesPerFlashHit();
}
