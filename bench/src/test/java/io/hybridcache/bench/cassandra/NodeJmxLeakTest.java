package io.hybridcache.bench.cassandra;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.api.Test;

/**
 * A node that accepts JMX calls and never answers holds at most {@link NodeJmx#MAX_IN_FLIGHT} blocked threads,
 * however many reads time out (cancel(true) does not unblock an RMI socket read). Written by session 20's second
 * review; failed before: "8 timed-out reads left 8 node-jmx threads blocked on the node".
 */
class NodeJmxLeakTest {
  public interface HangMBean {
    int getValue() throws InterruptedException;
  }

  public static final class Hang implements HangMBean {
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public int getValue() throws InterruptedException {
      release.await();
      return 1;
    }
  }

  @Test
  void timedOutReadsDoNotAccumulateBlockedThreads() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Registry registry = LocateRegistry.createRegistry(port);
    MBeanServer mbs = MBeanServerFactory.newMBeanServer();
    Hang hang = new Hang();
    mbs.registerMBean(hang, new ObjectName("test:type=Hang"));
    JMXConnectorServer server = JMXConnectorServerFactory.newJMXConnectorServer(
        new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi"), null, mbs);
    server.start();
    try {
      NodeJmx jmx = new NodeJmx("127.0.0.1", port, Duration.ofMillis(500));
      int reads = 8;
      for (int i = 0; i < reads; i++) {
        assertFalse(jmx.query("test:type=Hang", "Value").answered());
      }
      long blocked = Thread.getAllStackTraces().keySet().stream()
          .filter(t -> t.getName().startsWith("node-jmx-") && t.isAlive() && t.getState() != Thread.State.WAITING
              && t.getState() != Thread.State.TIMED_WAITING)
          .count();
      assertTrue(blocked <= 2, reads + " timed-out reads left " + blocked + " node-jmx threads blocked on the node");
    } finally {
      hang.release.countDown();
      server.stop();
      UnicastRemoteObject.unexportObject(registry, true);
    }
  }
}
