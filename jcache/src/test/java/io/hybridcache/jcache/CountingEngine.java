package io.hybridcache.jcache;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.LifetimeClass;
import io.hybridcache.core.api.PlacementStats;
import io.hybridcache.core.device.DeviceCounters;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * An engine that counts the single-key reads and the batch reads made of it, and forwards every call to the real
 * engine. Installed for the managers a test opens with {@link #install}; thread-safe as the engine is.
 */
final class CountingEngine implements HybridCache {
  final HybridCache engine;
  /** Single-key reads: get, read, readArray, readTiered. */
  final AtomicInteger singleReads = new AtomicInteger();
  /** Batch reads (getAll, readAll) and the keys they asked for. */
  final AtomicInteger batchReads = new AtomicInteger();
  final AtomicInteger batchKeys = new AtomicInteger();

  private CountingEngine(HybridCache engine) {
    this.engine = engine;
  }

  /** Every engine opened until {@link AutoCloseable#close} is wrapped; the last one made is {@code last[0]}. */
  static AutoCloseable install(CountingEngine[] last) {
    SharedEngine.openedEngine = e -> last[0] = new CountingEngine(e);
    return () -> SharedEngine.openedEngine = java.util.function.UnaryOperator.identity();
  }

  @Override
  public byte[] get(byte[] key) {
    singleReads.incrementAndGet();
    return engine.get(key);
  }

  @Override
  public <T> T read(byte[] key, Function<java.nio.ByteBuffer, T> decoder) {
    singleReads.incrementAndGet();
    return engine.read(key, decoder);
  }

  @Override
  public <T> T readArray(byte[] key, Function<byte[], T> decoder) {
    singleReads.incrementAndGet();
    return engine.readArray(key, decoder);
  }

  @Override
  public <T> T readTiered(byte[] key, io.hybridcache.core.api.TieredDecoder<T> decoder) {
    singleReads.incrementAndGet();
    return engine.readTiered(key, decoder);
  }

  @Override
  public List<byte[]> getAll(List<byte[]> keys) {
    batchReads.incrementAndGet();
    batchKeys.addAndGet(keys.size());
    return engine.getAll(keys);
  }

  @Override
  public <T> List<T> readAll(List<byte[]> keys, io.hybridcache.core.api.TieredDecoder<T> decoder) {
    batchReads.incrementAndGet();
    batchKeys.addAndGet(keys.size());
    return engine.readAll(keys, decoder);
  }

  @Override
  public byte[] get(byte[] key, Function<byte[], byte[]> loader) {
    singleReads.incrementAndGet();
    return engine.get(key, loader);
  }

  @Override
  public void put(byte[] key, byte[] value) {
    engine.put(key, value);
  }

  @Override
  public void put(byte[] key, byte[] value, Duration ttl) {
    engine.put(key, value, ttl);
  }

  @Override
  public void putOwned(byte[] key, byte[] value, long expireAtMillis) {
    engine.putOwned(key, value, expireAtMillis);
  }

  @Override
  public void put(byte[] key, byte[] value, LifetimeClass lifetimeClass) {
    engine.put(key, value, lifetimeClass);
  }

  @Override
  public void put(byte[] key, byte[] value, Duration ttl, LifetimeClass lifetimeClass) {
    engine.put(key, value, ttl, lifetimeClass);
  }

  @Override
  public boolean remove(byte[] key) {
    return engine.remove(key);
  }

  @Override
  public byte[] readHead(byte[] key, int n) {
    return engine.readHead(key, n);
  }

  @Override
  public boolean containsKey(byte[] key) {
    return engine.containsKey(key);
  }

  @Override
  public void clear() {
    engine.clear();
  }

  @Override
  public Iterator<byte[]> keys() {
    return engine.keys();
  }

  @Override
  public Iterator<byte[]> keysOrFail() {
    return engine.keysOrFail();
  }

  @Override
  public List<byte[]> hottestKeys(int n) {
    return engine.hottestKeys(n);
  }

  @Override
  public long dramCapacity() {
    return engine.dramCapacity();
  }

  @Override
  public void setDramCapacity(long bytes) {
    engine.setDramCapacity(bytes);
  }

  @Override
  public void flush() {
    engine.flush();
  }

  @Override
  public CacheStats stats() {
    return engine.stats();
  }

  @Override
  public DeviceCounters.Snapshot deviceCounters() {
    return engine.deviceCounters();
  }

  @Override
  public CacheConfig config() {
    return engine.config();
  }

  @Override
  public PlacementStats placement() {
    return engine.placement();
  }

  @Override
  public void close() {
    engine.close();
  }
}
