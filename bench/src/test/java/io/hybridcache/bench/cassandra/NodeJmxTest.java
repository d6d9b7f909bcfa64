package io.hybridcache.bench.cassandra;

import static org.junit.jupiter.api.Assertions.fail;

import java.net.ServerSocket;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.api.Test;

/**
 * Review 20: NodeJmx asks for a 10 s request timeout ({@code jmx.remote.x.request.waiting.timeout}), which the RMI
 * connector does not read: a node whose JMX accepts the call and does not answer holds the caller (the main
 * thread's observe() before each restart, the sampler, the ring watch) for as long as it does not answer.
 */
class NodeJmxTest {
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

  @Test
  void aReadOfANodeThatDoesNotAnswerReturnsWithinItsTimeout() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Registry registry = LocateRegistry.createRegistry(port);
    MBeanServer mbs = MBeanServerFactory.newMBeanServer();
    Stuck stuck = new Stuck();
    mbs.registerMBean(stuck, new ObjectName("test:type=Stuck"));
    JMXConnectorServer server = JMXConnectorServerFactory.newJMXConnectorServer(
        new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi"), null, mbs);
    server.start();
    try {
      CompletableFuture<Object[]> read = CompletableFuture.supplyAsync(
          () -> new NodeJmx("127.0.0.1", port).objects("test:type=Stuck", "Value"));
      try {
        read.get(20, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        fail("NodeJmx.objects of a node that does not answer had not returned after 20 s (it sets a 10 s timeout)");
      }
    } finally {
      stuck.release.countDown();
      server.stop();
      UnicastRemoteObject.unexportObject(registry, true);
    }
  }
}
