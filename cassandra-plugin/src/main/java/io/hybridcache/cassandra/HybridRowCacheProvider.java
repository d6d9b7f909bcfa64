package io.hybridcache.cassandra;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.HybridCache;
import org.apache.cassandra.cache.CacheProvider;
import org.apache.cassandra.cache.ICache;
import org.apache.cassandra.cache.IRowCacheEntry;
import org.apache.cassandra.cache.RowCacheKey;
import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.net.MessagingService;
import org.apache.cassandra.schema.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cassandra row cache provider: {@code row_cache_class_name: io.hybridcache.cassandra.HybridRowCacheProvider}
 * with {@code row_cache_size} &gt; 0 (the DRAM tier) and the flash tier's {@link RowCacheSettings} file.
 *
 * <p>Thread-safe: Cassandra makes one instance and calls {@link #create()} once. The constructor reads
 * and validates the settings file. Cassandra reports a failing constructor only as "Cannot find
 * configured row cache provider class" and drops the cause, so every failure is logged here first, with
 * the setting it concerns.
 *
 * <p>Starts cold by default: {@link #create()} empties the flash tier. Cassandra reloads the keys it
 * saved ({@code row_cache_save_period}, {@code row_cache_keys_to_save}) by reading each partition from
 * its SSTables, which are the truth after a restart; partitions kept on flash across a restart could
 * be stale (a crash between a write and our index update, SSTables restored or imported while the
 * node was down, a schema change), and stale cache entries are served without any check.
 */
public final class HybridRowCacheProvider implements CacheProvider<RowCacheKey, IRowCacheEntry> {
  private static final Logger LOG = LoggerFactory.getLogger(HybridRowCacheProvider.class);
  private static volatile HybridRowCache last;

  private final RowCacheSettings settings;

  public HybridRowCacheProvider() {
    try {
      settings = RowCacheSettings.load();
    } catch (RuntimeException | Error e) {
      LOG.error("{}", e.getMessage(), e);
      throw e;
    }
  }

  @Override
  public ICache<RowCacheKey, IRowCacheEntry> create() {
    try {
      long dram = DatabaseDescriptor.getRowCacheSizeInMiB() * CacheConfig.MIB;
      CacheConfig config = settings.cacheConfig(dram);
      HybridCache cache = HybridCache.open(config);
      if (!settings.warmStart()) {
        cache.clear();
      } else {
        Runtime.getRuntime().addShutdownHook(new Thread(cache::close, "hybridcache-row-cache-close"));
      }
      RowCacheCodec codec = new RowCacheCodec(() -> MessagingService.current_version,
          id -> Schema.instance.getTableMetadata(id) != null);
      HybridRowCache rowCache = new HybridRowCache(cache, codec, dram);
      LOG.info("hybridcache row cache: DRAM {} MiB, flash {} MiB in {} ({} start, settings {}), JMX "
              + "io.hybridcache:type=HybridCache,name=\"{}\"", dram / CacheConfig.MIB,
          config.flashBytes() / CacheConfig.MIB, config.directory(), settings.warmStart() ? "warm" : "cold",
          settings.source(), config.name());
      last = rowCache;
      return rowCache;
    } catch (RuntimeException | Error e) {
      LOG.error("{}", e.getMessage(), e);
      throw e;
    }
  }

  /** The row cache the last {@link #create()} in this JVM made, or null (tests and tools). */
  public static HybridRowCache lastCreated() {
    return last;
  }
}
