package io.hybridcache.bench.cassandra;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Numeric MBean attributes of a running Cassandra node, read over its local JMX port (the port
 * nodetool uses), one connection per read: what {@code nodetool info} does not print, such as the
 * table's SSTables-per-read histogram and the hybrid row cache's reclaim count, or the ring as a node
 * sees it. A read that fails (node down, no such MBean: OHC has no hybridcache bean) returns NaN (or
 * null), never throws; {@link #query} also says why it failed.
 *
 * <p><b>Timeout.</b> Every read is bounded by its timeout (10 s unless given), connect included: the
 * RMI connector has no request timeout of its own, so a node that accepts the call and never answers
 * would hold the caller for ever. The connect and the call run on a shared pool of daemon threads and
 * the caller waits at most the timeout; a read that has not returned by then is abandoned (its thread
 * stays blocked until the node answers or the connection breaks, and never delays the JVM's exit) and
 * fails with a {@link TimeoutException}. At most {@link #MAX_IN_FLIGHT} reads of one endpoint run at once: while
 * that many are blocked, a read fails at once (a {@code TimeoutException} saying so), so a node that never answers
 * holds at most that many threads, however long the run. Concurrency: an instance is immutable; the pool is shared.
 */
final class NodeJmx {
  /** Cassandra's SSTables-per-read histogram of table {@code keyspace.table}. */
  static String sstablesPerRead(String keyspace, String table) {
    return "org.apache.cassandra.metrics:type=Table,keyspace=" + keyspace + ",scope=" + table
        + ",name=SSTablesPerReadHistogram";
  }

  /** The hybrid row cache's own MBean (name "cassandra-row-cache", the plugin's default). */
  static final String HYBRID_CACHE = "io.hybridcache:type=HybridCache,name=\"cassandra-row-cache\"";

  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  /** Reads of one endpoint that may run at once; past it a read fails at once instead of adding a blocked thread. */
  static final int MAX_IN_FLIGHT = 2;
  private static final java.util.concurrent.ConcurrentHashMap<String, AtomicInteger> IN_FLIGHT =
      new java.util.concurrent.ConcurrentHashMap<>();
  private static final AtomicInteger THREADS = new AtomicInteger();
  private static final ExecutorService CALLS = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "node-jmx-" + THREADS.incrementAndGet());
    t.setDaemon(true);
    return t;
  });

  /** What a read returned: the attributes in order (null each one not read) and why it failed (null: all read). */
  record Answer(Object[] values, Throwable failure) {
    boolean answered() {
      return failure == null;
    }
  }

  private final String host;
  private final int port;
  private final long timeoutNanos;

  NodeJmx(String host, int port) {
    this(host, port, DEFAULT_TIMEOUT);
  }

  /** Reads of {@code host:port} bounded by {@code timeout} (positive) each. */
  NodeJmx(String host, int port, Duration timeout) {
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("the JMX timeout must be positive, was " + timeout);
    }
    this.host = host;
    this.port = port;
    this.timeoutNanos = timeout.toNanos();
  }

  /** {@code attributes} of {@code mbean} as doubles, in order; NaN for each one that could not be read. */
  double[] read(String mbean, String... attributes) {
    Object[] o = objects(mbean, attributes);
    double[] v = new double[attributes.length];
    for (int i = 0; i < v.length; i++) {
      v[i] = o[i] instanceof Number n ? n.doubleValue() : Double.NaN;
    }
    return v;
  }

  /** {@code attributes} of {@code mbean} as the MBean returns them, in order; null for each that could not be read. */
  Object[] objects(String mbean, String... attributes) {
    return query(mbean, attributes).values();
  }

  /**
   * {@code attributes} of {@code mbean}, and why the read failed if it did (the attributes read before the
   * failure are kept; none after a timeout); within the timeout. An interrupt ends the wait (the status kept).
   */
  Answer query(String mbean, String... attributes) {
    Object[] v = new Object[attributes.length];
    String endpoint = host + ":" + port;
    AtomicInteger running = IN_FLIGHT.computeIfAbsent(endpoint, e -> new AtomicInteger());
    if (running.incrementAndGet() > MAX_IN_FLIGHT) { // earlier reads still blocked: do not add a thread to them
      running.decrementAndGet();
      return new Answer(v, new TimeoutException("JMX " + endpoint + ": " + MAX_IN_FLIGHT
          + " earlier reads have not returned yet; not asked again until one does"));
    }
    Future<?> call;
    try {
      call = CALLS.submit(() -> {
        try {
          call(mbean, attributes, v);
          return null;
        } finally {
          running.decrementAndGet();
        }
      });
    } catch (RuntimeException | Error e) { // no thread for it (rejected, out of memory): a failed read
      running.decrementAndGet();
      return new Answer(v, e);
    }
    try {
      call.get(timeoutNanos, TimeUnit.NANOSECONDS);
      return new Answer(v, null);
    } catch (ExecutionException e) {
      return new Answer(v, e.getCause()); // the call has ended: v is complete as far as it got
    } catch (TimeoutException e) {
      call.cancel(true);
      return new Answer(new Object[attributes.length], new TimeoutException(
          "no answer from JMX " + host + ":" + port + " (" + mbean + ") within " + timeoutNanos / 1_000_000 + " ms"));
    } catch (InterruptedException e) {
      call.cancel(true);
      Thread.currentThread().interrupt();
      return new Answer(new Object[attributes.length], e);
    }
  }

  /** Connects, reads {@code attributes} of {@code mbean} into {@code v} in order, closes; on a pool thread. */
  private void call(String mbean, String[] attributes, Object[] v) throws Exception {
    JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://" + host + ":" + port + "/jmxrmi");
    try (JMXConnector c = JMXConnectorFactory.connect(url)) {
      MBeanServerConnection s = c.getMBeanServerConnection();
      ObjectName name = new ObjectName(mbean);
      for (int i = 0; i < attributes.length; i++) {
        v[i] = s.getAttribute(name, attributes[i]);
      }
    }
  }
}
