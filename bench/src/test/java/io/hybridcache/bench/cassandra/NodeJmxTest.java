package io.hybridcache.bench.cassandra;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * NodeJmx against a node that accepts JMX calls and never answers ({@link StuckJmxNode}): a read returns within its
 * timeout (the RMI connector has no request timeout of its own: it held the caller for as long as the node did not
 * answer), and the node holds at most {@link NodeJmx#MAX_IN_FLIGHT} blocked threads however many reads time out
 * (cancel(true) does not unblock an RMI socket read: 8 timed-out reads left 8 threads blocked). Both written by
 * session 20's reviews.
 */
class NodeJmxTest {

  @Test
  void aReadOfANodeThatDoesNotAnswerReturnsWithinItsTimeout() throws Exception {
    try (StuckJmxNode node = new StuckJmxNode()) {
      CompletableFuture<Object[]> read = CompletableFuture.supplyAsync(
          () -> new NodeJmx("127.0.0.1", node.port).objects(StuckJmxNode.MBEAN, "Value"));
      try {
        read.get(20, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        fail("NodeJmx.objects of a node that does not answer had not returned after 20 s (it sets a 10 s timeout)");
      }
    }
  }

  @Test
  void timedOutReadsDoNotAccumulateBlockedThreads() throws Exception {
    try (StuckJmxNode node = new StuckJmxNode()) {
      NodeJmx jmx = new NodeJmx("127.0.0.1", node.port, Duration.ofMillis(500));
      int reads = 8;
      for (int i = 0; i < reads; i++) {
        assertFalse(jmx.query(StuckJmxNode.MBEAN, "Value").answered());
      }
      long blocked = Thread.getAllStackTraces().keySet().stream()
          .filter(t -> t.getName().startsWith("node-jmx-") && t.isAlive() && t.getState() != Thread.State.WAITING
              && t.getState() != Thread.State.TIMED_WAITING)
          .count();
      assertTrue(blocked <= 2, reads + " timed-out reads left " + blocked + " node-jmx threads blocked on the node");
    }
  }
}
