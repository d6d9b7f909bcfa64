package io.hybridcache.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.function.Consumer;

/**
 * Runs a child JVM (same java executable and classpath as this one, and no module flags unless it opens
 * Chronicle Map: {@link #javaCommand(List, String, List, boolean)}) or any other child process: streams its
 * stderr to ours with a prefix and captures its stdout. Not thread-safe: one {@link #run} at a time per
 * caller.
 */
public final class ChildJvm {
  /**
   * The flags Chronicle Map needs ({@link io.hybridcache.core.api.IndexType#CHRONICLE_JVM_FLAGS}) and its
   * analytics switched off: given to a child only when it opens Chronicle Map (the Chronicle index or peer).
   */
  public static final List<String> CHRONICLE_FLAGS = java.util.stream.Stream.concat(
      io.hybridcache.core.api.IndexType.CHRONICLE_JVM_FLAGS.stream(),
      java.util.stream.Stream.of("-Dchronicle.analytics.disable=true")).toList();

  private static final int STDERR_TAIL_LINES = 40;

  private ChildJvm() {}

  /** Exit code of a child {@link #run(List, String, PrintStream, Consumer, Path, java.time.Duration)} destroyed at its time limit. */
  public static final int TIMED_OUT = -1;

  /** What a child printed and how it ended ({@link #TIMED_OUT} if it was destroyed at its time limit). */
  public record Result(int exitCode, List<String> stdout, List<String> stderrTail) {
    public boolean timedOut() {
      return exitCode == TIMED_OUT;
    }
  }

  /** {@code java <jvmArgs> -cp <our classpath> mainClass args...}: a plain JVM, as users run. */
  public static List<String> javaCommand(List<String> jvmArgs, String mainClass, List<String> args) {
    return javaCommand(jvmArgs, mainClass, args, false);
  }

  /** As {@link #javaCommand(List, String, List)}, with {@link #CHRONICLE_FLAGS} first if {@code chronicle}. */
  public static List<String> javaCommand(List<String> jvmArgs, String mainClass, List<String> args, boolean chronicle) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    if (chronicle) {
      cmd.addAll(CHRONICLE_FLAGS);
    }
    cmd.addAll(jvmArgs);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(mainClass);
    cmd.addAll(args);
    return cmd;
  }

  /**
   * Runs {@code command} in the current directory, copying each stderr line to {@code err} as
   * {@code prefix + line} and each stdout line to {@code stdoutLine} (if not null) and to
   * {@code stdoutCopy} (if not null). The child is destroyed if this JVM exits first.
   */
  public static Result run(List<String> command, String prefix, PrintStream err, Consumer<String> stdoutLine,
                           Path stdoutCopy) throws IOException, InterruptedException {
    return run(command, prefix, err, stdoutLine, stdoutCopy, null);
  }

  /**
   * As {@link #run(List, String, PrintStream, Consumer, Path)}, destroying the child (forcibly) if it has
   * not exited after {@code limit} (null: no limit); its result then has exit code {@link #TIMED_OUT}.
   */
  public static Result run(List<String> command, String prefix, PrintStream err, Consumer<String> stdoutLine,
                           Path stdoutCopy, java.time.Duration limit) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command);
    Process p = pb.start();
    Thread killer = new Thread(p::destroyForcibly, "kill-child-" + p.pid());
    Runtime.getRuntime().addShutdownHook(killer);
    try {
      p.getOutputStream().close();
      List<String> out = Collections.synchronizedList(new ArrayList<>());
      Deque<String> tail = new ArrayDeque<>();
      Thread errPump = pump(p.getErrorStream(), line -> {
        err.println(prefix + line);
        synchronized (tail) {
          tail.addLast(line);
          if (tail.size() > STDERR_TAIL_LINES) {
            tail.removeFirst();
          }
        }
      }, "stderr-" + p.pid());
      Thread outPump = pump(p.getInputStream(), line -> {
        out.add(line);
        if (stdoutLine != null) {
          stdoutLine.accept(line);
        }
      }, "stdout-" + p.pid());
      int code;
      if (limit == null || p.waitFor(limit.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
        code = p.waitFor();
      } else {
        err.println(prefix + "no exit after " + limit.toSeconds() + " s: destroying the child");
        p.destroyForcibly().waitFor();
        code = TIMED_OUT;
      }
      errPump.join();
      outPump.join();
      if (stdoutCopy != null) {
        Files.write(stdoutCopy, out, StandardCharsets.UTF_8);
      }
      List<String> tailCopy;
      synchronized (tail) {
        tailCopy = List.copyOf(tail);
      }
      return new Result(code, List.copyOf(out), tailCopy);
    } finally {
      if (p.isAlive()) {
        p.destroyForcibly();
      }
      try {
        Runtime.getRuntime().removeShutdownHook(killer);
      } catch (IllegalStateException ignored) {
        // already shutting down: the hook runs
      }
    }
  }

  private static Thread pump(InputStream in, Consumer<String> sink, String name) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          sink.accept(line);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** {@code command} quoted for a shell, for logs. */
  public static String quote(List<String> command) {
    StringBuilder sb = new StringBuilder();
    for (String a : command) {
      if (sb.length() > 0) {
        sb.append(' ');
      }
      sb.append(a.matches("[A-Za-z0-9_./=:,@%+-]+") ? a : "'" + a.replace("'", "'\\''") + "'");
    }
    return sb.toString();
  }
}
