package io.hybridcache.bench.cassandra;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs {@code src/it/cassandra.sh} (start, restart, stop, kill, nodetool) for the Cassandra
 * experiments and returns its standard output. Stateless.
 */
final class NodeScript {
  private NodeScript() {}

  /**
   * Runs {@code script args} with {@code env} added (may be null); its standard error goes to ours,
   * or nowhere if {@code quiet} (a poll that expects failures). Throws if it exits non-zero.
   */
  static List<String> run(Path script, List<String> args, Map<String, String> env, boolean quiet) {
    List<String> cmd = new ArrayList<>(List.of("bash", script.toString()));
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd)
        .redirectError(quiet ? ProcessBuilder.Redirect.DISCARD : ProcessBuilder.Redirect.INHERIT);
    if (env != null) {
      pb.environment().putAll(env);
    }
    try {
      Process p = pb.start();
      p.getOutputStream().close();
      List<String> out = List.of(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split("\n"));
      if (p.waitFor() != 0) {
        throw new IllegalStateException(script + " " + String.join(" ", args) + " failed (exit " + p.exitValue() + ")");
      }
      return out;
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + script + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
