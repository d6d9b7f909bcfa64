package io.hybridcache.bench;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/** A trivial in-memory HybridCache for tests of the bench (every hit counts as a DRAM hit). Thread-safe. */
public final class MapCache implements HybridCache {
  private final ConcurrentHashMap<ByteBuffer, byte[]> map = new ConcurrentHashMap<>();
  private final CacheConfig config;
  private final AtomicLong gets = new AtomicLong();
  private final AtomicLong hits = new AtomicLong();
  private final AtomicLong puts = new AtomicLong();
  private final AtomicLong removes = new AtomicLong();
  public final AtomicBoolean closed = new AtomicBoolean();

  public MapCache(CacheConfig config) {
    this.config = config;
  }

  private void open() {
    if (closed.get()) {
      throw new IllegalStateException("closed");
    }
  }

  @Override
  public byte[] get(byte[] key) {
    open();
    gets.incrementAndGet();
    byte[] v = map.get(ByteBuffer.wrap(key));
    if (v != null) {
      hits.incrementAndGet();
    }
    return v;
  }

  @Override
  public void put(byte[] key, byte[] value) {
    open();
    puts.incrementAndGet();
    map.put(ByteBuffer.wrap(key.clone()), value.clone());
  }

  @Override
  public void put(byte[] key, byte[] value, Duration ttl) {
    put(key, value);
  }

  @Override
  public boolean remove(byte[] key) {
    open();
    removes.incrementAndGet();
    return map.remove(ByteBuffer.wrap(key)) != null;
  }

  @Override
  public boolean containsKey(byte[] key) {
    return map.containsKey(ByteBuffer.wrap(key));
  }

  @Override
  public void clear() {
    map.clear();
  }

  @Override
  public Iterator<byte[]> keys() {
    return map.keySet().stream().map(b -> b.array().clone()).toList().iterator();
  }

  @Override
  public List<byte[]> hottestKeys(int n) {
    return map.keySet().stream().limit(Math.max(0, n)).map(b -> b.array().clone()).toList();
  }

  @Override
  public long dramCapacity() {
    return config.dramBytes();
  }

  @Override
  public void setDramCapacity(long bytes) {
    // no tiers to resize
  }

  @Override
  public CacheStats stats() {
    long g = gets.get();
    long h = hits.get();
    return new CacheStats(g, h, 0, g - h, 0, 0, 0, 0, puts.get(), removes.get(), map.size(), 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, false,
        0, 0, 0, 0, 0, 0, "", 0, 0, 0, false, 0, 0,
        io.hybridcache.core.api.SmallObjectStats.OFF);
  }

  @Override
  public CacheConfig config() {
    return config;
  }

  @Override
  public void close() {
    closed.set(true);
  }

  public int size() {
    return map.size();
  }
}
