package io.hybridcache.core.engine;

import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCacheMXBean;
import java.lang.management.ManagementFactory;
import java.util.function.Supplier;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The registered {@link HybridCacheMXBean}. Thread-safe: each getter takes a fresh snapshot. */
final class StatsMXBean implements HybridCacheMXBean {
  private static final Logger LOG = LoggerFactory.getLogger(StatsMXBean.class);
  private final Supplier<CacheStats> stats;
  private ObjectName name;

  private StatsMXBean(Supplier<CacheStats> stats) {
    this.stats = stats;
  }

  /** Registers a bean for {@code cacheName}; a name already taken gets a numeric suffix. */
  public static StatsMXBean register(String cacheName, Supplier<CacheStats> stats) {
    StatsMXBean bean = new StatsMXBean(stats);
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    for (int i = 0; i < 100 && bean.name == null; i++) {
      try {
        ObjectName n = new ObjectName("io.hybridcache:type=HybridCache,name="
            + ObjectName.quote(i == 0 ? cacheName : cacheName + "-" + i));
        if (!server.isRegistered(n)) {
          server.registerMBean(bean, n);
          bean.name = n;
        }
      } catch (JMException e) {
        LOG.warn("JMX registration of {} failed: {}", cacheName, e.toString());
        break;
      }
    }
    return bean;
  }

  public ObjectName objectName() {
    return name;
  }

  public void unregister() {
    if (name != null) {
      try {
        ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
      } catch (JMException e) {
        LOG.debug("JMX unregister failed", e);
      }
      name = null;
    }
  }

  @Override public long getGets() { return stats.get().gets(); }
  @Override public long getDramHits() { return stats.get().dramHits(); }
  @Override public long getFlashHits() { return stats.get().flashHits(); }
  @Override public long getMisses() { return stats.get().misses(); }
  @Override public long getFlashLookups() { return stats.get().flashLookups(); }
  @Override public long getDeviceReads() { return stats.get().deviceReads(); }
  @Override public long getBufferHits() { return stats.get().bufferHits(); }
  @Override public long getCorruptReads() { return stats.get().corruptReads(); }
  @Override public long getPuts() { return stats.get().puts(); }
  @Override public long getRemoves() { return stats.get().removes(); }
  @Override public long getDramEntries() { return stats.get().dramEntries(); }
  @Override public long getDramWeightedBytes() { return stats.get().dramWeightedBytes(); }
  @Override public long getFlashEntries() { return stats.get().flashEntries(); }
  @Override public long getFlashLiveBytes() { return stats.get().flashLiveBytes(); }
  @Override public long getIndexMemoryBytes() { return stats.get().indexMemoryBytes(); }
  @Override public long getBytesAdmitted() { return stats.get().bytesAdmitted(); }
  @Override public long getFlushBytesWritten() { return stats.get().flushBytesWritten(); }
  @Override public long getReclaimBytesWritten() { return stats.get().reclaimBytesWritten(); }
  @Override public long getReinserted() { return stats.get().reinserted(); }
  @Override public long getReclaimEvicted() { return stats.get().reclaimEvicted(); }
  @Override public long getReclaimedSegments() { return stats.get().reclaimedSegments(); }
  @Override public long getAdmissionRejected() { return stats.get().admissionRejected(); }
  @Override public long getQueueRejected() { return stats.get().queueRejected(); }
  @Override public long getCascadeWaits() { return stats.get().cascadeWaits(); }
  @Override public long getTooLargeRejected() { return stats.get().tooLargeRejected(); }
  @Override public long getDegradedRejected() { return stats.get().degradedRejected(); }
  @Override public int getFreeSegments() { return stats.get().freeSegments(); }
  @Override public int getActiveSegments() { return stats.get().activeSegments(); }
  @Override public int getSealedSegments() { return stats.get().sealedSegments(); }
  @Override public long getIoErrors() { return stats.get().ioErrors(); }
  @Override public boolean isDegraded() { return stats.get().degraded(); }
  @Override public long getWriterFaults() { return stats.get().writerFaults(); }
  @Override public long getSegmentsDropped() { return stats.get().segmentsDropped(); }
  @Override public long getEntriesDropped() { return stats.get().entriesDropped(); }
  @Override public long getIndexFullRejected() { return stats.get().indexFullRejected(); }
  @Override public long getCapRejected() { return stats.get().capRejected(); }
  @Override public long getFlashIndexDrops() { return stats.get().flashIndexDrops(); }
  @Override public long getInterruptedReads() { return stats.get().interruptedReads(); }
  @Override public String getLastFault() { return stats.get().lastFault(); }
  @Override public long getDevicePagesRead() { return stats.get().devicePagesRead(); }
  @Override public long getCheckpoints() { return stats.get().checkpoints(); }
  @Override public long getCheckpointFailures() { return stats.get().checkpointFailures(); }
  @Override public boolean isNextUncleanOpenCold() { return stats.get().nextUncleanOpenCold(); }
  @Override public long getOutOfMemoryMisses() { return stats.get().outOfMemoryMisses(); }

  @Override public long getRefusedEvictions() { return stats.get().refusedEvictions(); }
  @Override public double getHitRatioDram() { return stats.get().hitRatioDram(); }
  @Override public double getHitRatioFlash() { return stats.get().hitRatioFlash(); }
  @Override public double getHitRatio() { return stats.get().hitRatio(); }
  @Override public double getDeviceReadsPerFlashHit() { return stats.get().deviceReadsPerFlashHit(); }
  @Override public double getPagesPerFlashHit() { return stats.get().pagesPerFlashHit(); }
  @Override public double getAppWriteAmplification() { return stats.get().appWriteAmplification(); }
  @Override public double getDramBytesPerFlashEntry() { return stats.get().dramBytesPerFlashEntry(); }

  @Override public long getLogEngineEntries() { return stats.get().logEngineEntries(); }
  @Override public long getLogEngineIndexMemoryBytes() { return stats.get().logEngineIndexMemoryBytes(); }
  @Override public double getLogEngineDramBytesPerEntry() { return stats.get().logEngineDramBytesPerEntry(); }
  @Override public boolean isSmallObjectEngineEnabled() { return stats.get().smallObjectEngineEnabled(); }
  @Override public long getSmallObjectEntries() { return stats.get().smallObjectEntries(); }
  @Override public double getSmallObjectDramBytesPerEntry() { return stats.get().smallObjectDramBytesPerEntry(); }
  @Override public long getSmallObjectBloomFalsePositiveReads() {
    return stats.get().smallObjectBloomFalsePositiveReads();
  }
  @Override public long getSmallObjectSetRewrites() { return stats.get().smallObjectSetRewrites(); }
  @Override public double getSmallObjectsPerSetRewrite() { return stats.get().smallObjectsPerSetRewrite(); }
  @Override public double getSmallObjectLogHitShare() { return stats.get().smallObjectLogHitShare(); }
  @Override public double getSmallObjectWriteAmplification() {
    return stats.get().smallObjectWriteAmplification();
  }
  @Override public long getSmallObjectFaults() { return stats.get().smallObjectFaults(); }
}
