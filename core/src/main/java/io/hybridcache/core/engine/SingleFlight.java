package io.hybridcache.core.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One load per key at a time for {@code get(key, loader)} (Caffeine's {@code get(key, mappingFunction)}
 * and Go's singleflight): the first caller of a missing key runs the loader; callers arriving meanwhile
 * wait for it and get its value or its exception.
 *
 * <p>Concurrency: a load is registered in {@code loads} before the cache is checked again, and that check
 * first waits for any write of the key in progress (the caller's {@code cached}), so a put or remove that
 * took effect before the check is seen by it, and one that takes effect after it marks the load superseded
 * ({@link #supersede}, called inside the write's DRAM compute for the key). The loaded value is installed
 * inside a compute for the key as well, and only if the load was not superseded ({@link Install}): both
 * run under the key's map-bin lock, so an install never lands after a newer put or remove of the key that
 * took effect during the load. A loader that asks for its own key on its own thread fails instead of
 * waiting for itself. Reclaim: a finished load leaves {@code loads} before its waiters are released.
 */
final class SingleFlight {

  /**
   * Writes a loaded value into the cache, inside a compute for the key that checks {@link
   * Load#superseded()} first and installs nothing if it is set.
   */
  @FunctionalInterface
  interface Install {
    void put(ByteKey key, byte[] value, Load load);
  }

  /** One load in progress. */
  static final class Load {
    final Thread loader = Thread.currentThread();
    final CompletableFuture<byte[]> result = new CompletableFuture<>();
    private volatile boolean superseded; // set and read under the key's map-bin lock

    /** True once a put or remove of the key took effect after the load's check of the cache. */
    boolean superseded() {
      return superseded;
    }
  }

  private final ConcurrentHashMap<ByteKey, Load> loads = new ConcurrentHashMap<>();

  /**
   * The cached value, else the loaded one. {@code cached} waits for a write of the key in progress, then
   * reads the cache without counting a get; {@code install} stores a loaded value that was not superseded.
   */
  byte[] get(ByteKey key, Supplier<byte[]> cached, Function<byte[], byte[]> loader, Install install) {
    Load mine = new Load();
    Load running = loads.putIfAbsent(key, mine);
    if (running != null) {
      if (running.loader == Thread.currentThread()) {
        throw new IllegalStateException("the loader of a key asked for that same key (recursive load)");
      }
      return await(running);
    }
    try {
      byte[] now = cached.get(); // a put may have landed between the caller's miss and the registration
      byte[] value = now != null ? now : loader.apply(key.bytes().clone());
      if (now == null && value != null) {
        install.put(key, value, mine);
      }
      loads.remove(key, mine);
      mine.result.complete(value);
      return value;
    } catch (RuntimeException | Error e) {
      loads.remove(key, mine);
      mine.result.completeExceptionally(e);
      throw e;
    }
  }

  /**
   * A put or remove of {@code key} takes effect: a load in progress must not install after it. Call inside
   * the write's DRAM compute for the key.
   */
  void supersede(ByteKey key) {
    if (loads.isEmpty()) {
      return;
    }
    Load l = loads.get(key);
    if (l != null) {
      l.superseded = true;
    }
  }

  private static byte[] await(Load l) {
    try {
      return l.result.join();
    } catch (CompletionException e) {
      Throwable c = e.getCause();
      if (c instanceof RuntimeException r) {
        throw r;
      }
      if (c instanceof Error err) {
        throw err;
      }
      throw e;
    }
  }
}
