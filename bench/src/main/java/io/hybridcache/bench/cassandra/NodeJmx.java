package io.hybridcache.bench.cassandra;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import javax.management.JMException;
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
 * null), never throws. Stateless.
 */
final class NodeJmx {
  /** Cassandra's SSTables-per-read histogram of table {@code keyspace.table}. */
  static String sstablesPerRead(String keyspace, String table) {
    return "org.apache.cassandra.metrics:type=Table,keyspace=" + keyspace + ",scope=" + table
        + ",name=SSTablesPerReadHistogram";
  }

  /** The hybrid row cache's own MBean (name "cassandra-row-cache", the plugin's default). */
  static final String HYBRID_CACHE = "io.hybridcache:type=HybridCache,name=\"cassandra-row-cache\"";

  private final String host;
  private final int port;

  NodeJmx(String host, int port) {
    this.host = host;
    this.port = port;
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
    Object[] v = new Object[attributes.length];
    Map<String, Object> env = new HashMap<>();
    env.put("jmx.remote.x.request.waiting.timeout", 10_000L);
    JMXServiceURL url;
    try {
      url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://" + host + ":" + port + "/jmxrmi");
    } catch (IOException e) {
      return v;
    }
    try (JMXConnector c = JMXConnectorFactory.connect(url, env)) {
      MBeanServerConnection s = c.getMBeanServerConnection();
      ObjectName name = new ObjectName(mbean);
      for (int i = 0; i < attributes.length; i++) {
        v[i] = s.getAttribute(name, attributes[i]);
      }
    } catch (IOException | JMException | RuntimeException e) {
      // null: the caller reports the figure as not measured
    }
    return v;
  }
}
