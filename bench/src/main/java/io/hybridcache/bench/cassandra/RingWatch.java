package io.hybridcache.bench.cassandra;

import java.util.List;
import java.util.function.Supplier;

/**
 * Decides, from what a surviving node reports over JMX, when a restarted node is Up/Normal in the
 * ring again as its peers see it ({@code nodetool status}'s "UN" on a survivor): live in the
 * survivor's gossip, neither joining, leaving nor moving, and a new incarnation (a gossip generation
 * above the one it had before its stop). The generation matters after a kill -9: a survivor keeps
 * showing the old incarnation Up/Normal until its failure detector convicts it, and a conviction
 * before the stop (a flap) followed by the old incarnation live again is no restart either.
 *
 * <p><b>The launch.</b> The watch polls from before the stop; {@link #launched} marks the moment the
 * new process is started. Only a poll begun after it can decide, so a decision is never timed before
 * the launch (such polls are ignored, not clamped). A poll that ended before it sees the old
 * incarnation: if the generation before the stop was not known, the highest such poll shows becomes
 * it. A poll that spans the launch is not used. Only when no generation from before the launch is
 * known at all does the watch fall back to: seen not Up/Normal in a poll begun after the launch, then
 * Up/Normal. Parsing is apart from the JMX reads so it can be tested.
 *
 * <p>Concurrency: {@link #launched} is called by the restarting thread, everything else by the one
 * polling thread.
 */
final class RingWatch {
  /** What a survivor sees of one node: live, normal (not joining, leaving, moving), its generation (-1: unknown). */
  record Observation(boolean up, boolean normal, long generation) {
    boolean upNormal() {
      return up && normal;
    }

    /**
     * {@code address} as seen in a survivor's StorageService lists ({@code LiveNodes}, {@code JoiningNodes},
     * {@code LeavingNodes}, {@code MovingNodes}) and its FailureDetector {@code AllEndpointStates} (may be null).
     */
    static Observation of(String address, List<String> live, List<String> joining, List<String> leaving,
                          List<String> moving, String allEndpointStates) {
      boolean normal = !contains(joining, address) && !contains(leaving, address) && !contains(moving, address);
      return new Observation(contains(live, address), normal, RingWatch.generation(allEndpointStates, address));
    }
  }

  private final boolean generationGiven;
  private long generationBefore;
  private boolean seenDownSinceLaunch;
  private volatile boolean launched;

  /** For a node whose generation before its stop was {@code generationBefore} (-1 if it could not be read). */
  RingWatch(long generationBefore) {
    this.generationBefore = generationBefore;
    this.generationGiven = generationBefore >= 0;
  }

  /** The new process is being started: from now on a poll that begins may decide. */
  void launched() {
    launched = true;
  }

  /**
   * One poll: {@code read} asks a survivor (null: none answered). Whether it shows the restarted node
   * Up/Normal in a new incarnation; false for a poll begun before {@link #launched}.
   */
  boolean poll(Supplier<Observation> read) {
    boolean begunAfterLaunch = launched;
    Observation o = read.get();
    if (o == null) {
      return false;
    }
    if (begunAfterLaunch) {
      return restartedAndUpNormal(o);
    }
    if (!generationGiven && !launched) { // ended before the launch too: the old incarnation
      generationBefore = Math.max(generationBefore, o.generation());
    }
    return false;
  }

  /**
   * Whether {@code o}, the next observation of a poll begun after the launch, shows the restarted node
   * Up/Normal in a new incarnation: in a generation above the one before the stop if that is known; if
   * not, after an observation (begun after the launch) that showed it not Up/Normal.
   */
  boolean restartedAndUpNormal(Observation o) {
    if (!o.upNormal()) {
      seenDownSinceLaunch = true;
      return false;
    }
    return generationBefore >= 0 ? o.generation() > generationBefore : seenDownSinceLaunch;
  }

  /** An endpoint as Cassandra prints it ({@code [host]/address[:port]}) reduced to its address. */
  static String host(String endpoint) {
    String s = endpoint.strip();
    s = s.substring(s.lastIndexOf('/') + 1);
    int colon = s.indexOf(':');
    return colon >= 0 && colon == s.lastIndexOf(':') ? s.substring(0, colon) : s;
  }

  /** The generation of {@code address} in a FailureDetector {@code AllEndpointStates} dump; -1 if absent. */
  static long generation(String allEndpointStates, String address) {
    if (allEndpointStates == null) {
      return -1;
    }
    boolean inside = false;
    for (String line : allEndpointStates.split("\n")) {
      if (!line.isEmpty() && !Character.isWhitespace(line.charAt(0))) { // an endpoint's first line
        inside = host(line).equals(address);
      } else if (inside && line.strip().startsWith("generation:")) {
        try {
          return Long.parseLong(line.strip().substring("generation:".length()));
        } catch (NumberFormatException e) {
          return -1;
        }
      }
    }
    return -1;
  }

  private static boolean contains(List<String> endpoints, String address) {
    return endpoints != null && endpoints.stream().anyMatch(e -> host(e).equals(address));
  }
}
