package io.hybridcache.bench.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** How a rolling restart decides that a surviving node sees the restarted one Up/Normal again. */
class RingWatchTest {
  /** A surviving node's FailureDetector AllEndpointStates (Cassandra 5.0's format), node 2 at {@code generation}. */
  private static String states(long generation) {
    return """
        /127.0.0.1
          generation:1732752000
          heartbeat:4711
          STATUS:16:NORMAL,-9223372036854775808
          STATUS_WITH_PORT:15:NORMAL,-9223372036854775808
          TOKENS:14:<hidden>
        /127.0.0.2
          generation:%d
          heartbeat:12
          STATUS_WITH_PORT:20:NORMAL,-3074457345618258603
          TOKENS:18:<hidden>
        /127.0.0.3
          generation:1732752002
          heartbeat:4690
          TOKENS: not present
        """.formatted(generation);
  }

  private static RingWatch.Observation seen(List<String> live, List<String> joining, long generation) {
    return RingWatch.Observation.of("127.0.0.2", live, joining, List.of(), List.of(), states(generation));
  }

  @Test
  void anEndpointIsItsAddressWithoutHostNameSlashOrPort() {
    assertEquals("127.0.0.2", RingWatch.host("/127.0.0.2"));
    assertEquals("127.0.0.2", RingWatch.host("127.0.0.2:7000"));
    assertEquals("127.0.0.2", RingWatch.host("localhost/127.0.0.2:17000"));
    assertEquals("127.0.0.2", RingWatch.host(" 127.0.0.2 "));
  }

  @Test
  void theGenerationIsTheRestartedNodesOwnNotAPeers() {
    assertEquals(1732752999L, RingWatch.generation(states(1732752999L), "127.0.0.2"));
    assertEquals(1732752002L, RingWatch.generation(states(1), "127.0.0.3"));
    assertEquals(-1, RingWatch.generation(states(1), "127.0.0.9"), "not in the ring");
    assertEquals(-1, RingWatch.generation(null, "127.0.0.2"), "not read");
  }

  @Test
  void upNormalIsLiveAndNeitherJoiningLeavingNorMoving() {
    List<String> all = List.of("127.0.0.1", "127.0.0.2", "127.0.0.3");
    assertTrue(seen(all, List.of(), 5).upNormal());
    assertFalse(seen(List.of("127.0.0.1", "127.0.0.3"), List.of(), 5).upNormal(), "down");
    assertFalse(seen(all, List.of("/127.0.0.2:17000"), 5).upNormal(), "joining");
    assertTrue(RingWatch.Observation.of("127.0.0.2", List.of("/127.0.0.2:17000"), List.of(), List.of(), List.of(),
        null).upNormal(), "endpoints as the *WithPort lists spell them");
  }

  @Test
  void theRestartedNodeCountsOnlyOnceANewIncarnationIsUpNormal() {
    List<String> all = List.of("127.0.0.1", "127.0.0.2", "127.0.0.3");
    List<String> without = List.of("127.0.0.1", "127.0.0.3");
    RingWatch w = new RingWatch(100);
    // a kill -9 the survivor has not noticed yet: the old incarnation still looks Up/Normal
    assertFalse(w.restartedAndUpNormal(seen(all, List.of(), 100)));
    assertFalse(w.restartedAndUpNormal(seen(without, List.of(), 100)));
    assertFalse(w.restartedAndUpNormal(seen(without, List.of(), 160)), "the new incarnation gossips, not up yet");
    assertTrue(w.restartedAndUpNormal(seen(all, List.of(), 160)));
  }

  @Test
  void withoutAGenerationBeforeTheStopItMustHaveBeenSeenDownFirst() {
    List<String> all = List.of("127.0.0.1", "127.0.0.2", "127.0.0.3");
    RingWatch w = new RingWatch(-1);
    assertFalse(w.restartedAndUpNormal(seen(all, List.of(), 100)), "never seen down: maybe not stopped yet");
    assertFalse(w.restartedAndUpNormal(seen(all, List.of("127.0.0.2"), 100)));
    assertTrue(w.restartedAndUpNormal(seen(all, List.of(), 100)));
  }
}
