package io.hybridcache.bench.compare.stores;

import io.hybridcache.bench.Sizes;
import io.hybridcache.bench.compare.KvStore;
import io.hybridcache.bench.compare.StoreSettings;
import java.nio.file.Path;
import org.infinispan.AdvancedCache;
import org.infinispan.Cache;
import org.infinispan.configuration.cache.CacheMode;
import org.infinispan.configuration.cache.ConfigurationBuilder;
import org.infinispan.configuration.cache.StorageType;
import org.infinispan.configuration.global.GlobalConfigurationBuilder;
import org.infinispan.context.Flag;
import org.infinispan.eviction.EvictionStrategy;
import org.infinispan.manager.DefaultCacheManager;

/**
 * Infinispan embedded: one LOCAL cache (no transport, no clustering) bounded in DRAM, writing
 * through to a SoftIndexFileStore that holds every record. Thread-safe (Infinispan's cache is;
 * {@link #close} must not race the other calls, as for every {@link KvStore}).
 *
 * <p>Budget: the DRAM budget is the data container's {@code memory().maxSize} in bytes, with
 * entries stored off-heap (serialised by ProtoStream, which knows String and byte[]); when full it
 * evicts ({@code whenFull=REMOVE}), and a later read loads the entry back from the store.
 * Outside the budget: the store's in-memory index nodes and write queue, and the JVM side.
 *
 * <p>Disk: the SoftIndexFileStore under the store's directory ({@code data/}: append-only log
 * files, compacted in the background; {@code index/}: its B+tree index), write-through (passivation
 * off), writes not fsynced ({@code syncWrites=false}, the default; as the other peers). It is
 * unbounded: {@code diskBytes} does not apply.
 *
 * <p>{@link #delete} uses the previous value that {@code remove} returns (loaded from the store if
 * evicted), so it is exact.
 */
public final class InfinispanStore implements KvStore {
  private static final String NAME = "compare";

  private final DefaultCacheManager manager;
  private final Cache<String, byte[]> cache;
  /** The cache for put: no previous value returned, so a put does not read the store first. */
  private final AdvancedCache<String, byte[]> writes;
  private final long maxBytes;
  private final Path directory;

  public InfinispanStore(StoreSettings s) {
    maxBytes = s.dramBytes();
    directory = s.directory();
    GlobalConfigurationBuilder global = new GlobalConfigurationBuilder().nonClusteredDefault();
    global.globalState().enable().persistentLocation(directory.toString());
    ConfigurationBuilder c = new ConfigurationBuilder();
    c.clustering().cacheMode(CacheMode.LOCAL);
    c.memory().storage(StorageType.OFF_HEAP).maxSize(Long.toString(maxBytes)).whenFull(EvictionStrategy.REMOVE);
    c.persistence().passivation(false)
        .addSoftIndexFileStore()
        .dataLocation(directory.resolve("data").toString())
        .indexLocation(directory.resolve("index").toString())
        .preload(false)
        .purgeOnStartup(false);
    manager = new DefaultCacheManager(global.build());
    try {
      manager.defineConfiguration(NAME, c.build());
      cache = manager.getCache(NAME);
      writes = cache.getAdvancedCache().withFlags(Flag.IGNORE_RETURN_VALUES);
    } catch (RuntimeException e) {
      manager.stop();
      throw e;
    }
  }

  @Override
  public byte[] get(String key) {
    return cache.get(key);
  }

  @Override
  public void put(String key, byte[] value) {
    writes.put(key, value);
  }

  @Override
  public boolean delete(String key) {
    return cache.remove(key) != null;
  }

  @Override
  public String describe() {
    return "infinispan " + org.infinispan.commons.util.Version.getVersion() + ": local cache, off-heap max "
        + Sizes.format(maxBytes) + " (evicts, then loads from the store), write-through SoftIndexFileStore in "
        + directory;
  }

  /** Stops the cache manager, which stops the store (its log files and index stay). */
  @Override
  public void close() {
    manager.stop();
  }
}
