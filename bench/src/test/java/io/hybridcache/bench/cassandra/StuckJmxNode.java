package io.hybridcache.bench.cassandra;

import java.net.ServerSocket;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import java.util.concurrent.CountDownLatch;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXServiceURL;

/**
 * A JMX endpoint on 127.0.0.1 whose one MBean ({@link #MBEAN}, attribute {@code Value}) accepts every read and does
 * not answer until {@link #close}: a node that stops answering, for {@link NodeJmx}'s tests.
 */
final class StuckJmxNode implements AutoCloseable {
  static final String MBEAN = "test:type=Stuck";

  public interface StuckMBean {
    int getValue() throws InterruptedException;
  }

  public static final class Stuck implements StuckMBean {
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public int getValue() throws InterruptedException {
      release.await(); // a node that does not answer (until the test lets it)
      return 1;
    }
  }

  private final Stuck stuck = new Stuck();
  private final Registry registry;
  private final JMXConnectorServer server;
  final int port;

  StuckJmxNode() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    registry = LocateRegistry.createRegistry(port);
    MBeanServer mbs = MBeanServerFactory.newMBeanServer();
    mbs.registerMBean(stuck, new ObjectName(MBEAN));
    server = JMXConnectorServerFactory.newJMXConnectorServer(
        new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi"), null, mbs);
    server.start();
  }

  /** Lets every read waiting on the MBean answer, then stops the endpoint. */
  @Override
  public void close() throws Exception {
    stuck.release.countDown();
    server.stop();
    UnicastRemoteObject.unexportObject(registry, true);
  }
}
