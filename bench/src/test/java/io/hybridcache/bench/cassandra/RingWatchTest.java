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

  /**
   * Review 20: cassandra-experiment.md's Up/Normal is "in a gossip generation above the one it had before its
   * stop". A survivor whose failure detector convicts the node for a moment (a GC pause before the drain) and
   * then sees the same, old incarnation live again: that is not a restart.
   */
  @Test
  void theOldIncarnationSeenDownOnceDoesNotCountAsRestarted() {
    List<String> all = List.of("127.0.0.1", "127.0.0.2", "127.0.0.3");
    List<String> without = List.of("127.0.0.1", "127.0.0.3");
    RingWatch w = new RingWatch(100);
    assertFalse(w.restartedAndUpNormal(seen(all, List.of(), 100)), "before the stop");
    assertFalse(w.restartedAndUpNormal(seen(without, List.of(), 100)), "a conviction of the old incarnation (a flap)");
    assertFalse(w.restartedAndUpNormal(seen(all, List.of(), 100)),
        "generation 100 is the one before the stop: the old incarnation, yet the watch decides it restarted");
  }

  /** A poll begun before the launch never decides, whatever it shows: no Up/Normal timed before the launch. */
  @Test
  void onlyAPollBegunAfterTheLaunchDecides() {
    List<String> all = List.of("127.0.0.1", "127.0.0.2", "127.0.0.3");
    RingWatch w = new RingWatch(100);
    assertFalse(w.poll(() -> seen(all, List.of(), 160)), "before the launch");
    assertFalse(w.poll(() -> {
      w.launched(); // the launch while the survivor is asked
      return seen(all, List.of(), 160);
    }), "a poll across the launch");
    assertFalse(w.poll(() -> null), "no survivor answered");
    assertTrue(w.poll(() -> seen(all, List.of(), 160)));
  }

  /**
   * Without a generation from before the stop, the polls that ended before the launch give the old incarnation's;
   * a down seen in a poll across the launch does not count for the fallback either.
   */
  @Test
  void thePollsBeforeTheLaunchGiveTheOldGenerationWhenItWasUnknown() {
    List<String> all = List.of("127.0.0.1", "127.0.0.2", "127.0.0.3");
    List<String> without = List.of("127.0.0.1", "127.0.0.3");
    RingWatch w = new RingWatch(-1);
    assertFalse(w.poll(() -> seen(all, List.of(), 100)), "the old incarnation, before the launch: generation 100");
    assertFalse(w.poll(() -> {
      w.launched();
      return seen(all, List.of(), 130); // spans the launch: neither learnt nor decided on
    }));
    assertFalse(w.poll(() -> seen(without, List.of(), 100)));
    assertFalse(w.poll(() -> seen(all, List.of(), 100)), "the old incarnation after a conviction");
    assertTrue(w.poll(() -> seen(all, List.of(), 101)), "above the old generation learnt before the launch");

    RingWatch unknown = new RingWatch(-1);
    assertFalse(unknown.poll(() -> {
      unknown.launched();
      return seen(without, List.of(), -1); // down, but the poll began before the launch
    }));
    assertFalse(unknown.poll(() -> seen(all, List.of(), -1)), "not seen down in a poll begun after the launch");
    assertFalse(unknown.poll(() -> seen(without, List.of(), -1)));
    assertTrue(unknown.poll(() -> seen(all, List.of(), -1)), "the fallback: down after the launch, then Up/Normal");
  }
}
