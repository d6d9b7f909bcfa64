package io.hybridcache.bench.cassandra;

import java.util.List;

/**
 * Decides, from what a surviving node reports over JMX, when a restarted node is Up/Normal in the
 * ring again as its peers see it ({@code nodetool status}'s "UN" on a survivor): live in the
 * survivor's gossip, neither joining, leaving nor moving, and a new incarnation (a gossip generation
 * above the one it had before its stop). The generation matters after a kill -9: a survivor keeps
 * showing the old incarnation Up/Normal until its failure detector convicts it. Without a generation
 * from before the stop, the node must have been seen not Up/Normal first. Parsing is apart from the
 * JMX reads so it can be tested; an instance is used by one thread.
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

  private final long generationBefore;
  private boolean seenDown;

  /** For a node whose generation before its stop was {@code generationBefore} (-1 if it could not be read). */
  RingWatch(long generationBefore) {
    this.generationBefore = generationBefore;
  }

  /** Whether {@code o}, the next observation, shows the restarted node Up/Normal in a new incarnation. */
  boolean restartedAndUpNormal(Observation o) {
    if (!o.upNormal()) {
      seenDown = true;
      return false;
    }
    boolean newGeneration = generationBefore >= 0 && o.generation() > generationBefore;
    return newGeneration || seenDown;
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
