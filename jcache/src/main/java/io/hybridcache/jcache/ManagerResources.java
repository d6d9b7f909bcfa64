package io.hybridcache.jcache;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a {@code CacheManager} holds that must be let go of: its lease on the shared engine and its thread pool
 * (asynchronous listeners, {@code loadAll}). Closed once, by the manager's {@code close()} or, for a manager
 * dropped without close, by the provider when the collector has cleared it ({@code Cleaner}): so it never
 * refers to the manager, its caches or its class loader (the pool's threads have no context class loader of
 * their own; each task runs with the manager's). Thread-safe (synchronized).
 */
final class ManagerResources implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(ManagerResources.class);

  private final ManagerSettings settings;
  private SharedEngine.Lease lease;
  private ExecutorService pool;
  private boolean closed;
  /** Names of the MBeans its caches registered (names only: no reference to a cache or its loader). */
  private final java.util.Set<javax.management.ObjectName> mbeanNames = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** The record its caches keep of their MBean names; whatever is left in it is unregistered at close. */
  java.util.Set<javax.management.ObjectName> mbeanNames() {
    return mbeanNames;
  }

  ManagerResources(ManagerSettings settings) {
    this.settings = settings;
  }

  synchronized SharedEngine.Lease lease() {
    if (closed) {
      throw new IllegalStateException("the CacheManager is closed");
    }
    if (lease == null) {
      lease = SharedEngine.acquire(settings);
    }
    return lease;
  }

  /** The lease if the engine was opened, else null. */
  synchronized SharedEngine.Lease leaseIfOpen() {
    return lease;
  }

  /** The pool; each task runs with {@code loader}'s class loader (held weakly) as its context class loader. */
  synchronized java.util.concurrent.Executor pool(Supplier<ClassLoader> loader) {
    if (pool == null) {
      AtomicInteger n = new AtomicInteger();
      ThreadFactory threads = r -> {
        Thread t = new Thread(r, "hybridcache-jcache-" + n.incrementAndGet());
        t.setDaemon(true);
        t.setContextClassLoader(null); // not the creating thread's: it would pin an application's loader
        return t;
      };
      pool = Executors.newCachedThreadPool(threads);
    }
    ExecutorService p = pool;
    return task -> p.execute(() -> {
      Thread t = Thread.currentThread();
      t.setContextClassLoader(loader.get());
      try {
        task.run();
      } finally {
        t.setContextClassLoader(null);
      }
    });
  }

  /** Closes what was opened: the pool waits for its tasks until {@code drainDeadline} (nanoTime), then the engine. */
  void close(long drainDeadline) {
    ExecutorService p;
    SharedEngine.Lease l;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      p = pool;
      l = lease;
      MBeans.unregisterAll(java.util.List.copyOf(mbeanNames)); // a manager dropped without close: its beans too
      mbeanNames.clear();
      pool = null;
      lease = null;
    }
    if (p != null) {
      p.shutdown();
      try {
        if (!p.awaitTermination(Math.max(0, drainDeadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
          LOG.warn("CacheManager {}: asynchronous listener or loadAll tasks still running at close; left to finish"
              + " on their own (daemon threads)", settings.directory());
          p.shutdownNow();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (l != null) {
      l.release(); // the engine's close gives up at its close-timeout
    }
  }

  /** The collector cleared a manager dropped without close: let go of its engine (a clean close). */
  @Override
  public void run() {
    close(System.nanoTime());
  }
}
